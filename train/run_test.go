package train

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vlmrb/vlmrb/rundir"
)

// tinyConfig is a budget that runs in about a second, even under -race.
func tinyConfig(out, replay string) rundir.Config {
	c := rundir.DefaultConfig()
	c.Task, c.Replay, c.Scorer, c.Out = "reach", replay, "oracle", out
	c.Steps, c.NumEnvs, c.MaxEpisodeLen = 200, 2, 50
	c.SAC.LearningStarts, c.SAC.BatchSize, c.SAC.Hidden = 100, 16, []int{8, 8}
	c.Eval = rundir.EvalConfig{Every: 0, Episodes: 1, GIF: false}
	c.Log.Every, c.Ckpt.Every = 100, 100
	return c
}

func TestRunThenResumeContinues(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "run")
	c := tinyConfig(out, "vlmrb")
	res, err := Run(context.Background(), valid(t, c), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Step != 200 || res.Updates == 0 || res.FinalEval == nil || res.Checkpoint == "" {
		t.Fatalf("result %+v", res)
	}
	// the run directory is not reused by accident
	if _, err := Run(context.Background(), valid(t, c), Options{}); !errors.As(err, new(*rundir.ConfigError)) {
		t.Fatalf("second run into %s: %v", out, err)
	}
	c.Steps = 300
	res2, err := Run(context.Background(), valid(t, c), Options{Resume: true})
	if err != nil {
		t.Fatal(err)
	}
	if !res2.Resumed || res2.ResumedFrom != 200 || res2.Step != 300 || res2.Updates <= res.Updates {
		t.Fatalf("resumed result %+v after %+v", res2, res)
	}
	rows, err := rundir.ReadMetricsJSONL(filepath.Join(out, "metrics.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	last := int64(0)
	for _, r := range rows {
		if r.Step < last {
			t.Fatalf("metrics go back from %d to %d", last, r.Step)
		}
		last = r.Step
	}
	if last != 300 {
		t.Fatalf("last row at %d", last)
	}
}

func TestRunCancelledCheckpoints(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "run")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Run(ctx, valid(t, tinyConfig(out, "per")), Options{})
	if !errors.Is(err, context.Canceled) || res == nil || !res.Interrupted {
		t.Fatalf("err %v res %+v", err, res)
	}
	if _, m, err := rundir.LatestCheckpoint(out); err != nil || m.Step != 0 {
		t.Fatalf("checkpoint after cancel: %+v %v", m, err)
	}
}

func TestRunUnknownTaskIsConfigError(t *testing.T) {
	t.Parallel()
	c := tinyConfig(filepath.Join(t.TempDir(), "run"), "uniform")
	c.Task = "juggle"
	_, err := runConfig(context.Background(), c, Options{})
	var ce *rundir.ConfigError
	if !errors.As(err, &ce) {
		t.Fatalf("err %v, want *ConfigError", err)
	}
}

// TestRunDeterministic: without asynchronous scoring a run is a function of
// its config and seed — the same agent bytes come out twice.
func TestRunDeterministic(t *testing.T) {
	t.Parallel()
	var sums [2]string
	for i := range sums {
		out := filepath.Join(t.TempDir(), "run")
		res, err := Run(context.Background(), valid(t, tinyConfig(out, "per")), Options{})
		if err != nil {
			t.Fatal(err)
		}
		m, err := rundir.VerifyCheckpoint(res.Checkpoint)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range m.Files {
			if f.Name == "agent.bin" {
				sums[i] = f.SHA256
			}
		}
	}
	if sums[0] == "" || sums[0] != sums[1] {
		t.Fatalf("agent checkpoints differ between identical runs: %v", sums)
	}
}

// With each observation stored once the loop trains as usual: every
// sampler finds sampleable transitions and the run completes and resumes.
func TestRunShareNextObs(t *testing.T) {
	t.Parallel()
	for _, replay := range []string{"uniform", "per", "vlmrb"} {
		out := filepath.Join(t.TempDir(), "run")
		c := tinyConfig(out, replay)
		c.Buffer.ShareNextObs = true
		res, err := Run(context.Background(), valid(t, c), Options{})
		if err != nil {
			t.Fatalf("%s: %v", replay, err)
		}
		if res.Step != 200 || res.Updates == 0 {
			t.Fatalf("%s: result %+v", replay, res)
		}
		c.Steps = 300
		if res, err = Run(context.Background(), valid(t, c), Options{Resume: true}); err != nil || res.Step != 300 {
			t.Fatalf("%s resume: %+v %v", replay, res, err)
		}
	}
}

// A buffer larger than the run's steps is cut to the steps (a run never
// stores more transitions than it takes), and the console says the value
// is derived rather than leaving the rewrite hidden; config.yaml keeps it.
func TestDerivedCapacityIsSaid(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "run")
	c := tinyConfig(out, "uniform")
	c.Buffer.Capacity = 5000
	var console strings.Builder
	if _, err := Run(context.Background(), valid(t, c), Options{Stdout: &console}); err != nil {
		t.Fatal(err)
	}
	want := "buffer.capacity 200 (derived from steps 200: the run stores no more transitions; configured 5000)"
	if !strings.Contains(console.String(), want+"\n") {
		t.Errorf("console lacks %q:\n%s", want, console.String())
	}
	var saved rundir.Config
	if err := rundir.LoadConfigFile(filepath.Join(out, "config.yaml"), &saved); err != nil || saved.Buffer.Capacity != 200 {
		t.Errorf("config.yaml capacity %d (%v), want the derived 200", saved.Buffer.Capacity, err)
	}
	// a capacity the run can fill is taken as configured, silently
	c.Out, c.Buffer.Capacity = filepath.Join(t.TempDir(), "run"), 150
	console.Reset()
	if _, err := Run(context.Background(), valid(t, c), Options{Stdout: &console}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(console.String(), "derived") {
		t.Errorf("capacity 150 of a 200-step run reported as derived:\n%s", console.String())
	}
}
