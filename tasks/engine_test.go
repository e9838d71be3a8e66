package tasks

import (
	"slices"
	"strings"
	"testing"

	"github.com/vlmrb/vlmrb/sim"
)

// articulatedTasks are the tasks whose MJCF scene exists (tasks/scenes).
func articulatedTasks(t testing.TB) []string {
	var out []string
	for _, name := range Names() {
		if _, err := sceneFS.ReadFile("scenes/" + sceneOf(name) + ".xml"); err == nil {
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
			rate, last, first := map[string]float64{}, map[string]int{}, map[string]int{}
			var failed []int
			for _, engine := range Engines() {
				e, err := Make(name, Options{Engine: engine})
				if err != nil {
					t.Fatal(err)
				}
				ok, steps := 0, 0
				for seed := range n {
					s, flags, _ := runEpisode(t, e, e.Expert(), uint64(1000+seed))
					if s {
						ok++
						steps += slices.Index(flags, true) + 1
					} else if engine == EngineArticulated {
						failed = append(failed, 1000+seed)
					}
					if flags[len(flags)-1] {
						last[engine]++
					}
				}
				first[engine] = steps / max(ok, 1)
				rate[engine] = float64(ok) / float64(n)
			}
			t.Logf("%s: expert success over %d seeds: articulated %.2f, sim %.2f; still successful at the last step %d / %d; mean steps to the first success %d / %d",
				name, n, rate[EngineArticulated], rate[EngineSim], last[EngineArticulated], last[EngineSim], first[EngineArticulated], first[EngineSim])
			if rate[EngineArticulated] < 0.9 {
				t.Errorf("%s: expert success %.2f < 0.9 on the articulated engine; failed seeds %v", name, rate[EngineArticulated], failed)
			}
		})
	}
}

// A bad engine name, and a scene that lacks a part the tasks use, are
// errors that say what to do.
func TestEngineRefusals(t *testing.T) {
	t.Parallel()
	_, err := Make("push", Options{Engine: "mujoco"})
	if err == nil || !strings.Contains(err.Error(), "articulated") {
		t.Errorf("engine mujoco: error %v, want one listing the engines", err)
	}
	vm, err := newScene(sim.V3(0, 0.6, 0.2), false).b.Build()
	if err != nil {
		t.Fatal(err)
	}
	ph, err := newArtPhysics("pick-place", vm)
	if err != nil {
		t.Fatal(err)
	}
	bd := &binder{ph: ph}
	bindHand(bd)
	bd.body("red puck")
	bd.mocap("red puck") // a free body, not a mocap one
	bd.geom("blue puck")
	err = bd.err(EngineArticulated, "pick-place")
	if err == nil || !strings.Contains(err.Error(), `mocap="true" on body "red puck"`) || !strings.Contains(err.Error(), `geom "blue puck"`) ||
		strings.Contains(err.Error(), "hand") {
		t.Errorf("binding: error %v, want one naming the non-mocap puck and the missing geom only", err)
	}
}

// The articulated Env's view (Model, State: what renderers draw) poses
// every body of the Go scene as the engine has it, and the observation
// reads the same poses.
func TestArticulatedViewFollowsEngine(t *testing.T) {
	t.Parallel()
	for _, name := range articulatedTasks(t) {
		t.Run(name, func(t *testing.T) { testViewFollowsEngine(t, name) })
	}
}

func testViewFollowsEngine(t *testing.T, name string) {
	e, err := Make(name, Options{Engine: EngineArticulated})
	if err != nil {
		t.Fatal(err)
	}
	obs, _ := e.Reset(3)
	pol := e.Expert()
	a := make([]float64, ActDim)
	for range 60 {
		pol.Act(obs, a)
		if obs, _, _, _, _, err = e.Step(a); err != nil {
			t.Fatal(err)
		}
	}
	ph := e.ph.(*artPhysics)
	for i, b := range e.Model().Bodies {
		j, ok := ph.bodyID(b.Name)
		if !ok {
			t.Errorf("body %q of the Go scene is not in the MJCF scene", b.Name)
			continue
		}
		if got, want := e.State().Bodies[i].Pos, sim.V3(ph.d.Xpos[j][0], ph.d.Xpos[j][1], ph.d.Xpos[j][2]); got != want {
			t.Errorf("body %q drawn at %v, engine has %v", b.Name, got, want)
		}
	}
	hand, _ := e.Model().Body("hand")
	if p := e.State().Bodies[hand].Pos; p != sim.V3(obs[0], obs[1], obs[2]) {
		t.Errorf("hand drawn at %v, observed at %v", p, obs[0:3])
	}
	if e.Engine() != EngineArticulated || e.State().Time <= 0 {
		t.Errorf("engine %q, view time %g", e.Engine(), e.State().Time)
	}
}

// The env checker passes on the articulated engine, and an episode is a
// function of its seed: the same seed after another episode gives the same
// observations and rewards, bit for bit (runs and their evaluations
// depend on it).
func TestArticulatedCheckAndReproducible(t *testing.T) {
	t.Parallel()
	for _, name := range articulatedTasks(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e, err := Make(name, Options{Engine: EngineArticulated, MaxSteps: 60})
			if err != nil {
				t.Fatal(err)
			}
			if err := Check(e, 7); err != nil {
				t.Fatal(err)
			}
			run := func(seed uint64) (out []float64) {
				obs, _ := e.Reset(seed)
				pol, a := e.Expert(), make([]float64, ActDim)
				for range 60 {
					pol.Act(obs, a)
					var r float64
					if obs, r, _, _, _, err = e.Step(a); err != nil {
						t.Fatal(err)
					}
					out = append(append(out, obs...), r)
				}
				return out
			}
			first := run(11)
			run(12)
			if again := run(11); !slices.Equal(first, again) {
				t.Errorf("seed 11 twice: the episodes differ")
			}
		})
	}
}
