package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/vlmrb/vlmrb/rundir"
)

// exportFlags is the table of robot-train export's flags.
var exportFlags = []flagDef{
	{name: "checkpoint", help: "export a checkpoint of `RUN_DIR` (the newest; RUN_DIR/checkpoints/step-N or …/best name one)"},
	{name: "step", kind: "int", def: "0", help: "the checkpoint of env step `N`"},
	{name: "best", kind: "bool", help: "the agent of the run's best evaluation (checkpoints/best)"},
	{name: "onnx", help: "write the policy to `FILE.onnx` (ONNX opset 13, dynamic batch)"},
	{name: "json", kind: "bool", help: "print one JSON object on stdout"},
}

func cmdExport(_ context.Context, args []string, stdout, stderr io.Writer) error {
	b, err := commandFlags("export", "--checkpoint RUN_DIR[/checkpoints/step-N|best] [--step N | --best] --onnx FILE.onnx [--json]", exportFlags, args, stderr)
	if err != nil {
		return err
	}
	ckpt, out, step, best, asJSON := b.str("checkpoint"), b.str("onnx"), int64(b.int("step")), b.on("best"), b.on("json")
	if ckpt == "" || out == "" {
		return usagef("give --checkpoint RUN_DIR and --onnx FILE.onnx")
	}
	if b.given("step") && (best || step <= 0) {
		return usagef("--step N needs N > 0 and no --best")
	}
	t0 := time.Now()
	res, err := rundir.ExportONNX(ckpt, out, rundir.ExportOptions{Step: step, Best: best})
	if err != nil {
		return err
	}
	took := time.Since(t0)
	what := "SAC actor (deterministic: tanh of the mean, scaled to the action bounds), output \"action\""
	if res.Algo == "dqn" {
		what = "DQN Q-network, output \"q_values\" (greedy action: argmax)"
	}
	if asJSON {
		return json.NewEncoder(stdout).Encode(struct {
			*rundir.ExportResult
			Millis float64 `json:"export_ms"`
		}{res, float64(took.Microseconds()) / 1000})
	}
	_, _ = fmt.Fprintf(stdout, "exported %s (env step %d, task %s): %s\n%s: %s in %s\n",
		res.Checkpoint, res.Step, res.Task, what, res.Path, byteSize(res.Bytes), took.Round(time.Millisecond))
	return nil
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
	case n >= 1<<10:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', 1, 64) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " B"
}

// evalONNX is robot-train eval --onnx FILE: the model's own task,
// episodes and seed (from its metadata) unless the flags say otherwise.
func evalONNX(ctx context.Context, b *boundFlags, path string, stdout, stderr io.Writer) error {
	for _, f := range []string{"checkpoint", "policy", "step", "best"} {
		if b.given(f) {
			return usagef("--onnx evaluates a model file; --%s is for checkpoints and scripted policies", f)
		}
	}
	o := rundir.EvalONNXOptions{Task: b.str("task"), Reward: b.str("reward"), GIF: b.str("video"), Camera: b.str("camera"), Arm: armFlags(b),
		Backend: b.str("render-backend"), Warnf: warnTo(stderr), GIFSize: b.int("video-size"), MaxEpisodeLen: b.int("max-episode-len")}
	if b.given("episodes") {
		o.Episodes = b.int("episodes")
	}
	if b.given("seed") {
		s := b.u64("seed")
		o.Seed = &s
	}
	if b.given("epsilon") {
		e := b.f64("epsilon")
		o.Epsilon = &e
	}
	if o.GIF != "" && IsGridTask(o.Task) {
		return usagef("--video is for the simulator's cameras; use robot-train render for grid GIFs")
	}
	res, err := rundir.EvalONNX(ctx, path, o)
	if err != nil {
		return err
	}
	seedNote := "the model's evaluation episodes"
	if b.given("seed") {
		seedNote = "given"
	}
	_, _ = fmt.Fprintf(stderr, "eval: ONNX model %s (%s, env step %d), seed %d (%s)\n", path, strings.TrimSpace(res.Kind+" "), res.Step, res.Seed, seedNote)
	what := fmt.Sprintf("ONNX model %s (step %d)", path, res.Step)
	if res.Extra != nil { // a task over an imported arm
		return printArmEval(stdout, b.on("json"), res.Task, what, res.Seed, res.EvalResult, res.Extra)
	}
	return printEval(stdout, b.on("json"), res.Task, what, res.Seed, res.EvalResult, o.GIF)
}
