package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/vlmrb/vlmrb/lerobot"
	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/tasks"
	"github.com/vlmrb/vlmrb/tasks/grid"
)

// recordedEpisodes reads a recorded dataset's per-episode returns (the sum
// of next.reward) and successes (next.success at any frame, MetaWorld's
// rule as eval's) and its meta/vlmrb.json.
func recordedEpisodes(t *testing.T, dir string) (returns []float64, successes []bool, bound []float64, meta rundir.RecordMeta) {
	t.Helper()
	d, err := lerobot.Open(dir, lerobot.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	returns, successes, bound = make([]float64, len(d.Episodes)), make([]bool, len(d.Episodes)), make([]float64, len(d.Episodes))
	if err := d.ReadFrames(func(f *lerobot.FrameRow) error {
		r := float64(f.Reward)
		returns[f.Episode] += r
		// next.reward is float32: each stored reward is within half an
		// ulp of float32 (2^-24 relative) of the env's float64 reward
		bound[f.Episode] += math.Abs(r) * 0x1p-24
		successes[f.Episode] = successes[f.Episode] || f.Success
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	b, ok, err := d.Meta("vlmrb.json")
	if err != nil || !ok {
		t.Fatalf("meta/vlmrb.json: %v (present %v)", err, ok)
	}
	if err := json.Unmarshal(b, &meta); err != nil {
		t.Fatal(err)
	}
	return returns, successes, bound, meta
}

// record --engine articulated records the episodes eval --engine
// articulated evaluates: the same seeds (one env, eval's episode seeds),
// the same expert, so each episode's return (within next.reward's float32
// rounding) and success are eval's. Without --engine it records the same
// episodes, on the one engine, and the dataset's meta/vlmrb.json names it
// either way; --engine sim, the removed old engine, is refused.
func TestRecordEngineMatchesEval(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const seed, episodes, steps = "5", "2", "150"
	var ev rundir.EvalResult
	code, out, errOut := runCLI(t, "eval", "--policy", "expert", "--task", "push", "--engine", "articulated", "--episodes", episodes,
		"--seed", seed, "--reward", "dense", "--max-episode-len", steps, "--json")
	if code != 0 {
		t.Fatalf("eval: exit %d: %s", code, errOut)
	}
	if err := json.Unmarshal([]byte(out), &ev); err != nil {
		t.Fatalf("eval --json: %v: %s", err, out)
	}
	rets := map[string][]float64{}
	for _, engine := range []string{"articulated", ""} {
		ds := filepath.Join(dir, "ds-"+engine)
		args := []string{"record", "--task", "push", "--policy", "expert", "--episodes", episodes,
			"--seed", seed, "--num-envs", "1", "--reward", "dense", "--max-episode-len", steps, "--cameras", "", "--lerobot", ds}
		if engine != "" {
			args = append(args, "--engine", engine)
		}
		code, _, errOut := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("record --engine %q: exit %d: %s", engine, code, errOut)
		}
		r, s, bound, meta := recordedEpisodes(t, ds)
		rets[engine] = r
		if meta.Engine != "articulated" || meta.Task != "push" {
			t.Errorf("record --engine %q: meta/vlmrb.json task %q engine %q, want push articulated", engine, meta.Task, meta.Engine)
		}
		if len(r) != len(ev.Returns) {
			t.Fatalf("recorded %d episodes, eval %d", len(r), len(ev.Returns))
		}
		for i := range r {
			t.Logf("episode %d: recorded return %.6f success %v; eval %.6f %v", i, r[i], s[i], ev.Returns[i], ev.Successes[i])
			if math.Abs(r[i]-ev.Returns[i]) > bound[i] || s[i] != ev.Successes[i] {
				t.Errorf("episode %d: recorded return %.9g success %v, eval --engine articulated %.9g %v (float32 bound %.2g)",
					i, r[i], s[i], ev.Returns[i], ev.Successes[i], bound[i])
			}
			if !s[i] {
				t.Errorf("episode %d: the expert did not succeed", i)
			}
		}
	}
	for i := range rets[""] {
		if rets[""][i] != rets["articulated"][i] {
			t.Errorf("episode %d: recorded without --engine %.9g, with --engine articulated %.9g", i, rets[""][i], rets["articulated"][i])
		}
	}
}

var latency = regexp.MustCompile(`"latency_ms":[0-9.e-]+,`)

// score --source sim:TASK scores clips of the articulated engine's
// episodes with or without --engine articulated (the same clips), and an
// engine on a camera source is a usage error.
func TestScoreEngine(t *testing.T) {
	t.Parallel()
	scores := map[string]string{}
	for _, engine := range []string{"", "articulated"} {
		args := []string{"score", "--source", "sim:push", "--scorer", "oracle", "--clips", "3", "--json"}
		if engine != "" {
			args = append(args, "--engine", engine)
		}
		code, out, errOut := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("score --engine %q: exit %d: %s", engine, code, errOut)
		}
		if n := strings.Count(out, `"score":`); n != 3 || strings.Contains(out, `"score":null`) {
			t.Fatalf("score --engine %q: want 3 scored clips, got %s", engine, out)
		}
		scores[engine] = latency.ReplaceAllString(out, "")
	}
	if scores[""] != scores["articulated"] {
		t.Errorf("score without --engine and with --engine articulated differ:\n%s\n%s", scores[""], scores["articulated"])
	}
	code, _, errOut := runCLI(t, "score", "--source", "dir:"+t.TempDir(), "--engine", "articulated")
	if code != exitUsage || !strings.Contains(errOut, "sim:TASK") {
		t.Errorf("--engine on a folder source: exit %d: %s", code, errOut)
	}
}

// Every front end refuses an engine on a task that has its own (a grid
// task, a task over an imported arm) with train's words, and an unknown
// engine by listing the engines; none of them starts work first.
func TestEngineRefusedAsTrainRefusesIt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	gridTask := grid.Names()[0]
	want := rundir.CheckEngine(gridTask, "articulated")
	if want == nil {
		t.Fatalf("CheckEngine(%s, articulated) passed", gridTask)
	}
	_, _, trainErr := runCLI(t, "train", "--task", gridTask, "--set", "engine=articulated", "--out", filepath.Join(dir, "run"))
	if !strings.Contains(trainErr, want.Error()) {
		t.Fatalf("train's refusal %q does not hold CheckEngine's %q", trainErr, want)
	}
	armWant := rundir.CheckEngine("arm-reach", "articulated")
	removed := tasks.ErrEngineRemoved.Error()
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"record grid", []string{"record", "--task", gridTask, "--engine", "articulated", "--lerobot", filepath.Join(dir, "ds1")}, want.Error()},
		{"record arm", []string{"record", "--model", filepath.Join(dir, "arm.xml"), "--task", "reach", "--engine", "articulated", "--lerobot", filepath.Join(dir, "ds2")}, armWant.Error()},
		{"eval grid", []string{"eval", "--policy", "expert", "--task", gridTask, "--engine", "articulated"}, want.Error()},
		{"eval arm", []string{"eval", "--policy", "expert", "--model", filepath.Join(dir, "arm.xml"), "--engine", "articulated"}, armWant.Error()},
		{"render grid", []string{"render", "--task", gridTask, "--engine", "articulated", "--out", filepath.Join(dir, "g.png")}, want.Error()},
		{"score grid", []string{"score", "--source", "sim:" + gridTask, "--engine", "articulated"}, want.Error()},
		{"view grid", []string{"view", "--task", gridTask, "--engine", "articulated"}, want.Error()},
		{"record unknown", []string{"record", "--task", "push", "--engine", "mujoco", "--lerobot", filepath.Join(dir, "ds3")}, `engine "mujoco" is not one of articulated`},
		{"score unknown", []string{"score", "--source", "sim:push", "--engine", "mujoco"}, `engine "mujoco" is not one of articulated`},
		{"view unknown", []string{"view", "--task", "push", "--engine", "mujoco"}, `engine "mujoco" is not one of articulated`},
		{"train sim", []string{"train", "--task", "push", "--set", "engine=sim", "--out", filepath.Join(dir, "run-sim")}, removed},
		{"record sim", []string{"record", "--task", "push", "--engine", "sim", "--lerobot", filepath.Join(dir, "ds5")}, removed},
		{"eval sim", []string{"eval", "--policy", "expert", "--task", "push", "--engine", "sim"}, removed},
		{"render sim", []string{"render", "--task", "push", "--engine", "sim", "--out", filepath.Join(dir, "s.png")}, removed},
		{"score sim", []string{"score", "--source", "sim:push", "--engine", "sim"}, removed},
		{"view sim", []string{"view", "--task", "push", "--engine", "sim"}, removed},
		{"record camera", []string{"record", "--hw", dir, "--engine", "articulated", "--lerobot", filepath.Join(dir, "ds4")}, "--hw records a camera"},
	} {
		code, _, errOut := runCLI(t, c.args...)
		if code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: exit %d, %q; want exit %d with %q", c.name, code, errOut, exitUsage, c.want)
		}
	}
	for _, ds := range []string{"ds1", "ds2", "ds3", "ds4", "ds5", "run-sim", "s.png"} {
		if _, err := os.Stat(filepath.Join(dir, ds)); !os.IsNotExist(err) {
			t.Errorf("a refused record left %s: %v", ds, err)
		}
	}
}

