package train

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vlmrb/vlmrb/rundir"
)

func TestDefaultConfigValid(t *testing.T) {
	t.Parallel()
	c := rundir.DefaultConfig()
	if err := checkConfig(&c); err != nil {
		t.Fatal(err)
	}
}

func TestLoadConfigOverridesAndRejectsUnknown(t *testing.T) {
	t.Parallel()
	c := rundir.DefaultConfig()
	err := rundir.LoadConfig(strings.NewReader("task: push\nsac:\n  batch_size: 64\n"), &c)
	if err != nil {
		t.Fatal(err)
	}
	if c.Task != "push" || c.SAC.BatchSize != 64 || c.SAC.Gamma != rundir.DefaultConfig().SAC.Gamma {
		t.Fatalf("overrides not applied on top of defaults: %+v", c)
	}
	for _, tc := range []struct{ name, yaml, key string }{
		{"top", "tsak: push\n", "tsak"},
		{"nested", "sac:\n  batchsize: 64\n", "batchsize"},
		{"secret", "vlm:\n  api_key: sk-123\n", "api_key"},
	} {
		c := rundir.DefaultConfig()
		err := rundir.LoadConfig(strings.NewReader(tc.yaml), &c)
		if err == nil || !strings.Contains(err.Error(), tc.key) {
			t.Errorf("%s: error %v does not name %q", tc.name, err, tc.key)
		}
	}
	c = rundir.DefaultConfig()
	if err := rundir.LoadConfig(strings.NewReader(""), &c); err != nil {
		t.Fatalf("empty file: %v", err)
	}
}

func TestValidateNamesField(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mut  func(*rundir.Config)
		want string
	}{
		{func(c *rundir.Config) { c.Replay = "fifo" }, "replay"},
		{func(c *rundir.Config) { c.Scorer = "gpt" }, "scorer"},
		{func(c *rundir.Config) { c.Steps = 0 }, "steps"},
		{func(c *rundir.Config) { c.SAC.Gamma = 1.5 }, "sac.gamma"},
		{func(c *rundir.Config) { c.Buffer.Capacity = 10 }, "buffer.capacity"},
		{func(c *rundir.Config) { c.Scorer = "openai" }, "--vlm-base-url"},
	} {
		c := rundir.DefaultConfig()
		tc.mut(&c)
		err := checkConfig(&c)
		var ce *rundir.ConfigError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v does not mention %q", err, tc.want)
		}
	}
}

func TestSaveConfigOmitsSecretsAndRoundTrips(t *testing.T) {
	t.Parallel()
	c := rundir.DefaultConfig()
	c.VLM.APIKey = "sk-very-secret"
	c.Task = "push"
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := rundir.SaveConfig(path, &c); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if strings.Contains(string(b), "sk-very-secret") {
		t.Fatal("API key written to config.yaml")
	}
	var d rundir.Config
	if err := rundir.LoadConfigFile(path, &d); err != nil {
		t.Fatalf("saved config does not load back: %v", err)
	}
	if d.Task != "push" || d.SAC.BatchSize != c.SAC.BatchSize || d.VLM.APIKey != "" {
		t.Fatalf("round trip: %+v", d)
	}
}

// replay "auto", the default, is PER for DQN on the grid tasks and uniform
// replay for SAC (the studies behind each are in ResolvedReplay's doc); a
// run writes the sampler it used into its config.
func TestReplayAutoResolves(t *testing.T) {
	c := rundir.DefaultConfig()
	if c.Replay != "auto" || c.ResolvedReplay() != "uniform" {
		t.Fatalf("default replay %q resolves to %q for %s; want auto → uniform", c.Replay, c.ResolvedReplay(), c.Task)
	}
	c.Task = "doorkey-8x8"
	if got := c.ResolvedReplay(); got != "per" {
		t.Fatalf("auto on %s (dqn) resolves to %q, want per", c.Task, got)
	}
	c.Replay = "uniform"
	if got := c.ResolvedReplay(); got != "uniform" {
		t.Fatalf("an explicit replay resolves to %q", got)
	}

	out := filepath.Join(t.TempDir(), "run")
	g := tinyGridConfig(out, "auto", "pixel")
	if _, err := Run(context.Background(), valid(t, g), Options{}); err != nil {
		t.Fatal(err)
	}
	var saved rundir.Config
	if err := rundir.LoadConfigFile(filepath.Join(out, "config.yaml"), &saved); err != nil {
		t.Fatal(err)
	}
	if saved.Replay != "per" {
		t.Fatalf("the run's config.yaml says replay %q, want per", saved.Replay)
	}
}
