package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vlmrb/vlmrb/lerobot"
	"github.com/vlmrb/vlmrb/rundir"
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
// rounding) and success are eval's. On sim the same episodes return
// something else, so the engine is the one that ran; the dataset's
// meta/vlmrb.json names it.
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
	for _, engine := range []string{"articulated", "sim"} {
		ds := filepath.Join(dir, engine)
		code, _, errOut := runCLI(t, "record", "--task", "push", "--engine", engine, "--policy", "expert", "--episodes", episodes,
			"--seed", seed, "--num-envs", "1", "--reward", "dense", "--max-episode-len", steps, "--cameras", "", "--lerobot", ds)
		if code != 0 {
			t.Fatalf("record --engine %s: exit %d: %s", engine, code, errOut)
		}
		r, s, bound, meta := recordedEpisodes(t, ds)
		rets[engine] = r
		wantMeta := engine
		if meta.Engine != wantMeta || meta.Task != "push" {
			t.Errorf("record --engine %s: meta/vlmrb.json task %q engine %q", engine, meta.Task, meta.Engine)
		}
		if engine != "articulated" {
			continue
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
				t.Errorf("episode %d: the expert did not succeed on the articulated engine", i)
			}
		}
	}
	for i := range rets["sim"] {
		if rets["sim"][i] == rets["articulated"][i] {
			t.Errorf("episode %d: sim and articulated recordings return the same %.9g: the engine did not change", i, rets["sim"][i])
		}
	}
}

// score --source sim:TASK --engine articulated scores clips of the
// articulated engine's episodes: the oracle's scores (privileged progress)
// differ from sim's on the same seed, and an engine on a camera source is
// a usage error.
func TestScoreEngine(t *testing.T) {
	t.Parallel()
	scores := map[string]string{}
	for _, engine := range []string{"sim", "articulated"} {
		code, out, errOut := runCLI(t, "score", "--source", "sim:push", "--engine", engine, "--scorer", "oracle", "--clips", "3", "--json")
		if code != 0 {
			t.Fatalf("score --engine %s: exit %d: %s", engine, code, errOut)
		}
		if n := strings.Count(out, `"score":`); n != 3 || strings.Contains(out, `"score":null`) {
			t.Fatalf("score --engine %s: want 3 scored clips, got %s", engine, out)
		}
		scores[engine] = out
	}
	if scores["sim"] == scores["articulated"] {
		t.Errorf("score on sim and on articulated printed the same clips: %s", scores["sim"])
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
		{"record unknown", []string{"record", "--task", "push", "--engine", "mujoco", "--lerobot", filepath.Join(dir, "ds3")}, `engine "mujoco" is not one of sim, articulated`},
		{"score unknown", []string{"score", "--source", "sim:push", "--engine", "mujoco"}, `engine "mujoco" is not one of sim, articulated`},
		{"view unknown", []string{"view", "--task", "push", "--engine", "mujoco"}, `engine "mujoco" is not one of sim, articulated`},
		{"record camera", []string{"record", "--hw", dir, "--engine", "articulated", "--lerobot", filepath.Join(dir, "ds4")}, "--hw records a camera"},
	} {
		code, _, errOut := runCLI(t, c.args...)
		if code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: exit %d, %q; want exit %d with %q", c.name, code, errOut, exitUsage, c.want)
		}
	}
	for _, ds := range []string{"ds1", "ds2", "ds3", "ds4"} {
		if _, err := os.Stat(filepath.Join(dir, ds)); !os.IsNotExist(err) {
			t.Errorf("a refused record left %s: %v", ds, err)
		}
	}
}

// record --policy RUN_DIR records on the run's engine unless --engine
// names another: the dataset's meta/vlmrb.json says which.
func TestRecordRunPolicyTakesRunsEngine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	code, out, errOut := runCLI(t, "train", "--task", "push", "--set", "engine=articulated", "--steps", "60", "--num-envs", "1",
		"--max-episode-len", "20", "--learning-starts", "40", "--hidden", "8,8", "--batch-size", "16", "--eval-episodes", "1",
		"--out", run, "--quiet")
	if code != 0 {
		t.Fatalf("train: exit %d: %s\n%s", code, errOut, out)
	}
	for _, c := range []struct{ flag, want string }{{"", "articulated"}, {"sim", "sim"}} {
		ds := filepath.Join(dir, "ds-"+c.want)
		args := []string{"record", "--policy", run, "--episodes", "1", "--cameras", "", "--lerobot", ds}
		if c.flag != "" {
			args = append(args, "--engine", c.flag)
		}
		if code, _, errOut := runCLI(t, args...); code != 0 {
			t.Fatalf("record %v: exit %d: %s", args, code, errOut)
		}
		_, _, _, meta := recordedEpisodes(t, ds)
		if meta.Engine != c.want || meta.Task != "push" {
			t.Errorf("record --engine %q of a run on articulated: meta task %q engine %q, want push %q", c.flag, meta.Task, meta.Engine, c.want)
		}
	}
}
