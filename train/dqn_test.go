package train

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/vlmrb/vlmrb/rundir"
)

// tinyGridConfig is a DoorKey-5×5 DQN run of a few seconds.
func tinyGridConfig(out, replay, scorer string) rundir.Config {
	c := rundir.DefaultConfig()
	c.Task, c.Replay, c.Scorer, c.Out = "doorkey-5x5", replay, scorer, out
	c.Steps, c.NumEnvs = 1200, 2
	c.DQN.LearningStarts, c.DQN.BatchSize, c.DQN.Hidden, c.DQN.TargetFrequency = 400, 16, []int{16}, 20
	c.VLM.Clip.Length, c.VLM.Clip.Stride, c.VLM.Scoring.Workers = 8, 4, 1
	c.Buffer.LambdaWarmup = 400
	c.Eval = rundir.EvalConfig{Every: 600, Episodes: 2, GIF: true, GIFSize: 40}
	c.Log.Every, c.Ckpt.Every = 400, 400
	return c
}

func TestDQNRunsOnEveryReplay(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ replay, scorer string }{
		{"uniform", "pixel"}, {"per", "pixel"}, {"relo", "pixel"}, {"vlmrb", "oracle"}, {"vlmrb", "pixel"}, {"aer", "pixel"}, {"ero", "pixel"},
	} {
		t.Run(tc.replay+"-"+tc.scorer, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "run")
			c := tinyGridConfig(out, tc.replay, tc.scorer)
			if c.ResolvedAlgo() != "dqn" {
				t.Fatalf("auto algo for %s is %s, want dqn", c.Task, c.ResolvedAlgo())
			}
			res, err := Run(context.Background(), valid(t, c), Options{})
			if err != nil {
				t.Fatal(err)
			}
			// updates: one per train_freq (4) env steps after learning_starts
			if res.Step != 1200 || res.Updates != (1200-400)/4 || res.FinalEval == nil || res.FinalEval.Episodes != 2 || res.Checkpoint == "" {
				t.Fatalf("result %+v", res)
			}
			if len(res.GIFs) == 0 {
				t.Fatal("no evaluation GIF")
			}
			if _, err := os.Stat(res.GIFs[0]); err != nil {
				t.Fatal(err)
			}
			rows, err := rundir.ReadMetricsJSONL(filepath.Join(out, "metrics.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			keys := map[string]bool{}
			for _, r := range rows {
				for k := range r.Values {
					keys[k] = true
				}
			}
			want := []string{"losses/td_loss", "rollout/exploration", "eval/success_rate", "time/fps"}
			if tc.replay == "vlmrb" {
				want = append(want, "vlm/clips_scored", "vlm/scored_fraction")
			}
			for _, k := range want {
				if !keys[k] {
					t.Errorf("metrics lack %s", k)
				}
			}
			if tc.replay == "vlmrb" {
				scored := 0.0
				for _, r := range rows {
					scored = max(scored, r.Values["vlm/clips_scored"])
				}
				if scored == 0 {
					t.Error("no clip was scored")
				}
			}
		})
	}
}

func TestDQNResume(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "run")
	c := tinyGridConfig(out, "per", "pixel")
	c.Eval.GIF = false
	res, err := Run(context.Background(), valid(t, c), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), valid(t, c), Options{}); !errors.As(err, new(*rundir.ConfigError)) {
		t.Fatalf("second run into %s: %v", out, err)
	}
	c.Steps = 1600
	res2, err := Run(context.Background(), valid(t, c), Options{Resume: true})
	if err != nil {
		t.Fatal(err)
	}
	if !res2.Resumed || res2.ResumedFrom != 1200 || res2.Step != 1600 || res2.Updates != (1600-400)/4 || res.Updates != (1200-400)/4 {
		t.Fatalf("resumed result %+v after %+v", res2, res)
	}
}

func TestDQNConfigChecks(t *testing.T) {
	t.Parallel()
	c := tinyGridConfig(filepath.Join(t.TempDir(), "run"), "uniform", "pixel")
	c.Algo = "sac"
	if err := checkConfig(&c); err == nil {
		t.Error("sac accepted for a discrete task")
	}
	c.Algo, c.Task = "dqn", "reach"
	if err := checkConfig(&c); err == nil {
		t.Error("dqn accepted for a continuous task")
	}
	c.Task, c.Grid.View = "doorkey-5x5", "sideways"
	if err := checkConfig(&c); err == nil {
		t.Error("unknown grid view accepted")
	}
	c.Grid.View, c.DQN.EpsFraction = "full", 1.5
	if err := checkConfig(&c); err == nil {
		t.Error("eps_fraction 1.5 accepted")
	}
	c.DQN.EpsFraction, c.Buffer.ShareNextObs = 0.4, true
	if err := checkConfig(&c); err == nil {
		t.Error("share_next_obs accepted with 3-step returns")
	}
	d := rundir.DefaultConfig()
	if d.ResolvedAlgo() != "sac" {
		t.Errorf("default task resolves to %s", d.ResolvedAlgo())
	}
}

func TestSACWithAERAndERO(t *testing.T) {
	t.Parallel()
	for _, rp := range []string{"aer", "ero"} {
		c := tinyConfig(filepath.Join(t.TempDir(), rp), rp)
		c.Eval.Every = 100 // two evaluations: ERO gets one replay reward
		res, err := Run(context.Background(), valid(t, c), Options{})
		if err != nil {
			t.Fatalf("%s: %v", rp, err)
		}
		if res.Updates == 0 || res.FinalEval == nil {
			t.Fatalf("%s: result %+v", rp, res)
		}
	}
}

// TestEROLearnsFromTrainingEpisodes: ERO's replay reward is the change of
// the return from one training episode to the next (Zha et al. 2019), so
// its policy is updated at episode ends, not at evaluations, and the
// planner's demonstration episodes give it none. With two evaluations the
// evaluation-driven scheme could update it once.
func TestEROLearnsFromTrainingEpisodes(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "run")
	c := tinyGridConfig(out, "ero", "pixel")
	c.Steps, c.Demos = 4000, 2
	c.Eval.Every, c.Eval.GIF = 2000, false
	c.Log.Every = 4000
	if _, err := Run(context.Background(), valid(t, c), Options{}); err != nil {
		t.Fatal(err)
	}
	rows, err := rundir.ReadMetricsJSONL(filepath.Join(out, "metrics.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var updates, episodes, keep float64
	for _, r := range rows {
		if v, ok := r.Values["replay/ero_updates"]; ok {
			updates, episodes, keep = v, r.Values["time/episodes"], r.Values["replay/ero_keep_mean"]
		}
	}
	// every finished training episode after the first gives an update once
	// there are decisions (after learning_starts): more than the 1 that
	// two evaluations allowed, at most one per non-demonstration episode
	t.Logf("%g replay-policy updates over %g episodes (2 demonstrations), mean keep probability %.3f", updates, episodes, keep)
	if updates < 3 || updates > episodes-float64(c.Demos)-1 {
		t.Fatalf("%g replay-policy updates over %g episodes with %d demonstrations", updates, episodes, c.Demos)
	}
	if !(keep > 0 && keep < 1) {
		t.Fatalf("mean keep probability %g", keep)
	}
}
