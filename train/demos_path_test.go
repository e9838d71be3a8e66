package train

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vlmrb/vlmrb/lerobot"
	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/tasks"
)

// demoConfig is a short sparse-reward SAC run whose two demonstration
// episodes (one per env, 2×50 steps) end before learning starts.
func demoConfig(out string) rundir.Config {
	c := tinyConfig(out, "uniform")
	c.Reward, c.Steps = "sparse", 300
	c.SAC.LearningStarts = 150
	return c
}

// recordExpert writes the expert episodes a demoConfig run's demos: 2 are.
func recordExpert(t *testing.T, c rundir.Config, dir string, episodes int) {
	t.Helper()
	_, err := rundir.Record(context.Background(), dir, rundir.RecordOptions{Task: c.Task, Policy: "expert", Episodes: episodes,
		Seed: c.Seed, NumEnvs: c.NumEnvs, MaxEpisodeLen: c.MaxEpisodeLen, Reward: c.Reward})
	if err != nil {
		t.Fatal(err)
	}
}

type demoCount struct{ demo, recorded, all int }

func (d *demoCount) hook() Hook {
	return HookFuncs{Step: func(e StepEvent) error {
		d.all++
		if e.Demo {
			d.demo++
		}
		if e.Recorded {
			d.recorded++
		}
		return nil
	}}
}

// A run whose demos_path holds a recording of its own first expert
// episodes continues exactly as the run with demos 2: the same number of
// demonstration transitions, the same metrics (but the privileged
// semantic labels, which recordings do not carry) and bit-identical agent
// and replay buffer at the end.
//
// With VLM-RB and the oracle scorer (scoring inline, vlm.workers 0, so a
// run is a function of its seed) the recorded demonstrations are scored
// from their stored progress exactly as the live ones are.
func TestDemosPathReproducesBuiltIn(t *testing.T) {
	t.Parallel()
	for _, arm := range []struct {
		name string
		set  func(*rundir.Config)
	}{
		{"uniform", func(*rundir.Config) {}},
		{"vlmrb-oracle", func(c *rundir.Config) { c.Replay, c.Scorer, c.VLM.Scoring.Workers = "vlmrb", "oracle", 0 }},
	} {
		t.Run(arm.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			builtIn := demoConfig(filepath.Join(root, "builtin"))
			arm.set(&builtIn)
			builtIn.Demos = 2
			fromData := builtIn
			fromData.Out, fromData.Demos = filepath.Join(root, "dataset"), 0
			fromData.DemosPath = filepath.Join(root, "demos")
			recordExpert(t, builtIn, fromData.DemosPath, 2)
			compareDemoRuns(t, builtIn, fromData)
		})
	}
}

func compareDemoRuns(t *testing.T, builtIn, fromData rundir.Config) {
	t.Helper()

	var ca, cb demoCount
	ra, err := Run(context.Background(), valid(t, builtIn), Options{Hooks: []Hook{ca.hook()}})
	if err != nil {
		t.Fatal(err)
	}
	rb, err := Run(context.Background(), valid(t, fromData), Options{Hooks: []Hook{cb.hook()}})
	if err != nil {
		t.Fatal(err)
	}
	if ca.demo != 2*50 || cb.demo != ca.demo || cb.recorded != cb.demo || ca.recorded != 0 {
		t.Fatalf("demonstration transitions: built-in %+v, dataset %+v (want 100 each)", ca, cb)
	}
	if ca.all != cb.all || ra.Updates != rb.Updates || ra.Episodes != rb.Episodes {
		t.Fatalf("built-in %+v / %d updates, dataset %+v / %d updates", ca, ra.Updates, cb, rb.Updates)
	}
	rowsA, rowsB := readRows(t, builtIn.Out), readRows(t, fromData.Out)
	if len(rowsA) != len(rowsB) {
		t.Fatalf("%d metric rows vs %d", len(rowsA), len(rowsB))
	}
	compared := 0
	for i := range rowsA {
		for k, v := range rowsA[i].Values {
			// wall-clock timings, and the privileged labels a recording lacks
			if strings.HasPrefix(k, "time/") || strings.HasPrefix(k, "vlm/latency") || strings.HasPrefix(k, "vlm/render") ||
				strings.HasPrefix(k, "replay/semantic") {
				continue
			}
			if w := rowsB[i].Values[k]; w != v && !(v != v && w != w) {
				t.Errorf("step %d %s: built-in %v, dataset %v", rowsA[i].Step, k, v, w)
			}
			compared++
		}
	}
	if compared < 20 {
		t.Fatalf("only %d metric values compared", compared)
	}
	if fromData.Replay == "vlmrb" {
		scored := 0.0
		for _, r := range rowsB {
			scored = max(scored, r.Values["vlm/clips_scored"])
		}
		if scored == 0 {
			t.Fatal("no clip was scored")
		}
	}
	// diagnostics tell the demonstrations apart: 100 of the 300 stored transitions
	var frac float64
	for _, r := range rowsB {
		if v, ok := r.Values["replay/demo_buffer_frac"]; ok && r.Step == 300 {
			frac = v
		}
	}
	if frac != 100.0/300 {
		t.Errorf("replay/demo_buffer_frac at step 300 = %v, want 1/3", frac)
	}
	for _, f := range []string{"agent.bin", "replay.bin"} {
		a, err := os.ReadFile(filepath.Join(ra.Checkpoint, f))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(rb.Checkpoint, f))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between the built-in and the dataset demonstrations", f)
		}
	}
}

