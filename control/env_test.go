package control

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// lineEnv is a small real environment for testing the interfaces: a point
// on a line moved by a clipped velocity action, rewarded by −|x − goal|,
// terminated within 0.05 of the goal, truncated after limit steps.
type lineEnv struct {
	spec       Spec
	x, goal    float64
	t          int
	done       bool
	limit      int
	closeCalls int
}

func newLineEnv(limit int) *lineEnv {
	s := BoxSpec(2, 1, -1, 1)
	s.MaxEpisodeSteps = limit
	return &lineEnv{spec: s, limit: limit, done: true}
}

func (e *lineEnv) Spec() Spec { return e.spec }
func (e *lineEnv) Reset(seed uint64) ([]float64, Info) {
	r := rand.New(rand.NewPCG(seed, 1))
	e.x, e.goal, e.t, e.done = r.Float64()*2-1, r.Float64()*2-1, 0, false
	return []float64{e.x, e.goal}, Info{Values: map[string]float64{"success": 0}}
}
func (e *lineEnv) Step(a []float64) ([]float64, float64, bool, bool, Info, error) {
	if e.done {
		return nil, 0, false, false, Info{}, ErrNeedsReset
	}
	var c [1]float64
	if err := e.spec.ClipAction(c[:], a); err != nil {
		return nil, 0, false, false, Info{}, err
	}
	e.x += 0.1 * c[0]
	e.t++
	d := math.Abs(e.x - e.goal)
	term := d < 0.05
	trunc := !term && e.t >= e.limit
	e.done = term || trunc
	s := 0.0
	if term {
		s = 1
	}
	return []float64{e.x, e.goal}, -d, term, trunc, Info{Values: map[string]float64{"success": s, "t": float64(e.t)}}, nil
}
func (e *lineEnv) Close() error { e.closeCalls++; return nil }

func TestClipAction(t *testing.T) {
	t.Parallel()
	s := BoxSpec(3, 4, -1, 1)
	dst := make([]float64, 4)
	if err := s.ClipAction(dst, []float64{2, -3, 0.5, -1}); err != nil {
		t.Fatal(err)
	}
	want := []float64{1, -1, 0.5, -1}
	for i := range want {
		if dst[i] != want[i] {
			t.Fatalf("clip = %v, want %v", dst, want)
		}
	}
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if err := s.ClipAction(dst, []float64{0, bad, 0, 0}); !errors.Is(err, ErrNonFiniteAction) {
			t.Errorf("ClipAction(%g) err = %v, want ErrNonFiniteAction", bad, err)
		}
	}
}

func TestSpecValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		spec Spec
		ok   bool
	}{
		{"box", BoxSpec(39, 4, -1, 1), true},
		{"no obs", BoxSpec(0, 4, -1, 1), false},
		{"inverted", BoxSpec(3, 1, 1, -1), false},
		{"infinite", BoxSpec(3, 1, math.Inf(-1), 1), false},
		{"short bounds", Spec{ObsDim: 3, ActDim: 2, ActLow: []float64{0}, ActHigh: []float64{1, 1}}, false},
		{"discrete", DiscreteSpec(147, 7), true},
		{"discrete wrong bounds", Spec{ObsDim: 3, ActDim: 1, ActLow: []float64{0}, ActHigh: []float64{3}, Discrete: 7}, false},
		{"discrete two dims", Spec{ObsDim: 3, ActDim: 2, ActLow: []float64{0, 0}, ActHigh: []float64{6, 6}, Discrete: 7}, false},
	}
	for _, tc := range tests {
		if err := tc.spec.Validate(); (err == nil) != tc.ok {
			t.Errorf("%s: Validate() = %v, want ok=%v", tc.name, err, tc.ok)
		}
	}
}

