// Package train is the training loop shared by the robot-train CLI and by
// library users: vectorised environments → the agent (SAC on the
// manipulation tasks, Double DQN on the grid tasks) → replay (uniform, PER,
// ReLo, VLM-RB, AER or ERO) → VLM-RB's asynchronous clip scoring →
// periodic deterministic evaluation → logs and checkpoints in a run
// directory (package rundir owns its layout, config and readers).
//
// One vector step of the loop, in order, like CleanRL's:
//
//  1. write-back: scores due under vlm.lag land in the VLM-RB sampler;
//  2. capture: each env's frame o_t of the state its action is taken in;
//  3. act and step every env;
//  4. store: each transition goes to replay with the frame captured for
//     its step (through n-step returns too) and is handed to the hooks
//     (StepEvent), VLM-RB's scoring among them, which pushes it to the
//     clipper;
//  5. update: the gradient steps the step count calls for; after each the
//     sampler takes back the one feedback signal the config decided
//     (rundir.Config.Feedback: TD errors, ReLo scores or none);
//  6. pace: evaluation, log row and checkpoint when the step crosses
//     their intervals.
//
// Contracts:
//   - Run takes rundir.Valid, the proof that the config's builder validated
//     it once (rundir.Config.Validated): Run never validates again, refuses
//     the zero Valid and runs its own copy. Mistakes are *rundir.ConfigError;
//     a derived setting (replay auto's sampler, the buffer's capacity)
//     is reported as derived on the console, never rewritten silently.
//   - Frame rule (vlmprio.Pipeline): transition t is scored with o_t; the
//     clip of transition i is (o_i … o_{i+L−1}); a terminated episode ends
//     its last clips with o_T; clips never cross episodes or envs.
//   - Side systems (clip scoring, the learned rewards, the batch
//     diagnostics, the replay baselines' feedback, Options.Hooks) keep
//     their own state behind methods and see the loop only through hook
//     events (StepEvent, UpdateEvent, EvalEvent, CheckpointEvent) and
//     narrow views; the loop never asks for a sampler's or hook's type.
//   - Determinism: with one seed, one machine and scoring in the loop
//     (vlm.workers 0 or vlm.lag) a run is a function of its config;
//     scripts/regress.sh checks this across refactors.
//   - Checkpoints hold everything that outlives an episode; a run killed at
//     any moment resumes from its newest complete checkpoint. Episodes in
//     progress are not saved: a resumed run starts fresh episodes, and
//     clips still queued for scoring keep the default priority p̄.
//   - Cancelling ctx stops the loop at the next step boundary and writes a
//     final checkpoint. Run is not safe to call twice on one run directory
//     at the same time (a lock refuses the second).
//   - Process-global state: Run selects package nn's BLAS backend for the
//     whole process (nn.SetBackend(cfg.BLAS), where the agent is built):
//     two runs in one process with different blas settings both use the
//     one chosen last.
//
// With demos N the task's scripted expert drives the first N episodes;
// with demos_path a LeRobot v3 dataset's episodes are stored before the
// first env step (StepEvent.Demo, Recorded) and scored from their own
// progress or video. With reward erlvlm or vlmrm the envs run the sparse
// task reward and SAC trains on the VLM-derived reward, which its model
// owns and schedules.
//
// Metric keys follow Stable-Baselines3/CleanRL (rollout/, eval/, losses/,
// time/, vlm/, reward/, replay/).
//
// Subpackage study runs grids of tasks × arms × seeds and aggregates them
// with package stats (IQM, stratified-bootstrap confidence intervals).
package train
