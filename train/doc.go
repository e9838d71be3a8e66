// Package train is the training loop shared by the robot-train CLI and by
// library users: vectorised environments → SAC → replay (uniform, PER, ReLo
// or the VLM-RB mixture) → the asynchronous clip-scoring pipeline → periodic
// deterministic evaluation → logs and checkpoints.
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
// eval/, losses/, time/, vlm/, reward/). Run is not safe to call twice on the same
// run directory at the same time.
package train