func TestDiscreteSpec(t *testing.T) {
	t.Parallel()
	s := DiscreteSpec(10, 7)
	// clipping then rounding: 6.6 clips to 6, −3 clips to 0, 2.5 rounds half away from zero to 3
	for _, tc := range []struct {
		in   float64
		want int
	}{{0, 0}, {1.4, 1}, {2.5, 3}, {6.6, 6}, {-3, 0}, {99, 6}} {
		a := []float64{0}
		if err := s.ClipAction(a, []float64{tc.in}); err != nil {
			t.Fatal(err)
		}
		if got := s.ActionIndex(a); got != tc.want {
			t.Errorf("ActionIndex(clip(%g)) = %d, want %d", tc.in, got, tc.want)
		}
	}
	// SampleAction draws every index of Discrete(7) and nothing else
	rng := rand.New(rand.NewPCG(1, 2))
	seen := map[float64]int{}
	dst := []float64{0}
	for range 7000 {
		s.SampleAction(dst, rng.Float64)
		seen[dst[0]]++
	}
	if len(seen) != 7 {
		t.Fatalf("SampleAction drew %d distinct values, want the 7 indices: %v", len(seen), seen)
	}
	for k := range 7 {
		if seen[float64(k)] == 0 {
			t.Errorf("index %d never drawn", k)
		}
	}
}

// runVec steps a VecEnv with a seeded policy and records every transition's
// (obs, next) pair using the documented auto-reset rule.
func runVec(t *testing.T, n, steps int, seed uint64) (trace []float64, episodes int) {
	t.Helper()
	v, err := NewVecEnv(n, func(int) (Env, error) { return newLineEnv(7), nil })
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = v.Close() }()
	obs, _ := v.Reset(seed)
	prev := make([][]float64, n)
	copy(prev, obs)
	rng := rand.New(rand.NewPCG(seed, 2))
	acts := make([][]float64, n)
	for i := range acts {
		acts[i] = []float64{0}
	}
	for range steps {
		for i := range acts {
			acts[i][0] = rng.Float64()*4 - 2
		}
		obs, _, term, trunc, infos, err := v.Step(acts)
		if err != nil {
			t.Fatal(err)
		}
		for i := range n {
			next := obs[i]
			if term[i] || trunc[i] {
				episodes++
				if infos[i].FinalObs == nil || infos[i].FinalValues == nil {
					t.Fatalf("env %d ended without FinalObs/FinalValues", i)
				}
				next = infos[i].FinalObs
				// the final observation is where the last action moved the point
				if got, want := next[0]-prev[i][0], 0.1*min(max(acts[i][0], -1), 1); math.Abs(got-want) > 1e-12 {
					t.Fatalf("final obs moved %g, want %g", got, want)
				}
				if term[i] && infos[i].FinalValues["success"] != 1 {
					t.Fatalf("terminated episode's final info lacks success")
				}
			} else if infos[i].FinalObs != nil {
				t.Fatalf("FinalObs set on a running episode")
			}
			trace = append(trace, prev[i][0], next[0])
		}
		copy(prev, obs)
	}
	return trace, episodes
}

func TestVecEnvAutoResetAndDeterminism(t *testing.T) {
	t.Parallel()
	a, eps := runVec(t, 4, 100, 42)
	if eps < 4*100/7 {
		t.Fatalf("only %d episodes ended in 400 steps with a 7-step limit", eps)
	}
	b, _ := runVec(t, 4, 100, 42)
	c, _ := runVec(t, 4, 100, 43)
	same := func(x, y []float64) bool {
		for i := range x {
			if x[i] != y[i] {
				return false
			}
		}
		return len(x) == len(y)
	}
	if !same(a, b) {
		t.Fatal("two runs with seed 42 differ")
	}
	if same(a, c) {
		t.Fatal("seeds 42 and 43 gave identical runs")
	}
}

