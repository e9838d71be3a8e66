package vlmviam

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.viam.com/rdk/services/generic"

	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/tasks"
	"github.com/vlmrb/vlmrb/train"
)

// TestRunnerEngineRule: the policy runner applies robot-train eval's
// engine rule. A checkpoint trained on the tabletop's removed old engine
// (config engine sim, or none on a tabletop task) is refused when the
// runner drives vlmrb's simulated world (sim_reset), which runs on the
// articulated engine, unless engine is articulated, and then runs as a
// transfer; on a real robot (no sim_reset) it runs and the status says
// what it was trained on. A run of the articulated engine runs either way.
func TestRunnerEngineRule(t *testing.T) {
	run := filepath.Join(t.TempDir(), "run")
	cfg := rundir.DefaultConfig()
	cfg.Task, cfg.Reward, cfg.Replay = "reach", "dense", "uniform"
	cfg.Steps, cfg.Seed, cfg.Out = 60, 3, run
	cfg.NumEnvs, cfg.MaxEpisodeLen = 1, 20
	cfg.SAC.Hidden, cfg.SAC.LearningStarts, cfg.SAC.BatchSize = []int{8, 8}, 40, 16
	cfg.Eval.Every, cfg.Eval.Episodes, cfg.Eval.GIF = 0, 1, false
	if _, err := train.Run(context.Background(), validConfig(t, cfg), train.Options{Quiet: true}); err != nil {
		t.Fatalf("train: %v", err)
	}
	worlds := 0
	newRunner := func(t *testing.T, attrs map[string]any) (*Runner, error) {
		t.Helper()
		worlds++
		deps, _ := simRig(t, fmt.Sprintf("engine-%d", worlds), 20)
		a := map[string]any{"checkpoint": run, "arm": "arm", "gripper": "gripper", "gripper_mode": "proportional", "pose_tracker": "poses"}
		for k, v := range attrs {
			a[k] = v
		}
		conf, err := mkConf[*RunnerConfig](t, generic.API, RunnerModel, "runner", a)
		if err != nil {
			return nil, err
		}
		r, err := NewRunner(context.Background(), deps, conf, testLogger)
		if err != nil {
			return nil, err
		}
		t.Cleanup(func() { r.Close(context.Background()) })
		return r.(*Runner), nil
	}
	// a new run records engine articulated: it runs in the simulated world
	r, err := newRunner(t, map[string]any{"sim_reset": true})
	if err != nil {
		t.Fatalf("a run of the articulated engine in the simulated world: %v", err)
	}
	if st := r.State(); st.TrainedEngine != tasks.EngineArticulated || st.Transfer != "" {
		t.Errorf("articulated run: trained_engine %q, transfer %q; want articulated and none", st.TrainedEngine, st.Transfer)
	}
	// the config keys: sim is removed, and an engine needs the simulated world
	for _, tc := range []struct {
		attrs map[string]any
		want  string
	}{
		{map[string]any{"sim_reset": true, "engine": "sim"}, "removed"},
		{map[string]any{"sim_reset": true, "engine": "mujoco"}, "mujoco"},
		{map[string]any{"engine": "articulated"}, `applies only with "sim_reset": true`},
	} {
		if _, err := newRunner(t, tc.attrs); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("attributes %v: %v; want an error containing %q", tc.attrs, err, tc.want)
		}
	}
	p := filepath.Join(run, "config.yaml")
	b, err := os.ReadFile(p)
	if err != nil || !strings.Contains(string(b), "engine: articulated") {
		t.Fatalf("%s: %v, or no engine articulated in it", p, err)
	}
	for _, old := range []string{"engine: sim", `engine: ""`} {
		t.Run(strings.Fields(old)[1], func(t *testing.T) {
			// a run of the old engine: its config.yaml says so (the
			// checkpoints keep theirs, which their manifests hash)
			if err := os.WriteFile(p, []byte(strings.Replace(string(b), "engine: articulated", old, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := newRunner(t, map[string]any{"sim_reset": true})
			if err == nil || !strings.Contains(err.Error(), "old engine sim, which was removed") || !strings.Contains(err.Error(), `"engine": "articulated"`) {
				t.Fatalf("old-engine run in the simulated world without engine: %v; want a refusal naming the old engine and the engine key", err)
			}
			r, err := newRunner(t, map[string]any{"sim_reset": true, "engine": "articulated"})
			if err != nil {
				t.Fatalf("old-engine run with engine articulated: %v", err)
			}
			st := runEpisodes(t, r, 1, 7)
			if st.Reason != "episodes done" || st.TrainedEngine != tasks.EngineSim || st.Transfer != rundir.TransferNote {
				t.Errorf("old-engine run with engine articulated: stop %q (%s), trained_engine %q, transfer %q; want an episode run as a transfer",
					st.Reason, st.LastError, st.TrainedEngine, st.Transfer)
			}
			if m := statusMap(st); m["trained_engine"] != tasks.EngineSim || m["transfer"] != rundir.TransferNote {
				t.Errorf("status map: trained_engine %v, transfer %v", m["trained_engine"], m["transfer"])
			}
			// a real robot: no engine to check, the status says what it trained on
			r, err = newRunner(t, nil)
			if err != nil {
				t.Fatalf("old-engine run on a robot without sim_reset: %v", err)
			}
			if st := r.State(); st.TrainedEngine != tasks.EngineSim || st.Transfer != "" {
				t.Errorf("old-engine run on a robot: trained_engine %q, transfer %q; want sim and none", st.TrainedEngine, st.Transfer)
			}
		})
	}
	// the CLI's words: the refusal names its flag
	if err := os.WriteFile(p, []byte(strings.Replace(string(b), "engine: articulated", "engine: sim", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	pol, err := LoadPolicy(run)
	if err != nil {
		t.Fatal(err)
	}
	defer pol.Close()
	if _, err := pol.CheckEngine(true, "", "--engine articulated"); err == nil || !strings.Contains(err.Error(), "--engine articulated") || !strings.Contains(err.Error(), "transfer") {
		t.Errorf("CheckEngine in the simulated world without an engine: %v", err)
	}
	if note, err := pol.CheckEngine(false, "", "--engine articulated"); err != nil || !strings.Contains(note, "trained on the old engine sim") {
		t.Errorf("CheckEngine on a real robot: %q, %v; want no refusal and a note naming the old engine", note, err)
	}
	// vlmrb-viam eval refuses before it dials the robot (127.0.0.1:1,
	// nothing listens): the old-engine checkpoint in the simulated world
	// without --engine, --engine sim, and --engine without --sim-reset
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--sim-reset"}, []string{"old engine sim, which was removed", "--engine articulated (with --sim-reset)"}},
		{[]string{"--sim-reset", "--engine", "sim"}, []string{"--engine: ", "removed"}},
		{[]string{"--engine", "articulated"}, []string{"applies only with --sim-reset"}},
	} {
		args := append([]string{"--robot", "127.0.0.1:1", "--checkpoint", run, "--episodes", "1"}, tc.args...)
		var stderr strings.Builder
		err := RunCLI(context.Background(), "eval", args, &strings.Builder{}, &stderr)
		for _, w := range tc.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("vlmrb-viam eval %v: %v; want an error containing %q", tc.args, err, w)
			}
		}
	}
}