// A new run records engine articulated, and record --policy RUN_DIR
// records on it. A run of the removed old engine (its config.yaml says
// engine sim, or "" as such runs recorded it) is refused by resume, and by
// eval, record and view unless --engine articulated asks for the transfer,
// which they then announce.
func TestOldEngineRuns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	code, out, errOut := runCLI(t, "train", "--task", "push", "--steps", "60", "--num-envs", "1",
		"--max-episode-len", "20", "--learning-starts", "40", "--hidden", "8,8", "--batch-size", "16", "--eval-episodes", "1",
		"--checkpoint-every", "40", "--out", run, "--quiet")
	if code != 0 {
		t.Fatalf("train: exit %d: %s\n%s", code, errOut, out)
	}
	cfg, err := os.ReadFile(filepath.Join(run, "config.yaml"))
	if err != nil || !strings.Contains(string(cfg), "engine: articulated") {
		t.Fatalf("a new run's config.yaml does not record engine articulated (%v):\n%s", err, cfg)
	}
	ds := filepath.Join(dir, "ds-new")
	if code, _, errOut := runCLI(t, "record", "--policy", run, "--episodes", "1", "--cameras", "", "--lerobot", ds); code != 0 {
		t.Fatalf("record --policy of a new run: exit %d: %s", code, errOut)
	}
	if _, _, _, meta := recordedEpisodes(t, ds); meta.Engine != "articulated" {
		t.Errorf("record --policy of a new run: meta engine %q", meta.Engine)
	}
	for _, old := range []string{"engine: sim", `engine: ""`} {
		// make it a run of the old engine: its config.yaml (the
		// checkpoints keep theirs, which their manifests hash)
		setEngine(t, run, "engine: articulated", old)
		for _, c := range []struct {
			name string
			args []string
		}{
			{"eval", []string{"eval", "--checkpoint", run, "--episodes", "1"}},
			{"record", []string{"record", "--policy", run, "--episodes", "1", "--cameras", "", "--lerobot", filepath.Join(dir, "ds-old")}},
		} {
			code, _, errOut := runCLI(t, c.args...)
			if code != exitUsage || !strings.Contains(errOut, "old engine sim, which was removed") || !strings.Contains(errOut, "--engine articulated") {
				t.Errorf("%s, %s: exit %d, %q; want a refusal naming the old engine and --engine articulated", old, c.name, code, errOut)
			}
			args := append(c.args, "--engine", "articulated")
			if c.name == "record" {
				args[len(args)-3] = filepath.Join(dir, "ds-transfer-"+strings.Fields(old)[1])
			}
			code, _, errOut = runCLI(t, args...)
			if code != 0 || !strings.Contains(errOut, rundir.TransferNote) {
				t.Errorf("%s, %s --engine articulated: exit %d, %q; want it run and said to be a transfer", old, c.name, code, errOut)
			}
		}
		// view refuses before it opens a window; --engine sim is refused
		// as removed, without announcing a transfer it will not run
		code, _, errOut := runCLI(t, "view", "--checkpoint", run)
		if code != exitUsage || !strings.Contains(errOut, "old engine sim, which was removed") || !strings.Contains(errOut, "--engine articulated") {
			t.Errorf("%s, view: exit %d, %q; want a refusal naming the old engine and --engine articulated", old, code, errOut)
		}
		for _, cmd := range [][]string{{"view", "--checkpoint", run}, {"eval", "--checkpoint", run, "--episodes", "1"}} {
			code, _, errOut = runCLI(t, append(cmd, "--engine", "sim")...)
			if code != exitUsage || !strings.Contains(errOut, tasks.ErrEngineRemoved.Error()) || strings.Contains(errOut, rundir.TransferNote) {
				t.Errorf("%s, %s --engine sim: exit %d, %q; want the removal refused, no transfer announced", old, cmd[0], code, errOut)
			}
		}
		code, _, errOut = runCLI(t, "train", "--resume", run, "--steps", "100", "--quiet")
		if code != exitUsage || !strings.Contains(errOut, "old engine") || !strings.Contains(errOut, "removed") {
			t.Errorf("%s, resume: exit %d, %q; want a refusal naming the old engine", old, code, errOut)
		}
		if _, err := os.Stat(filepath.Join(dir, "ds-old")); !os.IsNotExist(err) {
			t.Errorf("a refused record left its dataset: %v", err)
		}
		setEngine(t, run, old, "engine: articulated") // back for the next round
	}
}

// setEngine replaces the line from with to in run's config.yaml.
func setEngine(t *testing.T, run, from, to string) {
	t.Helper()
	p := filepath.Join(run, "config.yaml")
	b, err := os.ReadFile(p)
	if err != nil || !strings.Contains(string(b), from) {
		t.Fatalf("%s: %v, or no %q in it", p, err, from)
	}
	if err := os.WriteFile(p, []byte(strings.Replace(string(b), from, to, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// train --print-config prints what a new run's config.yaml would hold:
// engine articulated on a tabletop task (an empty engine there marks a
// run of the removed old engine), nothing on a task with its own engine.
func TestPrintConfigEngine(t *testing.T) {
	t.Parallel()
	if c := printConfig(t, "--task", "push"); c.Engine != tasks.EngineArticulated {
		t.Errorf("push: engine %q, want %q as a new run records it", c.Engine, tasks.EngineArticulated)
	}
	if c := printConfig(t, "--task", grid.Names()[0]); c.Engine != "" {
		t.Errorf("%s: engine %q, want none (the grid has its own engine)", grid.Names()[0], c.Engine)
	}
}
