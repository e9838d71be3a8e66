package vlmviam

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.viam.com/rdk/services/generic"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/train"
)

// armReachRun returns an arm-reach run on the project's UR5e-like
// sim/mjcf/testdata/arm6.xml: VLMRB_VIAM_ARM_RUN when set (a full
// `robot-train train --model` run, for the parity figures), else a short
// run trained here (its policy is weak; the test then checks the
// plumbing and that both sides score the same episodes alike).
func armReachRun(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("VLMRB_VIAM_ARM_RUN"); d != "" {
		return d
	}
	runsMu.Lock()
	defer runsMu.Unlock()
	key := "arm-reach-arm6"
	if d, ok := runsMemo[key]; ok {
		return d
	}
	model, err := filepath.Abs(filepath.Join("..", "..", "sim", "mjcf", "testdata", "arm6.xml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := rundir.DefaultConfig()
	cfg.Arm.Model = model
	rundir.ApplyArmDefaults(&cfg)
	cfg.Steps, cfg.Seed, cfg.Out = 2000, 7, filepath.Join(runsDir, key)
	cfg.SAC.Hidden, cfg.SAC.LearningStarts, cfg.SAC.BatchSize = []int{64, 64}, 500, 128
	cfg.Eval.Every, cfg.Eval.Episodes, cfg.Eval.GIF = 0, 2, false
	if _, err := train.Run(context.Background(), validConfig(t, cfg), train.Options{Quiet: true}); err != nil {
		t.Fatalf("train %s: %v", key, err)
	}
	runsMemo[key] = cfg.Out
	return cfg.Out
}

// TestE2EArmReachParity: the same 20 episode seeds of an arm-reach
// checkpoint (a policy on arm6.xml's joints) scored (a) in process, as
// `robot-train eval` does (train.EvalRun), and (b) through viam-server:
// the policy runner drives the module's mjcf-arm twin of the same MJCF
// over the joint path (the task's IK → MoveToJointPositions with the
// servo extra) at rate_hz 50, the twin stepping at speed 2 so that a
// 20 ms tick is the task's 40 ms control period of arm time. In (b) the
// goal of each episode comes from its seed as in (a) (tasks.ArmReach.Reset
// in the runner), the twin starts each episode at rest at the task's
// start joints (sim_reset), and success is the end effector within 5 cm
// of the goal at the last step by the model's forward kinematics of the
// joints the twin reports — (a)'s rule on (a)'s model. The twin runs in
// real time, asynchronously to the runner, so the two sides do not see
// bit-identical trajectories; the test lists the outcomes side by side
// (metrics) and fails when more than 4 of 20 differ (a wrong goal, unit
// or joint order makes most of them differ).
func TestE2EArmReachParity(t *testing.T) {
	requireE2E(t)
	run := armReachRun(t)
	pol, err := LoadPolicy(run)
	if err != nil {
		t.Fatal(err)
	}
	armCfg := pol.Config.Arm
	pol.Close()
	// the run names its model as it was given to train --model (relative
	// to where that ran); the module runs elsewhere
	model := armCfg.Model
	if p := os.Getenv("VLMRB_VIAM_ARM_MODEL"); p != "" {
		model = p
	}
	if model, err = filepath.Abs(model); err != nil {
		t.Fatal(err)
	}
	const episodes, seed = 20, 1
	sd := uint64(seed)
	t0 := time.Now()
	in, err := rundir.EvalRun(context.Background(), run, rundir.EvalRunOptions{Episodes: episodes, Seed: &sd})
	if err != nil {
		t.Fatal(err)
	}
	metric(t, "arm_parity_inprocess_wall_s", time.Since(t0).Seconds())
	// the same episodes rolled out here on the task model, for each
	// episode's final distance (EvalRun reports only its successes)
	inDist := inProcessArmDistances(t, run, model, episodes, seed)
	twin := map[string]any{"model": model, "speed": 2}
	if armCfg.Keyframe != "" {
		twin["keyframe"] = armCfg.Keyframe
	}
	cfg := map[string]any{
		"components": []any{map[string]any{"name": "arm6", "api": "rdk:component:arm", "model": TwinArmModel.String(), "attributes": twin}},
		"services": []any{map[string]any{"name": "runner", "api": "rdk:service:generic", "model": RunnerModel.String(), "attributes": map[string]any{
			"checkpoint": run, "arm": "arm6", "arm_model": model, "control": "joints", "rate_hz": 50, "sim_reset": true}}},
	}
	s := startViam(t, cfg, nil)
	r := s.resource(t, generic.Named("runner"))
	t0 = time.Now()
	doCmd(t, r, map[string]any{"start": map[string]any{"episodes": episodes, "seed": seed}})
	st := waitRunnerDone(t, r, 5*time.Minute)
	metric(t, "arm_parity_viam_wall_s", time.Since(t0).Seconds())
	if st["stop_reason"] != "episodes done" || st["control_path"] != "joints" {
		t.Fatalf("runner: %v", st)
	}
	metric(t, "arm_parity_tick_hz", st["tick_hz"])
	metric(t, "arm_parity_run_hz", st["achieved_hz"])
	metric(t, "arm_parity_tick_ms_median", st["tick_ms_median"])
	metric(t, "arm_parity_tick_ms_p99", st["tick_ms_p99"])
	outs := st["outcomes"].([]any)
	if len(outs) != episodes {
		t.Fatalf("%d outcomes for %d episodes: %v", len(outs), episodes, outs)
	}
	var rows []string
	differ, nIn, nViam := 0, 0, 0
	for k, o := range outs {
		m := o.(map[string]any)
		sv, ok := m["success"].(bool)
		d, okd := m["final_distance_mm"].(float64)
		if !ok || !okd || m["end"] != "max_steps" || math.IsNaN(d) {
			t.Fatalf("episode %d: outcome %v, want a scored episode that ran to max_steps", k, m)
		}
		if want := strconv.FormatUint(control.EpisodeSeed(seed, 0, k), 10); m["seed"] != want {
			t.Fatalf("episode %d ran seed %v, in-process eval seed %s", k, m["seed"], want)
		}
		si := in.Successes[k]
		if (inDist[k] <= 50) != si {
			t.Fatalf("episode %d: EvalRun success %v, the rollout here ends %.1f mm from the goal", k, si, inDist[k])
		}
		if si {
			nIn++
		}
		if sv {
			nViam++
		}
		mark := ""
		if si != sv {
			differ++
			mark = " ≠"
		}
		rows = append(rows, fmt.Sprintf("%d:%v/%v(%.1f/%.1fmm)%s", k, si, sv, inDist[k], d, mark))
	}
	metric(t, "arm_parity_outcomes_inprocess_vs_viam", strings.Join(rows, " "))
	metric(t, "arm_parity_successes_inprocess", nIn)
	metric(t, "arm_parity_successes_viam", nViam)
	metric(t, "arm_parity_differing", differ)
	if differ > 4 {
		t.Fatalf("%d of %d episodes differ between in-process eval and the Viam run: %s", differ, episodes, strings.Join(rows, " "))
	}
}

// inProcessArmDistances rolls the checkpoint's policy out on arm-reach in
// process (what EvalRun does) and returns each episode's final
// end-effector distance to the goal (mm).
func inProcessArmDistances(t *testing.T, run, model string, episodes int, seed uint64) []float64 {
	t.Helper()
	pol, err := LoadPolicy(run)
	if err != nil {
		t.Fatal(err)
	}
	defer pol.Close()
	d, err := newArmTaskDriver(nil, RunnerConfig{ArmModel: model}, pol)
	if err != nil {
		t.Fatal(err)
	}
	env := d.task
	act := make([]float64, env.Spec().ActDim)
	out := make([]float64, episodes)
	for k := range episodes {
		obs, _ := env.Reset(control.EpisodeSeed(seed, 0, k))
		for {
			if err := pol.Act(obs, act); err != nil {
				t.Fatal(err)
			}
			next, _, term, trunc, info, err := env.Step(act)
			if err != nil {
				t.Fatal(err)
			}
			obs, out[k] = next, 1000*info.Get("obj_to_target")
			if term || trunc {
				break
			}
		}
	}
	return out
}
