// Package control is the control-stack face of vlmrb: the Gymnasium-style
// Env and VecEnv interfaces that training and other Go control stacks drive,
// the observation/action Spec, the Policy interface shared by learned agents
// and scripted experts, the controllers that turn an action into targets
// (MetaWorld's end-effector delta controller: a mocap target and finger
// servo targets, which the engine's adapter applies; a PD joint law), and a
// safety layer (workspace box, speed and force limits) that works on
// simulated and real robots alike. It imports only sim's vector math.
//
// Env follows Gymnasium: Reset(seed) returns the first observation, Step
// returns (obs, reward, terminated, truncated, info). Actions outside the
// Spec bounds are clipped; non-finite actions are rejected with
// ErrNonFiniteAction and do not advance the environment. Stepping an episode
// that has ended returns ErrNeedsReset.
//
// VecEnv steps N environments in N goroutines and resets finished episodes
// automatically in the same call, keeping the final observation in
// Info.FinalObs (Gymnasium ≤ 0.29 / Stable-Baselines3 semantics). Episode
// seeds are derived deterministically from one base seed, so a VecEnv run is
// reproducible regardless of goroutine scheduling.
//
// control owns no tasks and no physics: task scenes, rewards and experts live
// in package tasks, rigid-body simulation in package sim/articulated. An Env is used by
// one goroutine at a time; a VecEnv's methods must likewise not be called
// concurrently, but it drives its environments in parallel internally.
package control
