// Package rundir owns a training run's directory and everything that only
// reads one: the run's config (the config.yaml schema, its defaults, the
// `--set` keys and validation), the checkpoint layout (manifest.json with
// sizes and SHA-256 of every part, atomic writes, the newest complete
// checkpoint wins), the metrics log (metrics.jsonl, metrics.csv, TensorBoard
// events, curves, the console table and progress line), and the tools over a finished or running run: load its
// agent, evaluate it (`robot-train eval`), export it to ONNX and check the
// export, and record scripted or trained episodes as a LeRobot dataset.
//
// A run directory:
//
//	RUN_DIR/
//	  config.yaml          the resolved configuration (secrets removed)
//	  platform.json        every session's Go, CPU and BLAS
//	  metrics.csv          one row per log interval, one column per metric
//	  metrics.jsonl        the same rows as JSON objects (the source of truth on resume)
//	  tb/                  TensorBoard event files (hand-encoded TFRecord/Event protobuf)
//	  curves/*.png         learning curves, refreshed at every evaluation
//	  videos/eval-*.gif    evaluation episodes
//	  checkpoints/step-N/  agent.bin, replay.bin, state.json, config.yaml (reward.bin with
//	                       a learned reward); manifest.json, with every file's size and
//	                       SHA-256, written last: a checkpoint is complete when it exists
//	                       and every file matches
//	  checkpoints/best/    agent.bin, config.yaml and eval.json of the best evaluation so far
//
// EvalRun evaluates a run's newest, best or step-N checkpoint the way the
// run's own evaluations did (same episodes, seed, length): the newest
// checkpoint of a finished run reproduces its final evaluation exactly.
//
// It sits below train (the order as built: internal/layers' test and
// docs/architecture.md): train writes what this package reads, and front
// ends that only read runs (eval, export, render, score, record, the Viam
// module, the Python package) import rundir and never the training loop.
//
// Contracts: Config.Validated is the one check of a config, made once at
// the edge that builds the config (the CLI, a study's cell, a library
// caller); it returns the proof Valid, a deep copy that train.Run takes
// instead of a Config, so the loop never validates again and a config
// changed after validation cannot reach it. Loading does not validate, so
// a stored config of an older version still loads for eval. The YAML keys
// and their `--set` spellings are stable (renamed keys keep their old
// name as an alias, keyalias.go); every file is written atomically (a
// crash leaves the old file or the new one, never half of one); readers
// of manifests, metrics and parts bound what they read and return errors,
// never panic, on damaged files; evaluation seeds are EvalSeed(cfg),
// disjoint from training seeds.
package rundir
