// Package train is the training loop shared by the robot-train CLI and by
// library users: vectorised environments → SAC → replay (uniform, PER, ReLo
// or the VLM-RB mixture) → the asynchronous clip-scoring pipeline → periodic
// deterministic evaluation → logs and checkpoints.
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
//	                       (step counters, loop RNG state, file sizes and SHA-256) last
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
// eval/, losses/, time/, vlm/). Run is not safe to call twice on the same
// run directory at the same time.
package train
