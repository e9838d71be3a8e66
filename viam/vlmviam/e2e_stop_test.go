package vlmviam

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.viam.com/rdk/components/arm"
	"go.viam.com/rdk/components/camera"
	"go.viam.com/rdk/components/gripper"
	"go.viam.com/rdk/components/posetracker"
	"go.viam.com/rdk/resource"
	"go.viam.com/rdk/services/generic"
)

// TestE2EStopAllLiveWorldAndRestart, against a real viam-server:
//   - the four sim components of one world take a new max_steps in one
//     config write while the runner runs: the world is rebuilt live and
//     the runner keeps running;
//   - robot.StopAll() (the app's STOP button) stops the running policy
//     runner: at most the tick in flight completes after the runner sees
//     it, its steps stay frozen and the arm is still (steps after the
//     call and the stop latency are metrics);
//   - after a SIGKILL of the module, viam-server restarts it and the
//     auto_start runner runs again (time to running is a metric).
func TestE2EStopAllLiveWorldAndRestart(t *testing.T) {
	_, module := requireE2E(t)
	run := trainedRun(t, 1, 3000)
	const rate = 50.0
	runnerCfg := map[string]any{"name": "runner", "api": "rdk:service:generic", "model": "vlmrb:vlmrb:policy-runner",
		"attributes": map[string]any{"checkpoint": run, "arm": "arm", "gripper": "gripper", "gripper_mode": "proportional",
			"pose_tracker": "poses", "sim_reset": true, "auto_start": true, "rate_hz": rate}}
	cfg := map[string]any{"components": simComponents("reach", 100), "services": []any{runnerCfg}}
	s := startViam(t, cfg, nil)
	runner := s.resource(t, generic.Named("runner"))
	steps := func(r resource.Resource) float64 { return runnerStatus(t, r)["total_steps"].(float64) }
	waitSteps := func(r resource.Resource, n float64, limit time.Duration) {
		t.Helper()
		deadline := time.Now().Add(limit)
		for steps(r) < n {
			if time.Now().After(deadline) {
				t.Fatalf("runner stuck below %v steps: %v", n, runnerStatus(t, r))
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitSteps(runner, 20, 60*time.Second)

	// a sim world reconfigures live: all four components change together
	cfg["components"] = simComponents("reach", 150)
	t0 := time.Now()
	s.writeConfig(t, cfg)
	simArm := s.resource(t, arm.Named("arm"))
	deadline := time.Now().Add(60 * time.Second)
	for !logHas(s, "sim world rebuilt") {
		if time.Now().After(deadline) {
			t.Fatalf("the sim world was not rebuilt after the config write\n%s", tail(s.log.String(), 4000))
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, n := range []resource.Name{arm.Named("arm"), gripper.Named("gripper"), posetracker.Named("poses"), camera.Named("simcam")} {
		r, err := s.robot.ResourceByName(n)
		if err != nil {
			t.Fatalf("%s after the live world change: %v", n, err)
		}
		if _, err := r.DoCommand(context.Background(), map[string]any{"obs": true}); err != nil {
			t.Fatalf("%s after the live world change: %v", n, err)
		}
	}
	before := steps(runner)
	waitSteps(runner, before+rate, 30*time.Second) // a second of ticks on the rebuilt world
	metric(t, "live_world_reconfigure_s", time.Since(t0).Seconds())
	if st := runnerStatus(t, runner); st["running"] != true || st["last_error"] != "" {
		t.Fatalf("runner after the live world change: %v", st)
	}

	// StopAll, once the runner's sentinel is in flight (its status says
	// so; under load the first one can take seconds to set up)
	deadline = time.Now().Add(30 * time.Second)
	for runnerStatus(t, runner)["stop_all_watched"] != true {
		if time.Now().After(deadline) {
			t.Fatalf("the runner never reported its StopAll watch armed: %v\n%s", runnerStatus(t, runner), tail(s.log.String(), 4000))
		}
		time.Sleep(20 * time.Millisecond)
	}
	before = steps(runner)
	t0 = time.Now()
	stopErr := s.robot.StopAll(context.Background(), nil)
	stopAllS := time.Since(t0).Seconds()
	if stopErr != nil {
		// rdk v0.73 cancels StopAll's own operation before it calls Stop,
		// so its Stop calls to modular components fail (see stopwatch.go)
		t.Logf("StopAll returned: %v", stopErr)
	}
	var st map[string]any
	deadline = time.Now().Add(5 * time.Second)
	for {
		st = runnerStatus(t, runner)
		if st["running"] == false {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("runner still running 5 s after StopAll: %v\n%s", st, tail(s.log.String(), 4000))
		}
		time.Sleep(5 * time.Millisecond)
	}
	if st["stop_reason"] != "stop_all" {
		t.Fatalf("runner stopped with reason %v (%v), want stop_all", st["stop_reason"], st["last_error"])
	}
	after := st["total_steps"].(float64)
	extra := after - before
	metric(t, "stopall_steps_after_call", extra)
	metric(t, "stopall_runner_stop_latency_ms", st["stop_latency_ms"])
	metric(t, "stopall_call_s", stopAllS)
	metric(t, "stopall_returned_error", stopErr != nil)
	// behaviour, not timing: once the stop is asked for, at most the tick
	// in flight completes (the client-side count above also holds the
	// ticks during the StopAll call itself, and is a figure)
	if inFlight := after - st["stopped_at_step"].(float64); inFlight > 1 {
		t.Fatalf("%v steps after the runner saw StopAll; at most the tick in flight may finish", inFlight)
	}
	time.Sleep(time.Second)
	if n := steps(runner); n != after {
		t.Fatalf("steps moved on after StopAll: %v → %v", after, n)
	}
	a, err := arm.FromRobot(s.robot, "arm")
	if err != nil {
		t.Fatal(err)
	}
	if moving, err := a.IsMoving(context.Background()); err != nil || moving {
		t.Fatalf("arm IsMoving %v (%v) after StopAll", moving, err)
	}
	_ = simArm

	// module SIGKILL: viam-server restarts it; auto_start runs again
	pid := moduleProcess(t, s.cmd.Process.Pid, module)
	t0 = time.Now()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var last any
	deadline = time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		r, err := s.robot.ResourceByName(generic.Named("runner"))
		if err == nil {
			var out map[string]any
			if out, err = r.DoCommand(ctx, map[string]any{"status": true}); err == nil {
				st := out["status"].(map[string]any)
				last = st
				if st["running"] == true && st["total_steps"].(float64) >= 5 {
					cancel()
					break
				}
			}
		}
		cancel()
		if err != nil {
			last = err
		}
		if time.Now().After(deadline) {
			t.Fatalf("runner not running 30 s after the module was killed: %v\n%s", last, tail(s.log.String(), 6000))
		}
		time.Sleep(50 * time.Millisecond)
	}
	recovered := time.Since(t0).Seconds()
	if npid := moduleProcess(t, s.cmd.Process.Pid, module); npid == pid {
		t.Fatalf("module pid %d unchanged after SIGKILL", pid)
	}
	metric(t, "module_kill_to_running_s", recovered)
	metric(t, "module_restart_dep_retries", last.(map[string]any)["dep_retries"])
	// the figure (acceptance: ≤ 10 s) goes to RESULTS; the test asserts
	// only that it came back (the 30 s deadline above)
}

func logHas(s *viamServer, sub string) bool {
	return strings.Contains(s.log.String(), sub)
}
