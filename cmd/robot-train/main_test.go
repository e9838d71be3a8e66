package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vlmrb/vlmrb/internal/embedtest"
	"github.com/vlmrb/vlmrb/render"
	"github.com/vlmrb/vlmrb/rundir"
)

// runCLI runs the CLI in-process and returns its exit code and output.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

// tiny is a train budget that finishes in seconds, even under -race.
func tiny(out string, extra ...string) []string {
	return append([]string{"train", "--task", "reach", "--steps", "200", "--num-envs", "2",
		"--learning-starts", "100", "--batch-size", "32", "--hidden", "16,16",
		"--eval-every", "0", "--eval-episodes", "1", "--max-episode-len", "50",
		"--log-every", "100", "--checkpoint-every", "100", "--quiet", "--out", out}, extra...)
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	badYAML := filepath.Join(dir, "bad.yaml")
	_ = os.WriteFile(badYAML, []byte("task: reach\nsac:\n  batchsize: 64\n"), 0o644)
	for _, tc := range []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"no args", nil, "usage: robot-train"},
		{"unknown command", []string{"trian"}, `unknown command "trian"`},
		{"unknown flag", []string{"train", "--bogus"}, "flag provided but not defined: -bogus"},
		{"bad replay", []string{"train", "--replay", "fifo", "--out", filepath.Join(dir, "a")}, `replay "fifo" is not one of auto|uniform|per|relo|vlmrb`},
		{"bad scorer", []string{"train", "--scorer", "gpt", "--out", filepath.Join(dir, "b")}, "scorer"},
		{"unknown task", []string{"train", "--task", "fly", "--steps", "10", "--out", filepath.Join(dir, "c")}, "unknown task \"fly\""},
		{"openai without server", []string{"train", "--scorer", "openai", "--out", filepath.Join(dir, "d")}, "--vlm-base-url"},
		{"unknown config key", []string{"train", "--config", badYAML, "--out", filepath.Join(dir, "e")}, "batchsize"},
		{"missing config", []string{"train", "--config", filepath.Join(dir, "nope.yaml")}, "file not found"},
		{"stray argument", []string{"train", "reach"}, `unexpected argument "reach"`},
		{"resume nothing", []string{"train", "--resume", filepath.Join(dir, "none")}, "no config.yaml"},
		{"resume unsafe flag", []string{"train", "--resume", dir, "--replay", "per"}, "--replay cannot change on resume"},
		{"eval needs one source", []string{"eval", "--task", "reach"}, "exactly one of --checkpoint"},
		{"eval bad task", []string{"eval", "--policy", "expert", "--task", "fly"}, "unknown task"},
		{"eval bad policy", []string{"eval", "--policy", "genius", "--task", "reach"}, "expert|random"},
		{"render no out", []string{"render", "--task", "reach"}, "--out"},
		{"render bad ext", []string{"render", "--task", "reach", "--out", "x.bmp"}, ".png, .gif or .mp4"},
		{"render bad size", []string{"render", "--task", "reach", "--out", "x.png", "--size", "0x9"}, "WxH"},
		{"score no source", []string{"score"}, "--source is required"},
		{"score oracle on camera", []string{"score", "--source", "dir:/tmp", "--scorer", "oracle"}, "only sim:TASK"},
		{"score bad task", []string{"score", "--source", "sim:fly"}, "unknown task"},
		{"score bad theme", []string{"score", "--source", "sim:reach", "--theme", "neon"}, "standard|misleading|abstract"},
		{"score theme on camera", []string{"score", "--source", "dir:/tmp", "--theme", "abstract"}, "not sim:TASK"},
	} {
		code, _, stderr := runCLI(t, tc.args...)
		if code != exitUsage {
			t.Errorf("%s: exit %d, want 2 (stderr %q)", tc.name, code, stderr)
			continue
		}
		if !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: stderr %q lacks %q", tc.name, stderr, tc.want)
		}
	}
}

func TestHelpExitsZero(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"help"}, {"train", "-h"}, {"eval", "--help"}} {
		if code, _, _ := runCLI(t, args...); code != exitOK {
			t.Errorf("%v: exit %d", args, code)
		}
	}
}

func TestTasksAndVersion(t *testing.T) {
	t.Parallel()
	code, out, stderr := runCLI(t, "tasks")
	if code != 0 || !strings.Contains(out, "reach") || !strings.Contains(out, "DESCRIPTION") || !strings.Contains(out, "doorkey-8x8") {
		t.Fatalf("tasks: exit %d out %q err %q", code, out, stderr)
	}
	code, out, stderr = runCLI(t, "version")
	if code != 0 || !strings.Contains(out, "robot-train") || !strings.Contains(out, "BLAS backend") {
		t.Fatalf("version: exit %d out %q err %q", code, out, stderr)
	}
}