func TestVecEnvErrors(t *testing.T) {
	t.Parallel()
	envs := []*lineEnv{}
	v, err := NewVecEnv(3, func(int) (Env, error) { e := newLineEnv(5); envs = append(envs, e); return e, nil })
	if err != nil {
		t.Fatal(err)
	}
	v.Reset(1)
	_, _, _, _, _, err = v.Step([][]float64{{0}, {math.NaN()}, {0}})
	if !errors.Is(err, ErrNonFiniteAction) {
		t.Fatalf("Step with NaN: err = %v", err)
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	for i, e := range envs {
		if e.closeCalls != 1 {
			t.Errorf("env %d closed %d times", i, e.closeCalls)
		}
	}
	if _, err := NewVecEnv(2, func(i int) (Env, error) {
		if i == 1 {
			return nil, errors.New("no robot")
		}
		return newLineEnv(5), nil
	}); err == nil {
		t.Fatal("NewVecEnv ignored a constructor error")
	}
}

func TestEpisodeSeedDistinct(t *testing.T) {
	t.Parallel()
	seen := map[uint64]bool{}
	for i := range 16 {
		for k := range 64 {
			s := EpisodeSeed(7, i, k)
			if seen[s] {
				t.Fatalf("EpisodeSeed(7,%d,%d) repeats", i, k)
			}
			seen[s] = true
		}
	}
}

func TestSafety(t *testing.T) {
	t.Parallel()
	s := Safety{Limits: Limits{WorkspaceLow: [3]float64{-0.5, 0.4, 0.05}, WorkspaceHigh: [3]float64{0.5, 1, 0.5}, MaxSpeed: 1, MaxForce: 20}}
	const dt = 0.0125
	tests := []struct {
		name       string
		prev, want [3]float64
		out        [3]float64
	}{
		{"inside", [3]float64{0, 0.6, 0.2}, [3]float64{0.005, 0.6, 0.2}, [3]float64{0.005, 0.6, 0.2}},
		{"speed", [3]float64{0, 0.6, 0.2}, [3]float64{1, 0.6, 0.2}, [3]float64{dt, 0.6, 0.2}},
		{"box", [3]float64{0, 0.6, 0.055}, [3]float64{0, 0.6, 0.045}, [3]float64{0, 0.6, 0.05}},
		{"nan holds", [3]float64{0, 0.6, 0.2}, [3]float64{math.NaN(), 0, 0}, [3]float64{0, 0.6, 0.2}},
	}
	for _, tc := range tests {
		got := s.Target(tc.prev, tc.want, dt)
		for i := range got {
			if math.Abs(got[i]-tc.out[i]) > 1e-12 {
				t.Errorf("%s: Target = %v, want %v", tc.name, got, tc.out)
			}
		}
	}
	if c := s.Counts; c.Speed != 1 || c.Workspace != 1 || c.NonFinite != 1 {
		t.Errorf("counts = %+v", c)
	}
	if f := s.Effort(-50); f != -20 {
		t.Errorf("Effort(-50) = %g, want -20", f)
	}
	if err := s.CheckForce(25); !errors.Is(err, ErrForceLimit) {
		t.Errorf("CheckForce(25) = %v", err)
	}
	if err := s.CheckForce(math.NaN()); err == nil {
		t.Error("CheckForce(NaN) accepted")
	}
}

// OnEpisodeEnd sees each environment in its final state, before the
// auto-reset, once per ended episode.
func TestVecEnvOnEpisodeEnd(t *testing.T) {
	t.Parallel()
	const n = 3
	envs := make([]*lineEnv, n)
	v, err := NewVecEnv(n, func(i int) (Env, error) { envs[i] = newLineEnv(4); return envs[i], nil })
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = v.Close() }()
	seen := make([][]float64, n) // x at the hook, per env
	v.OnEpisodeEnd = func(i int) { seen[i] = append(seen[i], envs[i].x) }
	v.Reset(3)
	acts := [][]float64{{0.5}, {-0.5}, {1}}
	ends := make([]int, n)
	for range 20 {
		_, _, term, trunc, infos, err := v.Step(acts)
		if err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if !term[i] && !trunc[i] {
				continue
			}
			ends[i]++
			if len(seen[i]) != ends[i] {
				t.Fatalf("env %d: %d hook calls for %d ended episodes", i, len(seen[i]), ends[i])
			}
			if got, want := seen[i][ends[i]-1], infos[i].FinalObs[0]; got != want {
				t.Fatalf("env %d: hook saw x=%g, final observation has %g", i, got, want)
			}
		}
	}
	for i := range n {
		if ends[i] == 0 || len(seen[i]) != ends[i] {
			t.Fatalf("env %d: %d episodes ended, %d hook calls", i, ends[i], len(seen[i]))
		}
	}
}

// ResetFrom starts env i at episode first[i] of its seed sequence: the
// observation a fresh env gets from that episode's seed.
func TestVecEnvResetFromMatchesEpisodeSeeds(t *testing.T) {
	t.Parallel()
	v, err := NewVecEnv(2, func(int) (Env, error) { return newLineEnv(7), nil })
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	first := []int{1, 3}
	obs, _ := v.ResetFrom(7, first)
	for i, k := range first {
		want, _ := newLineEnv(7).Reset(EpisodeSeed(7, i, k))
		if obs[i][0] != want[0] || obs[i][1] != want[1] {
			t.Fatalf("env %d: first obs %v, want %v (episode %d's seed)", i, obs[i], want, k)
		}
	}
}
