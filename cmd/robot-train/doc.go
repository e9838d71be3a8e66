// Command robot-train trains, evaluates, watches and scores robot
// manipulation policies with VLM-guided experience replay.
//
//	robot-train train   --task NAME --replay uniform|per|relo|vlmrb --scorer pixel|oracle|openai --steps N --seed S --out RUN_DIR
//	robot-train eval    (--checkpoint RUN_DIR | --onnx FILE.onnx | --policy expert|random) --task NAME --episodes N [--video FILE.gif] [--json]
//	robot-train render  --task NAME [--camera NAME] [--size WxH] [--policy expert|random] [--steps N] --out FILE.png|gif|mp4
//	robot-train score   --source sim:TASK|dir:PATH|URL --scorer pixel|oracle|openai [--clips N] [--json]
//	robot-train view    --task NAME [--policy expert|random | --checkpoint RUN_DIR]
//	robot-train export  --checkpoint RUN_DIR[/checkpoints/step-N|best] [--step N | --best] --onnx FILE.onnx [--json]
//	robot-train record  --task NAME [--model FILE.xml] --policy expert|random|RUN_DIR --episodes N --lerobot DIR [--cameras task,workspace] [--size WxH]
//	robot-train study   run STUDY.yaml --out DIR [--parallel N] [--shard K/N] | report DIR [--json] | archive DIR
//	robot-train simulate --model FILE.xml [--keyframe K] [--ctrl a,b,…] [--duration S] [--every STEPS] (--json | --speed)
//	robot-train tasks
//	robot-train bench
//	robot-train version
//
// Exit codes: 0 success, 1 runtime failure, 2 usage error (bad flag,
// config or name), 130 interrupted (Ctrl-C, SIGTERM or SIGHUP; training
// checkpoints first). Signals within 60 s of the first are ignored so the
// stop checkpoint is written; one after that ends the process at once.
// Output that cannot be written (a full disk under stdout, a --video path
// that cannot be created) is a failure, exit 1.
//
// An MJCF model (--model FILE.xml: render, train, eval and record over
// tasks arm-reach, panda-pick and panda-push; simulate) is compiled by mjcf.Load and simulated on
// the articulated engine (sim/articulated, MuJoCo's equations).
//
// The command is a thin layer over packages train (the training loop),
// rundir (run directories, checkpoints, evaluation, export, record),
// train/study (studies) and over
// render, vlmprio, hw and tasks for the render, score, view and bench
// commands (tasks.MakeEnv, render.OpenTaskCamera, vlmprio.NewScorer,
// vlmprio.EpisodeClips); its own helpers
// over tasks and nn are the cli_*.go files. Every subcommand's flags come
// from a table of flagDef rows (flags.go): train's rows name the config
// keys they set and whether --resume accepts them; other commands' rows
// are typed options with defaults. run(ctx, args, stdout, stderr) is the
// whole CLI; main only wires the process (signals, exit code) to it.
package main
