package policy_test

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/dqn"
	"github.com/vlmrb/vlmrb/onnx"
	"github.com/vlmrb/vlmrb/onnx/policy"
	"github.com/vlmrb/vlmrb/sac"
	"github.com/vlmrb/vlmrb/tasks"
	"github.com/vlmrb/vlmrb/tasks/grid"
)

const nObs = 1000

func newSAC(t testing.TB, obs, act int) *sac.Agent {
	t.Helper()
	return newSACHidden(t, obs, act, []int{64, 64})
}

func newSACHidden(t testing.TB, obs, act int, hidden []int) *sac.Agent {
	t.Helper()
	cfg := sac.DefaultConfig()
	cfg.Hidden, cfg.Seed = hidden, 7
	a, err := sac.New(cfg, obs, act)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return a
}

func newDQN(t testing.TB) (*dqn.Agent, *grid.Env) {
	t.Helper()
	return newDQNHidden(t, []int{64, 64})
}

func newDQNHidden(t testing.TB, hidden []int) (*dqn.Agent, *grid.Env) {
	t.Helper()
	env, err := grid.Make("doorkey-5x5", grid.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := dqn.DefaultConfig()
	cfg.Hidden, cfg.Seed, cfg.Categorical = hidden, 11, env.Cardinalities()
	a, err := dqn.New(cfg, env.Spec().ObsDim, env.Spec().Discrete)
	if err != nil {
		t.Fatal(err)
	}
	return a, env
}

// roundTrip writes m to a file and loads it back as a Policy.
func roundTrip(t testing.TB, m *onnx.Model) *policy.Policy {
	t.Helper()
	path := filepath.Join(t.TempDir(), "p.onnx")
	if err := m.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	p, err := policy.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSACMatchesAgent(t *testing.T) {
	const O, A = 39, 4
	a := newSAC(t, O, A)
	m, err := policy.SAC(a, control.BoxSpec(O, A, -1, 1), policy.Info{Task: "reach", Run: "r", Step: 5})
	if err != nil {
		t.Fatal(err)
	}
	p := roundTrip(t, m)
	if p.ObsDim != O || p.OutDim != A || p.Discrete() || p.Kind != policy.KindSACActor || p.Task != "reach" || p.Step != 5 {
		t.Fatalf("loaded policy %+v", p)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	obs := make([]float32, nObs*O)
	for i := range obs {
		obs[i] = float32(rng.NormFloat64() * 2)
	}
	want := make([]float32, nObs*A)
	a.ActBatch(want, obs, nObs, true)
	got, err := p.Forward(obs, nObs)
	if err != nil {
		t.Fatal(err)
	}
	d := maxDiff(got, want)
	t.Logf("SAC actor, %d observations in one batch: max |ONNX − vlmrb| = %.3g", nObs, d)
	if d > 1e-5 {
		t.Fatalf("max |difference| %g > 1e-5", d)
	}
	// one observation at a time: the path evaluation uses
	one, dst := make([]float64, O), make([]float64, A)
	nat := make([]float64, A)
	d1 := 0.0
	for i := range 200 {
		for j := range O {
			one[j] = float64(obs[i*O+j])
		}
		p.Act(one, dst)
		a.Act(nat, one, true)
		for j := range A {
			d1 = max(d1, math.Abs(dst[j]-nat[j]))
		}
	}
	t.Logf("SAC actor, single observations: max |ONNX − vlmrb| = %.3g", d1)
	if d1 > 1e-5 || p.Err() != nil {
		t.Fatalf("single-observation difference %g, err %v", d1, p.Err())
	}
}

func TestSACActionScaling(t *testing.T) {
	const O, A = 5, 3
	a := newSAC(t, O, A)
	spec := control.BoxSpec(O, A, -1, 1)
	spec.ActLow, spec.ActHigh = []float64{0, -2, 10}, []float64{1, 2, 30}
	m, err := policy.SAC(a, spec, policy.Info{Task: "custom"})
	if err != nil {
		t.Fatal(err)
	}
	p := roundTrip(t, m)
	rng := rand.New(rand.NewPCG(3, 4))
	obs, dst, u := make([]float64, O), make([]float64, A), make([]float64, A)
	for range 100 {
		for j := range obs {
			obs[j] = rng.NormFloat64() * 3
		}
		p.Act(obs, dst)
		a.Act(u, obs, true)
		for j := range A {
			want := spec.ActLow[j] + (u[j]+1)/2*(spec.ActHigh[j]-spec.ActLow[j])
			if math.Abs(dst[j]-want) > 1e-5*max(1, math.Abs(want)) {
				t.Fatalf("action %d = %g, want low + (u+1)/2·(high−low) = %g", j, dst[j], want)
			}
		}
	}
}

// randomGridObs draws observations whose elements are valid codes, with a
// fraction of out-of-range and non-integer values to exercise the
// rounding and clamping of the encoding.
func randomGridObs(rng *rand.Rand, card []int, n int, odd bool) []float32 {
	O := len(card)
	obs := make([]float32, n*O)
	for i := range n {
		for j, c := range card {
			v := float32(rng.IntN(c))
			if odd && rng.IntN(4) == 0 {
				v = float32(rng.Float64()*float64(c+4) - 2)
			}
			obs[i*O+j] = v
		}
	}
	return obs
}

func TestDQNMatchesAgent(t *testing.T) {
	a, env := newDQN(t)
	spec := env.Spec()
	m, err := policy.DQN(a, spec, policy.Info{Task: "doorkey-5x5", Step: 100})
	if err != nil {
		t.Fatal(err)
	}
	p := roundTrip(t, m)
	if !p.Discrete() || p.Output != policy.QValues || p.OutDim != spec.Discrete || p.ObsDim != spec.ObsDim {
		t.Fatalf("loaded policy %+v", p)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, odd := range []bool{false, true} {
		obs := randomGridObs(rng, env.Cardinalities(), nObs, odd)
		got, err := p.Forward(obs, nObs)
		if err != nil {
			t.Fatal(err)
		}
		O, nA := spec.ObsDim, spec.Discrete
		q, one := make([]float64, nA), make([]float64, O)
		d, argDiff := 0.0, 0
		dst := []float64{0}
		for i := range nObs {
			for j := range O {
				one[j] = float64(obs[i*O+j])
			}
			a.QValues(q, one)
			for k := range nA {
				d = max(d, math.Abs(float64(got[i*nA+k])-q[k]))
			}
			p.Act(one, dst)
			if int(dst[0]) != a.Greedy(one) {
				argDiff++
			}
		}
		t.Logf("DQN Q-network (off-grid values %v), %d observations: max |ONNX − vlmrb| = %.3g, greedy actions differing: %d", odd, nObs, d, argDiff)
		if d > 1e-5 || argDiff > 0 {
			t.Fatalf("max |difference| %g, %d greedy actions differ", d, argDiff)
		}
	}
}

// TestSameActionsStepByStep drives reach with the native actor and checks
// that the exported one gives the same action at every step of three
// episodes.
func TestSameActionsStepByStep(t *testing.T) {
	env, err := tasks.Make("reach", tasks.Options{MaxSteps: 60})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = env.Close() }()
	spec := env.Spec()
	a := newSAC(t, spec.ObsDim, spec.ActDim)
	m, err := policy.SAC(a, spec, policy.Info{Task: "reach"})
	if err != nil {
		t.Fatal(err)
	}
	p := roundTrip(t, m)
	nat, got := make([]float64, spec.ActDim), make([]float64, spec.ActDim)
	steps, worst := 0, 0.0
	for k := range 3 {
		obs, _ := env.Reset(control.EpisodeSeed(9, 0, k))
		for {
			a.Act(nat, obs, true)
			p.Act(obs, got)
			for j := range nat {
				worst = max(worst, math.Abs(nat[j]-got[j]))
			}
			var term, trunc bool
			obs, _, term, trunc, _, err = env.Step(nat)
			if err != nil {
				t.Fatal(err)
			}
			steps++
			if term || trunc {
				break
			}
		}
	}
	t.Logf("%d steps: max |action difference| %.3g", steps, worst)
	if worst != 0 {
		t.Fatalf("actions differ by up to %g (the single-observation path should be bit-identical)", worst)
	}
}

func TestDQNGreedyStepByStep(t *testing.T) {
	a, env := newDQN(t)
	m, err := policy.DQN(a, env.Spec(), policy.Info{Task: "doorkey-5x5"})
	if err != nil {
		t.Fatal(err)
	}
	p := roundTrip(t, m)
	act := []float64{0}
	steps := 0
	rng := rand.New(rand.NewPCG(1, 1))
	for k := range 3 {
		obs, _ := env.Reset(control.EpisodeSeed(4, 0, k))
		for range 100 {
			p.Act(obs, act)
			if g := a.Greedy(obs); int(act[0]) != g {
				t.Fatalf("step %d: ONNX action %v, agent %d", steps, act[0], g)
			}
			// explore a little so the episode visits varied states
			if rng.IntN(3) == 0 {
				act[0] = float64(rng.IntN(env.Spec().Discrete))
			}
			var term, trunc bool
			obs, _, term, trunc, _, err = env.Step(act)
			if err != nil {
				t.Fatal(err)
			}
			steps++
			if term || trunc {
				break
			}
		}
	}
}

func TestMetadata(t *testing.T) {
	a, env := newDQN(t)
	m, err := policy.DQN(a, env.Spec(), policy.Info{Task: "doorkey-5x5", Run: "runs/x", Step: 42, Extra: []onnx.Prop{{Key: "vlmrb.eval_seed", Value: "3"}}})
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{
		policy.KeyPolicy: policy.KindDQN, policy.KeyTask: "doorkey-5x5", policy.KeyRun: "runs/x", policy.KeyStep: "42",
		policy.KeyActSpace: `{"type":"discrete","dtype":"int64","n":7}`, "vlmrb.eval_seed": "3",
	} {
		if got, ok := m.Meta(k); !ok || got != want {
			t.Errorf("metadata %s = %q, want %q", k, got, want)
		}
	}
	if m.OpsetVersion() != 13 {
		t.Errorf("opset %d", m.OpsetVersion())
	}
}

func TestLoadRejects(t *testing.T) {
	a := newSAC(t, 4, 2)
	m, _ := policy.SAC(a, control.BoxSpec(4, 2, -1, 1), policy.Info{})
	// two inputs
	m2 := *m
	m2.Graph.Inputs = append(append([]onnx.ValueInfo(nil), m.Graph.Inputs...), onnx.ValueInfo{Name: "extra", Type: onnx.Float, Shape: []onnx.Dim{{Value: 1}}})
	if _, err := policy.New(&m2); err == nil {
		t.Error("a graph of two inputs loaded")
	}
	// an unsupported operator names itself
	m3 := *m
	m3.Graph.Nodes = append([]onnx.Node(nil), m.Graph.Nodes...)
	m3.Graph.Nodes[1].OpType = "LeakyRelu"
	if _, err := policy.New(&m3); err == nil || !contains(err.Error(), "LeakyRelu") {
		t.Errorf("unsupported op: %v", err)
	}
	if _, err := policy.Load(filepath.Join(t.TempDir(), "missing.onnx")); err == nil {
		t.Error("a missing file loaded")
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

func maxDiff(a, b []float32) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	d := 0.0
	for i := range a {
		d = max(d, math.Abs(float64(a[i])-float64(b[i])))
	}
	return d
}

// TestForeignModel loads a model written elsewhere's way: PyTorch's
// weight layout (Gemm transB=1), no metadata, and an ArgMax output of
// action indices.
func TestForeignModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	const O, H, nA = 6, 5, 3
	w1, w2 := make([]float32, H*O), make([]float32, nA*H)
	for i := range w1 {
		w1[i] = float32(rng.NormFloat64())
	}
	for i := range w2 {
		w2[i] = float32(rng.NormFloat64())
	}
	m := &onnx.Model{IRVersion: 8, Opsets: []onnx.OpsetID{{Version: 17}}}
	tb := onnx.Attr{Name: "transB", Type: onnx.AttrInt, I: 1}
	m.Graph = onnx.Graph{
		Initializers: []*onnx.Tensor{onnx.NewFloat("w1", w1, H, O), onnx.NewFloat("w2", w2, nA, H)},
		Nodes: []onnx.Node{
			{OpType: "Gemm", Inputs: []string{"x", "w1"}, Outputs: []string{"h"}, Attrs: []onnx.Attr{tb}},
			{OpType: "Relu", Inputs: []string{"h"}, Outputs: []string{"r"}},
			{OpType: "MatMul", Inputs: []string{"r", "w2t"}, Outputs: []string{"q"}},
			{OpType: "ArgMax", Inputs: []string{"q"}, Outputs: []string{"a"}, Attrs: []onnx.Attr{{Name: "axis", Type: onnx.AttrInt, I: 1}, {Name: "keepdims", Type: onnx.AttrInt, I: 0}}},
		},
		Inputs:  []onnx.ValueInfo{{Name: "x", Type: onnx.Float, Shape: []onnx.Dim{{Param: "N"}, {Value: O}}}},
		Outputs: []onnx.ValueInfo{{Name: "a", Type: onnx.Int64}},
	}
	w2t := make([]float32, H*nA) // MatMul wants H×nA
	for k := range nA {
		for j := range H {
			w2t[j*nA+k] = w2[k*H+j]
		}
	}
	m.Graph.Initializers = append(m.Graph.Initializers, onnx.NewFloat("w2t", w2t, H, nA))
	p := roundTrip(t, m)
	if p.Output != policy.Indices || !p.Discrete() || p.Kind != "" || p.Task != "" {
		t.Fatalf("loaded %+v", p)
	}
	obs, dst := make([]float64, O), []float64{0}
	for range 50 {
		for j := range obs {
			obs[j] = rng.NormFloat64()
		}
		p.Act(obs, dst)
		// the same network in float64
		best, bq := 0, math.Inf(-1)
		for k := range nA {
			q := 0.0
			for j := range H {
				h := 0.0
				for i := range O {
					h += float64(w1[j*O+i]) * float64(float32(obs[i]))
				}
				q += float64(w2[k*H+j]) * max(h, 0)
			}
			if q > bq {
				best, bq = k, q
			}
		}
		if int(dst[0]) != best {
			t.Fatalf("action %v, float64 reference %d", dst[0], best)
		}
	}
}

// FuzzNew loads arbitrary bytes as a policy and, when that works, acts
// on an observation: errors are fine, panics are not.
func FuzzNew(f *testing.F) {
	a := newSACHidden(f, 3, 2, []int{4})
	m, _ := policy.SAC(a, control.BoxSpec(3, 2, -1, 1), policy.Info{Task: "t"})
	b, _ := m.MarshalBinary()
	f.Add(b)
	env, err := grid.Make("doorkey-5x5", grid.Options{})
	if err != nil {
		f.Fatal(err)
	}
	cfg := dqn.DefaultConfig()
	cfg.Hidden, cfg.Categorical = []int{2}, env.Cardinalities()
	d, err := dqn.New(cfg, env.Spec().ObsDim, env.Spec().Discrete)
	if err != nil {
		f.Fatal(err)
	}
	m, _ = policy.DQN(d, env.Spec(), policy.Info{})
	b, _ = m.MarshalBinary()
	f.Add(b)
	f.Fuzz(func(t *testing.T, data []byte) {
		mm, err := onnx.Unmarshal(data)
		if err != nil {
			return
		}
		p, err := policy.New(mm)
		if err != nil || p.ObsDim > 4096 {
			return
		}
		obs, dst := make([]float64, p.ObsDim), make([]float64, p.ActDim())
		p.Act(obs, dst)
	})
}
