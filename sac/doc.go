// Package sac implements Soft Actor-Critic (Haarnoja et al. 2018) for
// continuous actions on package nn, following CleanRL's
// sac_continuous_action.py: twin critics with Polyak-averaged targets, a
// tanh-squashed Gaussian actor with the change-of-variables log-prob
// correction, log-std squashed into [LogStdMin, LogStdMax], automatic
// entropy tuning toward −|A|, delayed (but compensated) actor updates.
//
// Actions live in [−1, 1]^A; scaling to an environment's bounds is the
// caller's job. Update reads a replay.Batch (importance weights enter the
// critic loss; only Terminated stops bootstrapping, Truncated does not) and
// leaves per-sample |TD error| and ReLo scores for prioritised replay.
// A NaN or Inf loss or gradient returns a *DivergedError before any weight
// is changed. Checkpoints hold networks, targets, optimiser moments, α,
// the RNG state and the Config, are written atomically and resume
// bit-identically.
//
// Typical use (see the package Example):
//
//	nn.SetBackend("auto")                 // OpenBLAS when compiled in, else gonum
//	cfg := sac.DefaultConfig()            // CleanRL defaults
//	cfg.Seed, cfg.Threads = 1, 2          // Threads 2: twin critics on two cores (BLAS stays 1-threaded)
//	agent, err := sac.New(cfg, obsDim, actDim)
//	defer agent.Close()
//	agent.RandomAction(act)               // for the loop's first learning_starts env steps
//	agent.Act(act, obs, false)            // then sample; Act(act, obs, true) = tanh(mean) for eval
//	m, err := agent.Update(batch)         // *DivergedError on NaN/Inf; m.Range for logging
//	td, relo := agent.TDErrors(), agent.ReLoScores()
//	err = agent.Save(path)                // sac.Load(path) resumes bit-identically
//
// Use either Config.Threads = 2 or nn.SetThreads(2), not both: the first
// runs two single-threaded GEMMs at once, the second lets OpenBLAS split
// each GEMM, and both together oversubscribe two cores.
//
// After the first Update with a given batch size, Update and Act do not
// allocate (OpenBLAS backend; gonum's parallel GEMM allocates internally).
// An Agent is for one goroutine at a time; with Config.Threads = 2 it runs
// the twin critics on a helper goroutine that Close stops.
package sac
