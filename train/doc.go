// Package train is the training loop shared by the robot-train CLI and by
// library users: vectorised environments → SAC → replay (uniform, PER, ReLo
// or the VLM-RB mixture) → the asynchronous clip-scoring pipeline → periodic
// deterministic evaluation → logs and checkpoints.
//
// One loop (loop.go) serves both learners: SAC on the manipulation tasks
// (run.go, sac_*.go) and Double DQN on the grid tasks (dqn*.go). SAC's
// tasks include arm-reach over an imported MJCF arm (the arm section,
// armrun.go), without the frame scorers, VLM rewards and GIFs that film
// MetaWorld scenes. The loop
// owns the envs, the agent and the sampler: a learner collects a vector
// step of experience and updates; the loop stores transitions, samples
// (the sampler and the feedback it takes — TD errors, ReLo scores or none
// — are chosen once), paces evaluation, logging and checkpoints, and hands
// typed events to hooks in the manner of Stable-Baselines3's callbacks:
// OnStep for every stored transition, AfterUpdate, OnEval and
// OnCheckpoint. The loop's own files are loop.go, loop_ckpt.go,
// loop_log.go and rundir.go (its core), with its two learners: SAC's
// runner (run.go, sac_collect.go, sac_demos.go, sac_parts.go, and armrun.go for
// arm-reach) and DQN's
// dqnRunner (dqn.go, dqn_eval.go, dqn_frames.go); only these see the core
// or a learner. The side systems — the batch
// diagnostics (diag.go), VLM-RB's clip scoring (scoring.go), the learned
// reward (reward.go), the replay baselines' feedback (sampler.go,
// baselines.go) and Options.Hooks — are hooks or sampler parts that keep
// their own state and are built from narrow views (the envs' cameras as
// frame sources, an env view of progress and time, the sampler they write
// to, the buffer's capacity), never from a learner or the loop itself. A
// sampler's extra needs are optional interfaces (sampler.go): the end of a
// training episode (ERO's replay reward), the agent's current state (AER's
// query), its own metrics and checkpoint state; the loop never asks for a
// sampler's type.
//
// One config tree: the sac, dqn, aer and ero sections are sac.Config,
// dqn.Config, replay.AERConfig and replay.EROConfig themselves, the buffer
// section embeds replay.Config, replay.PERConfig and replay.VLMRBConfig,
// and the vlm section vlmprio.ClipperConfig and vlmprio.PrioritizerConfig
// (yaml keys inline, named by those packages' yaml tags), plus the few
// settings the loop owns (learning_starts, updates_per_step, train_freq,
// the ε schedule's fraction, lambda_warmup in env steps) and what only the
// run knows (dimensions, β's and λ's schedules in Sample calls, set when
// the sampler is built). The rest of the vlm section is the scorer's
// frames (camera, size, renderer) and its server.
//
// The scorer's frames come through frame.Source: the simulation's camera
// (render.SimCamera, or the grid's tile frames), or any source given in
// Options.Frames (a real camera from package hw). One rule says which
// frame goes with a transition, for both learners (vlmprio.Pipeline): the
// frame of transition t is o_t, the observation its action is taken in,
// rendered once before the env step; the clip that scores transition i is
// (o_i … o_{i+L−1}); a terminated episode (the grid's goal reached) ends
// its last clips with its final observation o_T. The manipulation tasks
// never terminate in training (they truncate at max_episode_len), so their
// clips end at o_{T−1}.
// With demos N the first N episodes (by episode id, across the envs) are
// driven by the task's scripted expert: a sparse-reward run then holds
// successful experience from the start, as with a few demonstrations, and
// the clips of those episodes are scored like any others. With demos_path
// (train --demos PATH) the episodes of a LeRobot v3 dataset take their
// place instead (demos.go): stored before the first env step, checked
// against the task's spaces, marked in StepEvent (Demo, Recorded), and
// scored by VLM-RB: the oracle from their recorded progress, the frame
// scorers from the dataset's video of their camera when it matches their
// frames (else they keep the default priority, with a warning). A
// recording of a run's own expert episodes (Record, robot-train record)
// reproduces the demos N run bit for bit. Record writes episodes of any
// policy as such a dataset.
//
// With reward erlvlm or vlmrm the environments run with the sparse task
// reward (kept in replay and logged) and SAC trains on a VLM-derived
// reward instead: after every env step each env's s_{t+1} is rendered (the
// final state, copied before the VecEnv's auto-reset, when the step ended
// the episode). ERL-VLM (vlmreward.Learner) keeps the frame of every
// replay slot, asks the rater (oracle or an OpenAI-compatible VLM) for
// ratings on the schedule, fits its CNN ensemble and relabels the whole
// buffer; SAC updates start at its first fit. VLM-RM embeds the frames in
// chunks over HTTP and writes 1 − ½‖P(x − g)‖² into the transitions' slots.
// Sampled rows whose reward is not known yet get weight 0. Each evaluation
// also logs eval/reward_expert_spearman: the rank correlation of the
// reward with privileged progress along one scripted-expert episode.
//
// It owns the run directory and everything in it:
//
//	RUN_DIR/
//	  config.yaml          the resolved configuration (secrets removed)
//	  metrics.csv          one row per log interval, one column per metric
//	  metrics.jsonl        the same rows as JSON objects (the source of truth on resume)
//	  tb/                  TensorBoard event files (hand-encoded TFRecord/Event protobuf)
//	  curves/*.png         learning curves (gonum/plot), refreshed at every evaluation
//	  videos/eval-*.gif    evaluation episodes
//	  checkpoints/step-N/  agent.bin (networks, optimisers, α, agent RNG), replay.bin (buffer,
//	                       priorities, scored flags), state.json, config.yaml; manifest.json
//	                       (step counters, loop RNG state, file sizes and SHA-256) last;
//	                       reward.bin with reward erlvlm (reward model, ratings, every
//	                       slot's frame and reward) or vlmrm (every slot's reward)
//	  checkpoints/best/    agent.bin, config.yaml and eval.json of the best evaluation so far
//	                       (highest success rate, then mean return)
//
// EvalRun evaluates a run's newest, best or step-N checkpoint the way the
// run's own evaluations did (same episodes, seed, length): the newest
// checkpoint of a finished run reproduces its final evaluation exactly.
//
// Every file that a crash could leave half-written is written atomically
// (temporary file, fsync, rename, fsync of the directory). A checkpoint is
// complete when its manifest exists and every file it lists matches its
// size and SHA-256; resume picks the newest complete one, so a run killed
// with SIGKILL at any moment resumes with nothing corrupt. Cancelling the
// context passed to Run stops the loop cleanly and writes a final
// checkpoint.
//
// A checkpoint holds everything that outlives an episode; episodes in
// progress are not saved, so a resumed run starts fresh episodes (seeded
// from the run seed and the resumed step) and clips still queued for
// scoring keep the default priority p̄. Scoring is asynchronous, so runs
// with replay vlmrb are not bit-reproducible; the others are, for one
// seed and one machine.
//
// Metric keys follow Stable-Baselines3/CleanRL conventions (rollout/,
// eval/, losses/, time/, vlm/, reward/). The replay/ group explains a
// replay result from the sampled batches of each log interval:
// prioritized_frac (share of draws from VLM-RB's prioritized branch),
// semantic_hit_rate and semantic_hit_rate_prioritized against
// semantic_buffer_frac (transitions the privileged oracle marks as progress:
// the stage advanced, progress rose by ≥ 0.005 in the step, or success),
// reward_batch_frac against reward_buffer_frac (reward > 0), and
// prioritized_age_frac (mean age of prioritized draws as a fraction of the
// buffer's span). With replay vlmrb each evaluation also logs
// eval/score_dq_spearman, the paper's Fig. 3 check: the rank correlation of
// clip scores with the critic's ΔQ(t; L) = Q(t+L/2) − Q(t−L/2) along a
// scripted-expert episode (absent when every clip scores the same).
// Run is not safe to call twice on the same run directory at the same time.
//
// Subpackage study runs grids of tasks × arms × seeds and aggregates them
// with IQM and stratified-bootstrap confidence intervals.
package train
