package tasks

import (
	"slices"
	"testing"
)

// articulatedTasks are the tasks whose MJCF scene exists (tasks/scenes).
func articulatedTasks(t testing.TB) []string {
	var out []string
	for _, name := range Names() {
		if _, err := sceneFiles.ReadFile("scenes/" + sceneOf(name) + ".xml"); err == nil {
			out = append(out, name)
		}
	}
	if !slices.Contains(out, "pick-place") {
		t.Fatal("no pick-place scene embedded")
	}
	return out
}

// The experts keep their success on the articulated engine: each task's
// scripted expert, through tasks.Env (observation, reward, success), on
// the same seeds as TestExpertSucceeds, succeeds in ≥ 90% of episodes
// (VLMRB_SWEEP=50 for the RESULTS table); the old engine's rate on the same
// seeds is logged beside it.
func TestArticulatedExpertSucceeds(t *testing.T) {
	t.Parallel()
	n := sweepSeeds(t)
	for _, name := range articulatedTasks(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rate := map[string]float64{}
			var failed []int
			for _, engine := range Engines() {
				e, err := Make(name, Options{Engine: engine})
				if err != nil {
					t.Fatal(err)
				}
				ok := 0
				for seed := range n {
					s, _, _ := runEpisode(t, e, e.Expert(), uint64(1000+seed))
					if s {
						ok++
					} else if engine == EngineArticulated {
						failed = append(failed, 1000+seed)
					}
				}
				rate[engine] = float64(ok) / float64(n)
			}
			t.Logf("%s: expert success over %d seeds: articulated %.2f, sim %.2f", name, n, rate[EngineArticulated], rate[EngineSim])
			if rate[EngineArticulated] < 0.9 {
				t.Errorf("%s: expert success %.2f < 0.9 on the articulated engine; failed seeds %v", name, rate[EngineArticulated], failed)
			}
		})
	}
}
