// Package dqn is Double DQN (van Hasselt et al. 2016) on package nn for
// discrete-action tasks such as MiniGrid DoorKey, with the shape of
// package sac: a Config with documented defaults, Agent.Act for acting,
// Agent.Update(batch) → Metrics for one gradient step from a
// replay.Batch, and versioned, checksummed checkpoints.
//
// One Update, top to bottom (CleanRL dqn.py with the Double-DQN target):
//
//	a*   = argmax_a Q_θ(s′, a)                         online net picks
//	y    = r + γⁿ·(1 − terminated)·Q_θ̄(s′, a*)         target net evaluates
//	δ    = Q_θ(s, a) − y
//	L    = mean_i w_i·Huber_κ(δ_i)                     κ = 1 (SmoothL1)
//	θ   ← Adam(∇θ L) with the gradient clipped to MaxGradNorm
//	θ̄   ← τ·θ + (1−τ)·θ̄ every TargetFrequency updates  (τ = 1: hard copy)
//
// w_i are the batch's importance weights (PER, VLM-RB); |δ_i| is exposed
// for PER priorities and, with Config.ReLo, the per-sample ReLo score
// Huber(Q_θ(s,a) − y) − Huber(Q_θ̄(s,a) − y). Actions are stored in replay as
// one float per transition holding the action index. n-step returns
// (Config.NStep > 1) are accumulated by the caller before storing; the
// agent bootstraps with γⁿ.
//
// Categorical observations (MiniGrid's object/colour/state codes) are
// one-hot encoded at the network input from Config.Categorical widths, so
// replay stores the compact codes.
//
// Exploration is ε-greedy with Config.Epsilon's linear decay. An Agent is
// for one goroutine at a time; Update does not allocate after the first
// batch of a given size.
package dqn
