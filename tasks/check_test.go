package tasks

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/vlmrb/vlmrb/control"
)

// pointEnv is a small correct control.Env (a point driven toward a goal on
// a plane) whose fault switches each break one part of the contract, so
// the checker can be shown to catch each fault.
type pointEnv struct {
	spec                     control.Spec
	x, g                     [2]float64
	t                        int
	done                     bool
	calls                    uint64
	acceptNaN, noClip        bool
	unseeded, neverTruncate  bool
	rewardTooBig, missingKey bool
}

func newPointEnv() *pointEnv {
	s := control.BoxSpec(4, 2, -1, 1)
	s.MaxEpisodeSteps, s.RewardLow, s.RewardHigh = 30, -3, 0
	return &pointEnv{spec: s, done: true}
}

func (e *pointEnv) Spec() control.Spec { return e.spec }
func (e *pointEnv) Reset(seed uint64) ([]float64, control.Info) {
	e.calls++
	if e.unseeded {
		seed += e.calls
	}
	r := rand.New(rand.NewPCG(seed, 3))
	e.x = [2]float64{r.Float64(), r.Float64()}
	e.g = [2]float64{r.Float64(), r.Float64()}
	e.t, e.done = 0, false
	return e.obs(), e.info()
}
func (e *pointEnv) obs() []float64 { return []float64{e.x[0], e.x[1], e.g[0], e.g[1]} }
func (e *pointEnv) info() control.Info {
	if e.missingKey {
		return control.Info{Values: map[string]float64{}}
	}
	return control.Info{Values: map[string]float64{"success": 0}}
}
func (e *pointEnv) Step(a []float64) ([]float64, float64, bool, bool, control.Info, error) {
	if e.done {
		return nil, 0, false, false, control.Info{}, control.ErrNeedsReset
	}
	c := make([]float64, 2)
	if err := e.spec.ClipAction(c, a); err != nil && !e.acceptNaN {
		return nil, 0, false, false, control.Info{}, err
	}
	if e.noClip {
		copy(c, a)
	}
	for i := range c {
		if math.IsNaN(c[i]) {
			c[i] = 0
		}
		e.x[i] += 0.01 * c[i]
	}
	e.t++
	r := -math.Hypot(e.x[0]-e.g[0], e.x[1]-e.g[1])
	if e.rewardTooBig {
		r += 10
	}
	trunc := e.t >= e.spec.MaxEpisodeSteps && !e.neverTruncate
	e.done = trunc
	return e.obs(), r, false, trunc, e.info(), nil
}
func (e *pointEnv) Close() error { return nil }

func TestCheckCatchesFaults(t *testing.T) {
	t.Parallel()
	if err := Check(newPointEnv(), 1); err != nil {
		t.Fatalf("a correct env failed the check: %v", err)
	}
	tests := []struct {
		name  string
		fault func(*pointEnv)
		want  string
	}{
		{"accepts NaN", func(e *pointEnv) { e.acceptNaN = true }, "ErrNonFiniteAction"},
		{"no clipping", func(e *pointEnv) { e.noClip = true }, "clipped"},
		{"unseeded reset", func(e *pointEnv) { e.unseeded = true }, "differ"},
		{"never truncates", func(e *pointEnv) { e.neverTruncate = true }, "not truncated"},
		{"reward out of range", func(e *pointEnv) { e.rewardTooBig = true }, "outside"},
		{"no success key", func(e *pointEnv) { e.missingKey = true }, "success"},
	}
	for _, tc := range tests {
		e := newPointEnv()
		tc.fault(e)
		err := Check(e, 1)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Check = %v, want an error mentioning %q", tc.name, err, tc.want)
		}
	}
}

func TestNamesMatchDims(t *testing.T) {
	if n := len(ObsNames()); n != ObsDim {
		t.Fatalf("%d observation names for ObsDim %d", n, ObsDim)
	}
	if n := len(ActNames()); n != ActDim {
		t.Fatalf("%d action names for ActDim %d", n, ActDim)
	}
}