func TestEvalScriptedJSON(t *testing.T) {
	t.Parallel()
	code, out, stderr := runCLI(t, "eval", "--policy", "expert", "--task", "reach", "--episodes", "2", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var res struct {
		SuccessRate *float64 `json:"success_rate"`
		MeanReturn  *float64 `json:"mean_return"`
		Episodes    int      `json:"episodes"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.SuccessRate == nil || res.MeanReturn == nil || res.Episodes != 2 {
		t.Fatalf("bad JSON %q: %v", out, err)
	}
	// the scripted reach expert solves reach (tasks promises ≥ 95%)
	if *res.SuccessRate < 0.5 {
		t.Fatalf("expert success rate %v on reach", *res.SuccessRate)
	}
}

func TestScoreSimOracleJSON(t *testing.T) {
	t.Parallel()
	code, out, stderr := runCLI(t, "score", "--source", "sim:reach", "--scorer", "oracle", "--clips", "3", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines, want 3: %q", len(lines), out)
	}
	for i, l := range lines {
		var v map[string]any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("line %d not JSON: %v", i, err)
		}
		for _, k := range []string{"clip", "score", "latency_ms", "error"} {
			if _, ok := v[k]; !ok {
				t.Fatalf("line %d lacks %q: %s", i, k, l)
			}
		}
		if v["error"] != "" {
			t.Fatalf("clip %d: error %v", i, v["error"])
		}
		if s := v["score"].(float64); s < 0 || s > 1 {
			t.Fatalf("clip %d: score %v outside [0,1]", i, s)
		}
	}
}

func TestTrainSmokeAndEvalCheckpoint(t *testing.T) {
	t.Parallel()
	for _, replay := range []string{"uniform", "per", "relo", "vlmrb"} {
		t.Run(replay, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "run")
			args := tiny(out, "--replay", replay)
			if replay == "vlmrb" {
				args = append(args, "--scorer", "oracle")
			}
			code, stdout, stderr := runCLI(t, args...)
			if code != 0 {
				t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
			}
			for _, f := range []string{"config.yaml", "metrics.csv", "metrics.jsonl"} {
				if _, err := os.Stat(filepath.Join(out, f)); err != nil {
					t.Fatal(err)
				}
			}
			_, man, err := rundir.LatestCheckpoint(out)
			if err != nil || man.Step != 200 {
				t.Fatalf("checkpoint %+v %v", man, err)
			}
			rows, err := rundir.ReadMetricsJSONL(filepath.Join(out, "metrics.jsonl"))
			if err != nil || len(rows) == 0 {
				t.Fatalf("metrics rows %d %v", len(rows), err)
			}
			hasEval := false
			for _, r := range rows {
				if _, ok := r.Values["eval/success_rate"]; ok {
					hasEval = true
				}
			}
			if !hasEval {
				t.Fatal("no eval/success_rate row after the final evaluation")
			}
			if !strings.Contains(stdout, "checkpoint:") {
				t.Fatalf("summary lacks the checkpoint path: %s", stdout)
			}
			if replay != "uniform" {
				return
			}
			code, js, stderr := runCLI(t, "eval", "--checkpoint", out, "--episodes", "1", "--json")
			if code != 0 {
				t.Fatalf("eval exit %d: %s", code, stderr)
			}
			if !strings.Contains(js, `"success_rate"`) {
				t.Fatalf("eval JSON %q", js)
			}
			// by default eval repeats the run's own final evaluation: its
			// newest checkpoint, episodes and evaluation seed
			code, js, stderr = runCLI(t, "eval", "--checkpoint", out, "--json")
			var got struct {
				SuccessRate float64 `json:"success_rate"`
				MeanReturn  float64 `json:"mean_return"`
				Episodes    int     `json:"episodes"`
			}
			if code != 0 || json.Unmarshal([]byte(js), &got) != nil || !strings.Contains(stderr, "(the run's evaluation episodes)") {
				t.Fatalf("eval exit %d: %s\n%s", code, js, stderr)
			}
			var last rundir.Row
			for _, r := range rows {
				if _, ok := r.Values["eval/success_rate"]; ok {
					last = r
				}
			}
			if got.SuccessRate != last.Values["eval/success_rate"] || got.MeanReturn != last.Values["eval/mean_reward"] ||
				float64(got.Episodes) != last.Values["eval/episodes"] {
				t.Fatalf("eval %+v does not reproduce the run's final evaluation %v", got, last.Values)
			}
			// a second train into the same directory is refused
			code, _, stderr = runCLI(t, tiny(out)...)
			if code != exitUsage || !strings.Contains(stderr, "--resume") {
				t.Fatalf("reuse of run dir: exit %d %q", code, stderr)
			}
		})
	}
}

func TestRenderOutputs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct {
		file  string
		magic string
		args  []string
	}{
		{"a.png", "\x89PNG", nil},
		{"a.gif", "GIF89a", []string{"--steps", "20", "--every", "5"}},
		{"a.mp4", "ftyp", []string{"--steps", "10", "--policy", "random"}},
	} {
		if strings.HasSuffix(tc.file, ".mp4") {
			if _, err := exec.LookPath("ffmpeg"); err != nil {
				t.Log("ffmpeg not installed (make deps installs it): skipping MP4")
				continue
			}
		}
		out := filepath.Join(dir, tc.file)
		args := append([]string{"render", "--task", "push", "--size", "64x48", "--out", out}, tc.args...)
		code, stdout, stderr := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.file, code, stderr)
		}
		b, err := os.ReadFile(out)
		if err != nil || !bytes.Contains(b[:min(len(b), 16)], []byte(tc.magic)) {
			t.Fatalf("%s: not a %q file (err %v)", tc.file, tc.magic, err)
		}
		if !strings.Contains(stdout, "wrote "+out) {
			t.Fatalf("%s: stdout %q", tc.file, stdout)
		}
	}
}

func TestScoreSimPixelRanksExpertAboveRandom(t *testing.T) {
	t.Parallel()
	mean := func(policy string) float64 {
		code, out, stderr := runCLI(t, "score", "--source", "sim:push", "--scorer", "pixel", "--clips", "12",
			"--policy", policy, "--size", "96x96", "--json")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		s, n := 0.0, 0
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			var v scoreLine
			if err := json.Unmarshal([]byte(l), &v); err != nil || v.Score == nil {
				t.Fatalf("line %q: %v", l, err)
			}
			s += *v.Score
			n++
		}
		return s / float64(n)
	}
	// pixel scores of expert pushing exceed random flailing (the scorer's contract)
	if e, r := mean("expert"), mean("random"); e <= r {
		t.Fatalf("expert mean pixel score %.3f ≤ random %.3f", e, r)
	}
}

// The abstract theme draws the task's objects without their colours, so the
// pixel scorer's colour keys find nothing in an expert's clips and it has no
// evidence of progress (score 0), where standard frames score above 0.
func TestScoreThemeAbstractHidesColours(t *testing.T) {
	t.Parallel()
	mean := func(theme string) float64 {
		code, out, stderr := runCLI(t, "score", "--source", "sim:window-open", "--scorer", "pixel", "--clips", "4",
			"--policy", "expert", "--size", "96x96", "--theme", theme, "--json")
		if code != 0 {
			t.Fatalf("theme %s: exit %d: %s", theme, code, stderr)
		}
		s, n := 0.0, 0
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			var v scoreLine
			if err := json.Unmarshal([]byte(l), &v); err != nil || v.Score == nil {
				t.Fatalf("theme %s: line %q: %v", theme, l, err)
			}
			s += *v.Score
			n++
		}
		return s / float64(n)
	}
	if a := mean("abstract"); a != 0 {
		t.Errorf("abstract theme: mean pixel score %.3f, want 0 (no task colour visible)", a)
	}
	if st := mean("standard"); st <= 0 {
		t.Errorf("standard theme: mean pixel score %.3f, want > 0", st)
	}
}

// Grid sources: every clip of a planner episode on DoorKey-8×8 holds an
// event (the episode is shorter than a clip, so each clip runs to the goal),
// so the event oracle says yes to all of them; the pixel scorer ranks the
// planner's standard-theme tiles above a random policy's and sees nothing
// in the abstract theme.
func TestScoreGridSource(t *testing.T) {
	t.Parallel()
	scores := func(args ...string) []float64 {
		args = append([]string{"score", "--source", "sim:doorkey-8x8", "--clips", "6", "--size", "96x96", "--json"}, args...)
		code, out, stderr := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var v []float64
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			var line scoreLine
			if err := json.Unmarshal([]byte(l), &line); err != nil || line.Score == nil {
				t.Fatalf("line %q: %v", l, err)
			}
			v = append(v, *line.Score)
		}
		if len(v) != 6 {
			t.Fatalf("%v: %d clips, want 6", args, len(v))
		}
		return v
	}
	mean := func(v []float64) float64 {
		s := 0.0
		for _, x := range v {
			s += x
		}
		return s / float64(len(v))
	}
	for i, s := range scores("--scorer", "oracle", "--policy", "expert") {
		if s != 1 {
			t.Errorf("oracle, planner clip %d: score %v, want 1", i, s)
		}
	}
	e, r := mean(scores("--scorer", "pixel", "--policy", "expert")), mean(scores("--scorer", "pixel", "--policy", "random"))
	if e <= r {
		t.Errorf("pixel: planner mean %.3f ≤ random %.3f", e, r)
	}
	if a := mean(scores("--scorer", "pixel", "--policy", "expert", "--theme", "abstract")); a != 0 {
		t.Errorf("pixel, abstract theme: mean %.3f, want 0", a)
	}
}

func TestBenchQuick(t *testing.T) {
	t.Parallel()
	code, out, stderr := runCLI(t, "bench", "--seconds", "0.05", "--replay-capacity", "4096", "--task", "reach")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"steps/s", "frames/s", "updates/s", "batches/s"} {
		if !strings.Contains(out, want) {
			t.Fatalf("bench table lacks %q:\n%s", want, out)
		}
	}
}

func TestViewNeedsDisplay(t *testing.T) {
	if os.Getenv("DISPLAY") != "" {
		t.Skip("a display is set")
	}
	code, _, stderr := runCLI(t, "view", "--task", "reach", "--max-frames", "2")
	if code != exitFailure || !strings.Contains(stderr, "xvfb-run") {
		t.Fatalf("exit %d: %q", code, stderr)
	}
}

func TestViewUnderXvfb(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Xvfb")
	}
	xvfb, err := exec.LookPath("xvfb-run")
	if err != nil {
		t.Skip("xvfb-run not installed (make deps installs it)")
	}
	bin := buildBinary(t)
	out, err := exec.Command(xvfb, "-a", "-n", strconv.Itoa(100+os.Getpid()%5000), bin, "view", "--task", "push", "--max-frames", "5").CombinedOutput()
	if err != nil {
		t.Fatalf("view under xvfb: %v\n%s", err, out)
	}
}

func TestTrainVLMRBPixel(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "run")
	code, stdout, stderr := runCLI(t, tiny(out, "--replay", "vlmrb", "--scorer", "pixel")...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	rows, err := rundir.ReadMetricsJSONL(filepath.Join(out, "metrics.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	scored := 0.0
	for _, r := range rows {
		scored = max(scored, r.Values["vlm/clips_scored"])
	}
	// 200 steps over 2 envs of 50-step episodes: clips every 8 steps plus tails
	if scored == 0 {
		t.Fatalf("no clip was scored: %v", rows[len(rows)-1].Values)
	}
	gifs, _ := filepath.Glob(filepath.Join(out, "videos", "*.gif"))
	if len(gifs) == 0 {
		t.Fatal("no evaluation GIF")
	}
}

// checkScoreLines checks n JSON lines with the contract's keys.
func checkScoreLines(t *testing.T, out string, n int) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != n {
		t.Fatalf("%d lines, want %d: %q", len(lines), n, out)
	}
	for i, l := range lines {
		var v map[string]any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		for _, k := range []string{"clip", "score", "latency_ms", "error"} {
			if _, ok := v[k]; !ok {
				t.Fatalf("line %d lacks %q: %s", i, k, l)
			}
		}
	}
}

func TestScoreDirSource(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// frames of a recorded folder: a red puck moving right on a grey table
	for i := range 12 {
		img := image.NewRGBA(image.Rect(0, 0, 64, 48))
		for p := 0; p < len(img.Pix); p += 4 {
			img.Pix[p], img.Pix[p+1], img.Pix[p+2], img.Pix[p+3] = 120, 120, 120, 255
		}
		for y := 20; y < 28; y++ {
			for x := 4 + 4*i; x < 12+4*i; x++ {
				img.SetRGBA(x, y, color.RGBA{220, 30, 30, 255})
			}
		}
		if err := render.WritePNG(filepath.Join(dir, fmt.Sprintf("f%03d.png", i)), img); err != nil {
			t.Fatal(err)
		}
	}
	code, out, stderr := runCLI(t, "score", "--source", "dir:"+dir, "--task", "push", "--scorer", "pixel",
		"--clips", "2", "--clip-len", "8", "--stride", "4", "--size", "64x48", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	checkScoreLines(t, out, 2)
	// 12 frames hold fewer than 5 clips of 8: asking for 5 says how many
	// there were instead of passing silently
	code, out, stderr = runCLI(t, "score", "--source", "dir:"+dir, "--task", "push", "--scorer", "pixel",
		"--clips", "5", "--clip-len", "8", "--stride", "4", "--size", "64x48", "--json")
	n := strings.Count(strings.TrimSpace(out), "\n") + 1
	if code != 0 || n >= 5 || !strings.Contains(stderr, fmt.Sprintf("ended after %d of the 5 clips asked for", n)) {
		t.Fatalf("exit %d, %d clips, stderr %q", code, n, stderr)
	}
	checkScoreLines(t, out, n)
}

func TestScoreMJPEGStream(t *testing.T) {
	if testing.Short() {
		t.Skip("starts ffmpeg")
	}
	ff, err := exec.LookPath("ffmpeg")
	if err != nil {
		t.Skip("ffmpeg not installed (make deps installs it)")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	url := "http://" + addr + "/"
	srv := exec.Command(ff, "-loglevel", "error", "-re", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=25",
		"-t", "30", "-f", "mpjpeg", "-listen", "1", url)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = srv.Process.Kill(); _ = srv.Wait() }()
	time.Sleep(500 * time.Millisecond)
	// ffmpeg may take a while to listen on a loaded machine: a generous
	// deadline for the first frame (the default is 10 s)
	code, out, stderr := runCLI(t, "score", "--source", url, "--scorer", "pixel", "--clips", "2",
		"--clip-len", "8", "--stride", "4", "--json", "--frame-timeout", "60s")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	checkScoreLines(t, out, 2)
}

// The VLM rewards from the command line: ERL-VLM with the offline oracle
// rater (schedule from a config file, rater flags on top) and a checkpoint
// that eval reads; VLM-RM against a local /v1/embeddings server with
// repeated --goal prompts; a missing server is a usage error.
func TestTrainVLMRewardsCLI(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfgPath := writeConfig(t, dir, "reward_model: {first: 100, every: 100, per_session: 30, budget: 60, frame_size: 32, cnn_size: 24, ensemble: 1, batch: 32, epochs: 1}")
	out := filepath.Join(dir, "erl")
	code, stdout, stderr := runCLI(t, tiny(out, "--config", cfgPath, "--reward", "erlvlm", "--rater", "oracle", "--label-noise", "0.2", "--rating-classes", "2")...)
	if code != 0 {
		t.Fatalf("erlvlm: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "config.yaml"))
	if err != nil || !strings.Contains(string(b), "label_noise: 0.2") || !strings.Contains(string(b), "classes: 2") {
		t.Fatalf("saved config lacks the rater flags: %v\n%s", err, b)
	}
	code, js, stderr := runCLI(t, "eval", "--checkpoint", out, "--episodes", "1", "--json")
	if code != 0 || !strings.Contains(js, `"success_rate"`) {
		t.Fatalf("eval of an erlvlm checkpoint: exit %d %s %s", code, js, stderr)
	}

	srv := embedtest.New(t, "clip")
	out = filepath.Join(dir, "vlmrm")
	code, stdout, stderr = runCLI(t, tiny(out, "--reward", "vlmrm", "--embed-base-url", srv.URL+"/v1", "--embed-model", "clip",
		"--goal", "a red gripper", "--goal", "red", "--baseline", "blue", "--alpha", "0.5")...)
	if code != 0 {
		t.Fatalf("vlmrm: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	if srv.Texts.Load() != 3 || srv.Images.Load() < 200 {
		t.Fatalf("server embedded %d texts, %d images", srv.Texts.Load(), srv.Images.Load())
	}

	code, _, stderr = runCLI(t, tiny(filepath.Join(dir, "bad"), "--reward", "vlmrm", "--goal", "red", "--baseline", "blue")...)
	if code != exitUsage || !strings.Contains(stderr, "--embed-base-url") {
		t.Fatalf("vlmrm without a server: exit %d %q", code, stderr)
	}
}

// writeConfig writes a YAML config file into dir and returns its path.
func writeConfig(t *testing.T, dir, yaml string) string {
	t.Helper()
	path := filepath.Join(dir, "config-in.yaml")
	if err := os.WriteFile(path, []byte(yaml+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
