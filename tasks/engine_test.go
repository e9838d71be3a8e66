package tasks

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
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
// (VLMRB_SWEEP=50 for the RESULTS table).
func TestArticulatedExpertSucceeds(t *testing.T) {
	t.Parallel()
	n := sweepSeeds(t)
	for _, name := range articulatedTasks(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e, err := Make(name, Options{})
			if err != nil {
				t.Fatal(err)
			}
			ok, steps, last := 0, 0, 0
			var failed []int
			for seed := range n {
				s, flags, _ := runEpisode(t, e, e.Expert(), uint64(1000+seed))
				if s {
					ok++
					steps += slices.Index(flags, true) + 1
				} else {
					failed = append(failed, 1000+seed)
				}
				if flags[len(flags)-1] {
					last++
				}
			}
			rate := float64(ok) / float64(n)
			t.Logf("%s: %d seeds: success %.2f (final step %d/%d, mean first success at step %d)", name, n, rate, last, n, steps/max(ok, 1))
			if rate < 0.9 {
				t.Errorf("%s: expert success %.2f < 0.9; failed seeds %v", name, rate, failed)
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
	_, err = Make("push", Options{Engine: EngineSim})
	if !errors.Is(err, ErrEngineRemoved) || !strings.Contains(err.Error(), "removed") || !strings.Contains(err.Error(), `"articulated"`) {
		t.Errorf("engine sim: error %v, want ErrEngineRemoved saying what to set", err)
	}
	ph, err := newArtPhysics("pick-place")
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

// What renderers draw (Model, Data) is the engine's own state, current
// after every step: the hand body's frame in Data is the observed hand
// position, and Data's clock has advanced 5 physics steps per control
// step (plus the reset's settling steps).
func TestArticulatedViewFollowsEngine(t *testing.T) {
	t.Parallel()
	for _, name := range articulatedTasks(t) {
		t.Run(name, func(t *testing.T) { testViewFollowsEngine(t, name) })
	}
}

func testViewFollowsEngine(t *testing.T, name string) {
	e, err := Make(name, Options{})
	if err != nil {
		t.Fatal(err)
	}
	obs, _ := e.Reset(3)
	pol := e.Expert()
	a := make([]float64, ActDim)
	const steps = 60
	for range steps {
		pol.Act(obs, a)
		if obs, _, _, _, _, err = e.Step(a); err != nil {
			t.Fatal(err)
		}
	}
	hand, ok := e.art.bodyID("hand")
	if !ok {
		t.Fatal("no hand body")
	}
	if x := e.Data().Xpos[hand]; x != [3]float64{obs[0], obs[1], obs[2]} {
		t.Errorf("hand drawn at %v, observed at %v", x, obs[0:3])
	}
	dt := e.Model().Model.Opt.Timestep
	if got, want := e.Data().Time, float64((steps+settleSteps)*FrameSkip)*dt; math.Abs(got-want) > 1e-9 {
		t.Errorf("data time %g s after %d control steps, want %g", got, steps, want)
	}
	if e.Engine() != EngineArticulated {
		t.Errorf("engine %q", e.Engine())
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
