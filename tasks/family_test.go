package tasks_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/vlmrb/vlmrb/tasks"
	"github.com/vlmrb/vlmrb/tasks/grid"
)

// The one registry answers for both families once tasks/grid is linked.
func TestRegistryCoversBothFamilies(t *testing.T) {
	all := tasks.AllNames()
	arm := []string{tasks.ArmReachName, tasks.ArmPickName, tasks.ArmPushName}
	for _, n := range append(append(tasks.Names(), grid.Names()...), arm...) {
		if !slices.Contains(all, n) {
			t.Errorf("AllNames lacks %s", n)
		}
	}
	if len(all) != len(tasks.Names())+len(grid.Names())+len(arm) {
		t.Errorf("AllNames has %d names, want %d (no duplicates)", len(all), len(tasks.Names())+len(grid.Names())+len(arm))
	}
	for _, n := range grid.Names() {
		if !tasks.IsDiscrete(n) || !tasks.InFamily(n, grid.Family) {
			t.Errorf("%s: IsDiscrete %v, InFamily %v; want both (DoorKey has 7 discrete actions)", n, tasks.IsDiscrete(n), tasks.InFamily(n, grid.Family))
		}
	}
	for _, n := range append(append(tasks.Names(), arm...), "fly") {
		if tasks.IsDiscrete(n) {
			t.Errorf("%s is continuous (a 4-D end-effector delta), IsDiscrete says discrete", n)
		}
	}
}

func TestRegisterFamilyRejectsTakenNames(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("registering reach a second time did not panic")
		}
	}()
	tasks.RegisterFamily(tasks.Family{Name: "dup", Names: func() []string { return []string{"reach"} }})
}

func TestCanonicalAndCheckName(t *testing.T) {
	for in, want := range map[string]string{
		"reach-v3":                      "reach",
		"pick-place-v3-goal-observable": "pick-place",
		"MiniGrid-DoorKey-8x8-v0":       "doorkey-8x8",
		"doorkey-5x5":                   "doorkey-5x5",
		"MiniGrid-DoorKey-7x7-v0":       "MiniGrid-DoorKey-7x7-v0", // no 7x7 DoorKey is registered
		"fly":                           "fly",
	} {
		if got := tasks.Canonical(in); got != want {
			t.Errorf("Canonical(%q) = %q, want %q", in, got, want)
		}
	}
	if err := tasks.CheckName("doorkey-16x16"); err != nil {
		t.Errorf("doorkey-16x16 is registered: %v", err)
	}
	if err := tasks.CheckName("reach-v3"); err == nil || !strings.Contains(err.Error(), "pass --task reach") {
		t.Errorf("alias error %v does not say to pass --task reach", err)
	}
	if err := tasks.CheckName("reahc"); err == nil || !strings.Contains(err.Error(), "reach") || !strings.Contains(err.Error(), "doorkey-8x8") {
		t.Errorf("unknown-task error %v should suggest reach and list every family", err)
	}
	if _, err := tasks.Describe("doorkey-8x8"); err == nil || !strings.Contains(err.Error(), "grid tasks") {
		t.Errorf("Describe of a grid task: %v, want an error naming the grid tasks", err)
	}
}

// MakeEnv's default episode is RunEpisodeSteps control steps: the env
// truncates at exactly that step and not before.
func TestMakeEnvEpisodeLength(t *testing.T) {
	env, err := tasks.MakeEnv("reach-v3", "sparse", 0)
	if err != nil {
		t.Fatal(err)
	}
	env.Reset(1)
	act := make([]float64, env.Spec().ActDim)
	for i := 1; i <= tasks.RunEpisodeSteps; i++ {
		_, _, term, trunc, _, err := env.Step(act)
		if err != nil {
			t.Fatal(err)
		}
		if term || (trunc != (i == tasks.RunEpisodeSteps)) {
			t.Fatalf("step %d: terminated %v truncated %v; want truncation at step %d only", i, term, trunc, tasks.RunEpisodeSteps)
		}
	}
	if _, err := tasks.MakeEnv("reach", "shaped", 0); err == nil {
		t.Error("reward mode shaped accepted; want an error naming dense and sparse")
	}
	if _, err := tasks.MakeEnv("doorkey-8x8", "", 0); err == nil {
		t.Error("MakeEnv built a grid task as a tabletop env")
	}
}

func TestScriptedPolicy(t *testing.T) {
	env, err := tasks.Make("reach", tasks.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	for _, name := range tasks.ScriptedPolicyNames {
		if p, err := tasks.ScriptedPolicy(name, env, 1); err != nil || p == nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := tasks.ScriptedPolicy("greedy", env, 1); err == nil || !strings.Contains(err.Error(), "expert|random") {
		t.Errorf("unknown policy: %v, want an error naming expert|random", err)
	}
}
