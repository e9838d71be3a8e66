package train

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vlmrb/vlmrb/internal/embedtest"
	"github.com/vlmrb/vlmrb/replay"
	"github.com/vlmrb/vlmrb/rundir"
)

func lastRow(t *testing.T, out string) map[string]float64 {
	t.Helper()
	rows, err := rundir.ReadMetricsJSONL(filepath.Join(out, "metrics.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	v := map[string]float64{}
	for _, r := range rows {
		for k, x := range r.Values {
			v[k] = x
		}
	}
	return v
}

// ERL-VLM through the training loop: no SAC update before the first
// reward fit, sessions exactly on the schedule until the budget is spent,
// the whole buffer relabelled at each, and a resume that restores the
// learner instead of re-running its sessions.
func TestRunERLVLM(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "run")
	c := tinyConfig(out, "uniform")
	c.Task, c.Reward, c.Steps = "drawer-open", "erlvlm", 600
	c.RM.FrameSize, c.RM.CNNSize, c.RM.Ensemble, c.RM.Batch, c.RM.Epochs = 32, 24, 2, 32, 2
	c.RM.First, c.RM.Every, c.RM.PerSession, c.RM.Budget, c.RM.PerEpisode = 200, 200, 40, 100, 10
	c.RM.LabelNoise = 0.2
	c.Log.Every, c.Ckpt.Every = 100, 0
	// without pre-training no update runs before the first fit (step 200);
	// from there one per env step, plus the 100 catch-up updates
	none := c
	none.Out, none.RM.Pretrain = out+"-none", "none"
	res, err := Run(context.Background(), valid(t, none), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := c.Steps - 200 + int64(c.NumEnvs) + 100; res.Updates != want {
		t.Fatalf("pretrain none: %d SAC updates, want %d (none before the first reward fit at step 200)", res.Updates, want)
	}
	// PEBBLE's default: state-entropy updates from learning_starts, then
	// 100 catch-up updates at the first fit
	res, err = Run(context.Background(), valid(t, c), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := c.Steps - c.SAC.LearningStarts + int64(c.NumEnvs) + 100; res.Updates != want {
		t.Fatalf("pretrain entropy: %d SAC updates, want %d", res.Updates, want)
	}
	v := lastRow(t, out)
	// sessions at 200, 400 (40 each) and 600 (the last 20 of the budget)
	if v["reward/queries"] != 100 || v["reward/rated"] != 100 || v["reward/failed"] != 0 || v["reward/fits"] != 3 {
		t.Fatalf("reward metrics %v", v)
	}
	if v["reward/relabelled"] != float64(c.Steps) {
		t.Fatalf("last session relabelled %v slots, buffer holds %d", v["reward/relabelled"], c.Steps)
	}
	if rho, ok := v["eval/reward_expert_spearman"]; !ok || !(rho >= -1 && rho <= 1) {
		t.Fatalf("no learned-reward diagnostic on the expert episode: %v", v)
	}
	if _, err := os.Stat(filepath.Join(res.Checkpoint, "reward.bin")); err != nil {
		t.Fatalf("checkpoint without the reward learner: %v", err)
	}

	c.Steps = 700
	res2, err := Run(context.Background(), valid(t, c), Options{Resume: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := res.Updates + 100; res2.Updates != want {
		t.Fatalf("resumed run made %d updates in total, want %d", res2.Updates, want)
	}
	v = lastRow(t, out)
	if v["reward/queries"] != 100 || v["reward/fits"] != 3 {
		t.Fatalf("resume re-ran reward sessions: %v", v)
	}
}

// VLM-RM through the training loop against a local /v1/embeddings server:
// the prompts are embedded once, every transition's s_{t+1} exactly once
// (the last partial chunk at the final checkpoint), and a resume keeps
// going from the saved rewards.
func TestRunVLMRM(t *testing.T) {
	t.Parallel()
	srv := embedtest.New(t, "clip")
	out := filepath.Join(t.TempDir(), "run")
	c := tinyConfig(out, "uniform")
	c.Reward, c.Steps = "vlmrm", 300
	c.RM.FrameSize, c.RM.EmbedBatch = 16, 64
	c.RM.EmbedBaseURL, c.RM.EmbedModel = srv.URL+"/v1", "clip"
	c.RM.Goal, c.RM.Baseline, c.RM.Alpha = []string{"a red gripper", "red"}, []string{"blue"}, 0.5
	c.Ckpt.Every = 0
	res, err := Run(context.Background(), valid(t, c), Options{})
	if err != nil {
		t.Fatal(err)
	}
	// plus every 5th frame and the last of the ≤ 50-step expert episode
	// at the final evaluation
	if extra := srv.Images.Load() - c.Steps; srv.Texts.Load() != 3 || extra < 1 || extra > 11 {
		t.Fatalf("server embedded %d texts and %d images; want 3 and %d + 1–11", srv.Texts.Load(), srv.Images.Load(), c.Steps)
	}
	if res.Updates == 0 {
		t.Fatal("no SAC updates on the VLM-RM reward")
	}
	v := lastRow(t, out)
	if v["reward/embed_failures"] != 0 || !(v["reward/mean"] > -1 && v["reward/mean"] <= 1) || !(v["eval/reward_expert_spearman"] >= -1) {
		t.Fatalf("reward metrics %v", v)
	}
	c.Steps = 400
	if _, err := Run(context.Background(), valid(t, c), Options{Resume: true}); err != nil {
		t.Fatal(err)
	}
	if extra := srv.Images.Load() - 400; srv.Texts.Load() != 6 || extra < 2 || extra > 22 {
		t.Fatalf("after resume: %d texts, %d images; want 6 and 400 + 2–22", srv.Texts.Load(), srv.Images.Load())
	}
}

func TestRewardConfigErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		edit func(*rundir.Config)
		want string
	}{
		{func(c *rundir.Config) { c.Reward = "vlmrm" }, "--embed-base-url"},
		{func(c *rundir.Config) { c.Reward, c.RM.EmbedBaseURL = "vlmrm", "http://x/v1" }, "--goal"},
		{func(c *rundir.Config) {
			c.Reward, c.RM.EmbedBaseURL, c.RM.Goal, c.RM.Baseline, c.RM.Alpha = "vlmrm", "http://x/v1", []string{"a"}, []string{"b"}, 2
		}, "alpha"},
		{func(c *rundir.Config) { c.Reward, c.RM.Rater = "erlvlm", "gemini" }, "reward_model.rater"},
		{func(c *rundir.Config) { c.Reward, c.RM.Rater = "erlvlm", "openai" }, "--vlm-base-url"},
		{func(c *rundir.Config) { c.Reward, c.RM.Classes = "erlvlm", 7 }, "classes"},
		{func(c *rundir.Config) { c.Reward, c.RM.LabelNoise = "erlvlm", 1.5 }, "label_noise"},
		{func(c *rundir.Config) { c.Reward, c.RM.CNNSize = "erlvlm", 128 }, "cnn_size"},
	} {
		c := rundir.DefaultConfig()
		tc.edit(&c)
		err := checkConfig(&c)
		var ce *rundir.ConfigError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("want a config error mentioning %q, got %v", tc.want, err)
		}
	}
}

// The state-entropy reward is the k-th nearest-neighbour distance among
// the reference states over its running standard deviation: states far
// from the others get more.
func TestStateEntropyReward(t *testing.T) {
	t.Parallel()
	buf, err := replay.NewBuffer(replay.Config{Capacity: 64, ObsDim: 2, ActDim: 1})
	if err != nil {
		t.Fatal(err)
	}
	// a tight cluster at the origin and one outlier at (10, 0)
	add := func(x, y float64) {
		buf.Add(replay.Transition{Obs: []float64{x, y}, Action: []float64{0}, NextObs: []float64{x, y}})
	}
	for i := range 20 {
		add(0.01*float64(i%5), 0.01*float64(i/5))
	}
	add(10, 0)
	e := newStateEntropy(buf, 3)
	b := replay.NewBatch(2, 2, 1)
	copy(b.Obs, []float32{0, 0, 10, 0})
	e.apply(b, rand.New(rand.NewPCG(1, 1)))
	// the reference sample (1024 draws from 21 states) holds every state
	// many times; distances of exact copies are skipped, so the origin's
	// 3rd neighbour is at 0.01 and the outlier's at |(10,0) − (0.04,0)| or
	// closer cluster points: about 9.96
	ratio := b.Rewards[1] / b.Rewards[0]
	if !(ratio > 900) {
		t.Fatalf("outlier/cluster reward ratio %g (rewards %v), want ≈ 996", ratio, b.Rewards)
	}
	d0 := 0.01 / e.lastStd
	if math.Abs(float64(b.Rewards[0])-d0) > 1e-6 {
		t.Fatalf("cluster reward %g, want 0.01/std = %g", b.Rewards[0], d0)
	}
}
