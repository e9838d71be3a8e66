package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/vlmrb/vlmrb/train"
)

func cmdExport(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("export", "--checkpoint RUN_DIR[/checkpoints/step-N|best] [--step N | --best] --onnx FILE.onnx [--json]", stderr)
	ckpt := fs.String("checkpoint", "", "export a checkpoint of `RUN_DIR` (the newest; RUN_DIR/checkpoints/step-N or …/best name one)")
	step := fs.Int64("step", 0, "the checkpoint of env step `N`")
	best := fs.Bool("best", false, "the agent of the run's best evaluation (checkpoints/best)")
	out := fs.String("onnx", "", "write the policy to `FILE.onnx` (ONNX opset 13, dynamic batch)")
	asJSON := fs.Bool("json", false, "print one JSON object on stdout")
	if err := parse(fs, args); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *ckpt == "" || *out == "" {
		return usagef("give --checkpoint RUN_DIR and --onnx FILE.onnx")
	}
	if set["step"] && (*best || *step <= 0) {
		return usagef("--step N needs N > 0 and no --best")
	}
	t0 := time.Now()
	res, err := train.ExportONNX(*ckpt, *out, train.ExportOptions{Step: *step, Best: *best})
	if err != nil {
		return err
	}
	took := time.Since(t0)
	what := "SAC actor (deterministic: tanh of the mean, scaled to the action bounds), output \"action\""
	if res.Algo == "dqn" {
		what = "DQN Q-network, output \"q_values\" (greedy action: argmax)"
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(struct {
			*train.ExportResult
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
func evalONNX(ctx context.Context, fs *flag.FlagSet, set map[string]bool, path string, stdout, stderr io.Writer) error {
	val := func(name string) string { return fs.Lookup(name).Value.String() }
	for _, f := range []string{"checkpoint", "policy", "step", "best"} {
		if set[f] {
			return usagef("--onnx evaluates a model file; --%s is for checkpoints and scripted policies", f)
		}
	}
	o := train.EvalONNXOptions{Task: val("task"), Reward: val("reward"), GIF: val("video"), Camera: val("camera"), Backend: val("render-backend"),
		Warnf: func(f string, a ...any) { _, _ = fmt.Fprintf(stderr, "warning: "+f+"\n", a...) }}
	o.GIFSize, _ = strconv.Atoi(val("video-size"))
	o.MaxEpisodeLen, _ = strconv.Atoi(val("max-episode-len"))
	if set["episodes"] {
		o.Episodes, _ = strconv.Atoi(val("episodes"))
	}
	if set["seed"] {
		s, _ := strconv.ParseUint(val("seed"), 10, 64)
		o.Seed = &s
	}
	if set["epsilon"] {
		e, _ := strconv.ParseFloat(val("epsilon"), 64)
		o.Epsilon = &e
	}
	if o.GIF != "" && train.IsGridTask(o.Task) {
		return usagef("--video is for the simulator's cameras; use robot-train render for grid GIFs")
	}
	res, err := train.EvalONNX(ctx, path, o)
	if err != nil {
		return err
	}
	seedNote := "the model's evaluation episodes"
	if set["seed"] {
		seedNote = "given"
	}
	_, _ = fmt.Fprintf(stderr, "eval: ONNX model %s (%s, env step %d), seed %d (%s)\n", path, strings.TrimSpace(res.Kind+" "), res.Step, res.Seed, seedNote)
	what := fmt.Sprintf("ONNX model %s (step %d)", path, res.Step)
	return printEval(stdout, val("json") == "true", res.Task, what, res.Seed, res.EvalResult, o.GIF)
}
