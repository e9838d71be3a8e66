package train

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vlmrb/vlmrb/rundir"
)

// valid is the test's edge: c validated once (the test fails when it is
// refused).
func valid(t testing.TB, c rundir.Config) rundir.Valid {
	t.Helper()
	v, err := c.Validated()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// runConfig is a library caller's whole path for a test that expects a
// refusal: validate at the edge, then Run.
func runConfig(ctx context.Context, c rundir.Config, opts Options) (*Result, error) {
	v, err := c.Validated()
	if err != nil {
		return nil, err
	}
	return Run(ctx, v, opts)
}

// checkConfig is c's validation error alone.
func checkConfig(c *rundir.Config) error {
	_, err := c.Validated()
	return err
}

// TestRunRefusesUnvalidatedConfig: the zero Valid (a config nobody
// validated) is a *ConfigError saying what to do, not a panic or a run.
func TestRunRefusesUnvalidatedConfig(t *testing.T) {
	res, err := Run(context.Background(), rundir.Valid{}, Options{})
	var ce *rundir.ConfigError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "Validated()") || res != nil {
		t.Fatalf("Run(zero Valid) = %v, %v; want a ConfigError naming Validated()", res, err)
	}
}

// TestConfigChangedAfterValidationCannotReachLoop: breaking a config after
// it was validated (its steps, a network width through the slice the
// proof was made from, its run directory) changes nothing that Run does:
// the run trains the validated budget into the validated directory and
// records the validated config. Replay auto's sampler and the buffer's
// capacity (new, and kept on resume) are reported as derived.
func TestConfigChangedAfterValidationCannotReachLoop(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "run")
	c := tinyConfig(out, "auto")
	v := valid(t, c)
	c.Steps, c.SAC.Hidden[0], c.Out = -1, -3, filepath.Join(dir, "elsewhere")
	var console bytes.Buffer
	res, err := Run(context.Background(), v, Options{Stdout: &console})
	if err != nil {
		t.Fatal(err)
	}
	if res.Step != 200 || res.RunDir != out {
		t.Errorf("ran %d steps into %s, want the validated 200 into %s", res.Step, res.RunDir, out)
	}
	if _, err := os.Stat(c.Out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the changed run directory %s was touched: %v", c.Out, err)
	}
	saved := rundir.DefaultConfig()
	if err := rundir.LoadConfigFile(filepath.Join(out, "config.yaml"), &saved); err != nil {
		t.Fatal(err)
	}
	if saved.Steps != 200 || saved.SAC.Hidden[0] != 8 || saved.Replay != "uniform" {
		t.Errorf("config.yaml: steps %d, sac.hidden %v, replay %s; want the validated 200, [8 8] and the derived uniform", saved.Steps, saved.SAC.Hidden, saved.Replay)
	}
	if !strings.Contains(console.String(), `replay uniform (derived from replay "auto"`) ||
		!strings.Contains(console.String(), "buffer.capacity 200 (derived from steps 200") {
		t.Errorf("console does not report the derived replay and capacity:\n%s", console.String())
	}
	// resumed with the configured capacity, the buffer keeps its saved
	// size, and the console says so
	c = tinyConfig(out, "uniform")
	c.Steps = 300
	console.Reset()
	if _, err := Run(context.Background(), valid(t, c), Options{Resume: true, Stdout: &console}); err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("buffer.capacity 200 (from the run's config.yaml: a resumed buffer keeps the size it was saved with; configured %d)", c.Buffer.Capacity); !strings.Contains(console.String(), want) {
		t.Errorf("resume's console does not report the kept capacity %q:\n%s", want, console.String())
	}
}
