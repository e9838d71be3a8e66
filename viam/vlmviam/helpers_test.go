package vlmviam

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"go.viam.com/rdk/logging"
	"go.viam.com/rdk/referenceframe"
	"go.viam.com/rdk/resource"
	"go.viam.com/rdk/spatialmath"
	"go.viam.com/rdk/utils"

	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/train"
)

var (
	runsDir  string
	runsMu   sync.Mutex
	runsMemo = map[string]string{}
)

func TestMain(m *testing.M) {
	d, err := os.MkdirTemp("", "vlmviam-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	runsDir = d
	code := m.Run()
	os.RemoveAll(d)
	os.Exit(code)
}

// trainedRun trains reach briefly (dense reward, 64×64 SAC, 5 scripted
// demo episodes, 100-step episodes) and returns the run directory; runs
// are shared by the tests of one process.
func trainedRun(t *testing.T, seed uint64, steps int64) string {
	t.Helper()
	runsMu.Lock()
	defer runsMu.Unlock()
	key := fmt.Sprintf("reach-%d-%d", seed, steps)
	if d, ok := runsMemo[key]; ok {
		return d
	}
	cfg := rundir.DefaultConfig()
	cfg.Task, cfg.Reward, cfg.Replay = "reach", "dense", "uniform"
	cfg.Steps, cfg.Seed, cfg.Out = steps, seed, filepath.Join(runsDir, key)
	cfg.NumEnvs, cfg.MaxEpisodeLen, cfg.Demos = 1, 100, 5
	cfg.SAC.Hidden, cfg.SAC.LearningStarts, cfg.SAC.BatchSize = []int{64, 64}, 500, 128
	cfg.Eval.Every, cfg.Eval.Episodes, cfg.Eval.GIF = 0, 2, false
	if _, err := train.Run(context.Background(), validConfig(t, cfg), train.Options{Quiet: true}); err != nil {
		t.Fatalf("train %s: %v", key, err)
	}
	runsMemo[key] = cfg.Out
	return cfg.Out
}

// mkConf builds a resource.Config with attributes converted and
// validated as viam-server does.
func mkConf[T resource.ConfigValidator](t testing.TB, api resource.API, model resource.Model, name string, attrs map[string]any) (resource.Config, error) {
	t.Helper()
	cv, err := resource.TransformAttributeMap[T](utils.AttributeMap(attrs))
	if err != nil {
		return resource.Config{}, err
	}
	if _, _, err := cv.Validate("test"); err != nil {
		return resource.Config{}, err
	}
	return resource.Config{Name: name, API: api, Model: model, Attributes: utils.AttributeMap(attrs), ConvertedAttributes: cv}, nil
}

func mustConf[T resource.ConfigValidator](t testing.TB, api resource.API, model resource.Model, name string, attrs map[string]any) resource.Config {
	t.Helper()
	c, err := mkConf[T](t, api, model, name, attrs)
	if err != nil {
		t.Fatalf("config %s: %v", name, err)
	}
	return c
}

var testLogger = logging.NewLogger("test")

// fkPose is the forward kinematics of model m at joints q (rdk's
// Model.Transform; it replaces ComputeOOBPosition, gone since rdk v0.75).
func fkPose(m referenceframe.Model, q []referenceframe.Input) (spatialmath.Pose, error) {
	return m.Transform(q)
}

// validConfig is a library caller's edge in a test: c validated once.
func validConfig(t testing.TB, c rundir.Config) rundir.Valid {
	t.Helper()
	v, err := c.Validated()
	if err != nil {
		t.Fatal(err)
	}
	return v
}