func readRows(t *testing.T, dir string) []rundir.Row {
	t.Helper()
	rows, err := rundir.ReadMetricsJSONL(filepath.Join(dir, "metrics.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 3 {
		t.Fatalf("%s: %d metric rows", dir, len(rows))
	}
	return rows
}

// oldEngineCopy copies dataset src to dst with its meta/vlmrb.json saying
// engine sim, as datasets recorded on the removed old engine do.
func oldEngineCopy(t *testing.T, src, dst string) string {
	t.Helper()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dst, "meta", "vlmrb.json")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var m rundir.RecordMeta
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m.Engine != tasks.EngineArticulated {
		t.Fatalf("%s records engine %q, want articulated", src, m.Engine)
	}
	m.Engine = tasks.EngineSim
	if b, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// Spaces that do not match the task are refused before training, with
// what differs.
func TestDemosPathMismatch(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	base := demoConfig(filepath.Join(root, "x"))
	reach := filepath.Join(root, "reach")
	recordExpert(t, base, reach, 1)

	synth := func(name string, sp lerobot.Spec) string {
		dir := filepath.Join(root, name)
		w, err := lerobot.Create(context.Background(), dir, sp)
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			f := lerobot.Frame{State: make([]float64, sp.StateDim), Action: make([]float64, sp.ActionDim)}
			if err := w.AddFrame(&f); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.EndEpisode("x"); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	wrongNames := append(tasks.ObsNames()[:0:0], tasks.ObsNames()...)
	wrongNames[3], wrongNames[4] = wrongNames[4], wrongNames[3]
	cases := []struct {
		name, path, want string
		mod              func(*rundir.Config)
	}{
		{"other task", reach, "recorded on task reach", func(c *rundir.Config) { c.Task = "push" }},
		{"other reward", reach, "holds sparse rewards", func(c *rundir.Config) { c.Reward = "dense" }},
		{"old engine", oldEngineCopy(t, reach, filepath.Join(root, "reach-sim")), "recorded on the old engine sim, which was removed; the run trains on articulated", nil},
		{"state size", synth("small", lerobot.Spec{FPS: 80, StateDim: 5, ActionDim: 4, Rewards: true}), "has 5 values", nil},
		{"action size", synth("act3", lerobot.Spec{FPS: 80, StateDim: 39, ActionDim: 3, Rewards: true}), "action has 3 values", nil},
		{"names", synth("names", lerobot.Spec{FPS: 80, StateDim: 39, ActionDim: 4, StateNames: wrongNames, Rewards: true}), "layouts differ", nil},
		{"no action", synth("noact", lerobot.Spec{FPS: 80, StateDim: 39, Rewards: true}), "needs observation.state, action", nil},
		{"not a dataset", root, "no meta/info.json", nil},
	}
	for _, tc := range cases {
		c := base
		c.Out = filepath.Join(root, "run-"+strings.ReplaceAll(tc.name, " ", "-"))
		c.DemosPath = tc.path
		if tc.mod != nil {
			tc.mod(&c)
		}
		_, err := runConfig(context.Background(), c, Options{})
		var ce *rundir.ConfigError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want a config error mentioning %q", tc.name, err, tc.want)
		}
	}
	c := base
	c.DemosPath, c.Demos = reach, 2
	if err := checkConfig(&c); err == nil || !strings.Contains(err.Error(), "use one") {
		t.Errorf("demos and demos_path together: %v", err)
	}
}

// A dataset without next.observation.state (LeRobot's usual layout) gives
// each episode's frames as transitions to the next frame; the last frame
// has no successor and is dropped, the transition before it bootstraps.
func TestLoadDemosWithoutNextState(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "ds")
	w, err := lerobot.Create(context.Background(), dir, lerobot.Spec{FPS: 80, StateDim: 39, ActionDim: 4, Rewards: true})
	if err != nil {
		t.Fatal(err)
	}
	for ep, n := range []int{4, 3} {
		for i := range n {
			f := lerobot.Frame{State: make([]float64, 39), Action: []float64{0.5, 0, 0, 2}, Reward: float64(i)}
			f.State[0] = float64(10*ep + i)
			f.Done = i == n-1
			if err := w.AddFrame(&f); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.EndEpisode("t"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	c := rundir.DefaultConfig()
	c.Task, c.DemosPath = "reach", dir
	env, err := tasks.Make("reach", tasks.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	eps, _, err := loadDemos(&c, env.Spec())
	if err != nil {
		t.Fatal(err)
	}
	if len(eps) != 2 || eps[0].len() != 3 || eps[1].len() != 2 {
		t.Fatalf("episodes %d, lengths %d, %d; want 2 with 3 and 2 transitions", len(eps), eps[0].len(), eps[1].len())
	}
	for k, e := range eps {
		for t0 := range e.len() {
			if e.next[t0][0] != e.obs[t0][0]+1 {
				t.Fatalf("episode %d step %d: next %v after %v", k, t0, e.next[t0][0], e.obs[t0][0])
			}
			if last := t0 == e.len()-1; e.trunc[t0] != last || e.term[t0] {
				t.Fatalf("episode %d step %d: terminated %v truncated %v", k, t0, e.term[t0], e.trunc[t0])
			}
		}
		if e.act[0][3] != 1 {
			t.Fatalf("action %v not clamped to the task's [−1, 1]", e.act[0])
		}
	}
}

// With the pixel scorer the recorded demonstrations are scored from the
// dataset's video of the scorer's camera (record --size at the scorer's
// 224×224): as many clips as the live demonstrations give, with scores
// that differ only by the video codec's loss.
func TestDemosPathPixelScorerReadsTheVideo(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Skip("no ffmpeg")
	}
	root := t.TempDir()
	builtIn := demoConfig(filepath.Join(root, "builtin"))
	builtIn.Replay, builtIn.Scorer, builtIn.VLM.Scoring.Workers = "vlmrb", "pixel", 0
	builtIn.Demos = 2
	fromData := builtIn
	fromData.Out, fromData.Demos, fromData.DemosPath = filepath.Join(root, "dataset"), 0, filepath.Join(root, "demos")
	_, err := rundir.Record(context.Background(), fromData.DemosPath, rundir.RecordOptions{Task: builtIn.Task, Policy: "expert", Episodes: 2,
		Seed: builtIn.Seed, NumEnvs: builtIn.NumEnvs, MaxEpisodeLen: builtIn.MaxEpisodeLen, Reward: builtIn.Reward,
		Cameras: []string{builtIn.VLM.Camera}, Width: builtIn.VLM.Width, Height: builtIn.VLM.Height, Backend: builtIn.VLM.Backend})
	if err != nil {
		t.Fatal(err)
	}
	var warnings bytes.Buffer
	for _, c := range []rundir.Config{builtIn, fromData} {
		if _, err := Run(context.Background(), valid(t, c), Options{Stderr: &warnings}); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Contains(warnings.String(), "does not score") {
		t.Fatalf("warnings: %s", warnings.String())
	}
	at := func(rows []rundir.Row, step int64, k string) float64 {
		for _, r := range rows {
			if v, ok := r.Values[k]; ok && r.Step == step {
				return v
			}
		}
		t.Fatalf("no %s at step %d", k, step)
		return 0
	}
	a, b := readRows(t, builtIn.Out), readRows(t, fromData.Out)
	// step 100: the demonstrations' clips only (2 episodes × 50 steps)
	if ca, cb := at(a, 100, "vlm/clips_scored"), at(b, 100, "vlm/clips_scored"); ca == 0 || ca != cb {
		t.Fatalf("clips scored by step 100: live %v, recorded %v", ca, cb)
	}
	const codecTol = 0.05 // mean pixel score change from AV1/H.264 compression of the frames
	if ma, mb := at(a, 100, "vlm/mean_score"), at(b, 100, "vlm/mean_score"); math.Abs(ma-mb) > codecTol {
		t.Fatalf("mean score of the demonstration clips: live %v, recorded %v", ma, mb)
	}
}
