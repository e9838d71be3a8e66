package study

import (
	"slices"
	"testing"
)

func TestChildEnvThreads(t *testing.T) {
	base := []string{"PATH=/usr/bin", "HOME=/h"}
	env := childEnv(base, 1)
	for _, want := range []string{"PATH=/usr/bin", "OPENBLAS_NUM_THREADS=1", "OMP_NUM_THREADS=1", "GOMAXPROCS=1", "LP_NUM_THREADS=0"} {
		if !slices.Contains(env, want) {
			t.Errorf("childEnv(base, 1) lacks %s: %v", want, env)
		}
	}
	if len(base) != 2 {
		t.Fatalf("childEnv modified its input: %v", base)
	}

	// several cores per run: llvmpipe keeps its helper threads
	env = childEnv(base, 2)
	if !slices.Contains(env, "GOMAXPROCS=2") || slices.ContainsFunc(env, func(kv string) bool { return kv[:3] == "LP_" }) {
		t.Errorf("childEnv(base, 2) = %v; want GOMAXPROCS=2 and no LP_NUM_THREADS", env)
	}

	// the user's own setting wins
	env = childEnv(append(base, "LP_NUM_THREADS=3"), 1)
	if slices.Contains(env, "LP_NUM_THREADS=0") || !slices.Contains(env, "LP_NUM_THREADS=3") {
		t.Errorf("childEnv overrode the user's LP_NUM_THREADS: %v", env)
	}
}
