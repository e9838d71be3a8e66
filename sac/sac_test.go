package sac

import (
	"errors"
	"math"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/diff/fd"

	"github.com/vlmrb/vlmrb/nn"
	"github.com/vlmrb/vlmrb/replay"
)

func smallAgent(t testing.TB, seed uint64, mod func(*Config)) *Agent {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Hidden = []int{8, 8}
	cfg.Seed = seed
	if mod != nil {
		mod(&cfg)
	}
	a, err := New(cfg, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return a
}

// prepare sets up the workspace of a for batch b with fixed noise, as
// Update does before its first phase.
func prepare(a *Agent, b *replay.Batch) {
	a.grow(b.Len())
	a.ws.b = b
	a.ws.actorNow = true
	for i := range a.ws.eps[:b.Len()*a.actDim] {
		a.ws.eps[i] = float32(math.Sin(float64(i)*1.3)) * 1.2
		a.ws.eps2[i] = float32(math.Cos(float64(i)*0.7)) * 1.1
	}
}

func params64(p []float32) []float64 {
	o := make([]float64, len(p))
	for i, v := range p {
		o[i] = float64(v)
	}
	return o
}

// gradTol: relative error allowed between backprop and central differences
// of a float32 network (step 1e-3: small enough to cross no ReLU kink in
// these 8-unit layers, large enough that float32 rounding of a loss of
// order 1 stays near 1e-4).
const gradTol = 5e-3

func compare(t *testing.T, what string, analytic []float32, numeric []float64) {
	t.Helper()
	bad := 0
	for i, nv := range numeric {
		if e := math.Abs(float64(analytic[i])-nv) / math.Max(0.1, math.Abs(nv)); e > gradTol {
			bad++
			if bad < 5 {
				t.Errorf("%s[%d]: backprop %g, finite differences %g", what, i, analytic[i], nv)
			}
		}
	}
}

func TestCriticGradientMatchesFiniteDifferences(t *testing.T) {
	a := smallAgent(t, 11, nil)
	b := randomBatch(6, 3, 2, 5)
	for i := range b.Weights {
		b.Weights[i] = 0.25 + 0.5*float32(i%3)
	}
	prepare(a, b)
	var m Metrics
	alpha := float32(0.3)
	for k := 0; k < 2; k++ {
		a.criticLoss(&m, b.Weights, alpha)
		a.q[k].Backward(a.ws.qTape[k], a.ws.dq[k], nil, 0, true)
		analytic := append([]float32(nil), a.q[k].Grads...)
		p0 := append([]float32(nil), a.q[k].Params...)
		numeric := fd.Gradient(nil, func(p []float64) float64 {
			for i := range p {
				a.q[k].Params[i] = float32(p[i])
			}
			var mm Metrics
			a.criticLoss(&mm, b.Weights, alpha)
			return []float64{mm.QF1Loss, mm.QF2Loss}[k]
		}, params64(p0), &fd.Settings{Formula: fd.Central, Step: 1e-3})
		copy(a.q[k].Params, p0)
		compare(t, []string{"qf1", "qf2"}[k], analytic, numeric)
	}
}

func TestActorGradientMatchesFiniteDifferences(t *testing.T) {
	a := smallAgent(t, 12, nil)
	b := randomBatch(6, 3, 2, 6)
	prepare(a, b)
	alpha := float32(0.4)
	loss := func() float64 {
		w := &a.ws
		out := a.actor.Forward(w.piTape, b.Obs, w.n)
		a.squash(out, w.eps, w.n, w.pi, w.logp, w.lsT, w.std)
		var m Metrics
		if _, err := a.actorGrad(&m, alpha); err != nil {
			t.Fatal(err)
		}
		return m.ActorLoss
	}
	loss()
	analytic := append([]float32(nil), a.actor.Grads...)
	p0 := append([]float32(nil), a.actor.Params...)
	numeric := fd.Gradient(nil, func(p []float64) float64 {
		for i := range p {
			a.actor.Params[i] = float32(p[i])
		}
		return loss()
	}, params64(p0), &fd.Settings{Formula: fd.Central, Step: 1e-3})
	compare(t, "actor", analytic, numeric)
}

func TestLogProbMatchesChangeOfVariables(t *testing.T) {
	// log π(a) of the squashed Gaussian equals log N(u; μ, σ) − Σ log(1 − tanh²u + 1e-6)
	a := smallAgent(t, 13, nil)
	out := []float32{0.3, -0.7, 0.5, -2} // mean ‖ raw log σ for A = 2
	eps := []float32{0.8, -1.1}
	act := make([]float32, 2)
	logp := make([]float32, 1)
	a.squash(out, eps, 1, act, logp, nil, nil)
	want := 0.0
	for j := 0; j < 2; j++ {
		ls := -5 + 0.5*7*(math.Tanh(float64(out[2+j]))+1)
		s := math.Exp(ls)
		u := float64(out[j]) + s*float64(eps[j])
		want += -0.5*math.Pow((u-float64(out[j]))/s, 2) - math.Log(s) - 0.5*math.Log(2*math.Pi)
		want -= math.Log(1 - math.Pow(math.Tanh(u), 2) + 1e-6)
		if math.Abs(float64(act[j])-math.Tanh(u)) > 1e-6 {
			t.Fatalf("action %d = %g, want tanh(u) = %g", j, act[j], math.Tanh(u))
		}
	}
	if math.Abs(float64(logp[0])-want) > 1e-4 {
		t.Fatalf("log π = %g, want %g", logp[0], want)
	}
}

func TestTDAndReLoMatchDefinitions(t *testing.T) {
	a := smallAgent(t, 14, func(c *Config) { c.ReLo = true })
	b := randomBatch(16, 3, 2, 7)
	for i := range b.Terminated {
		b.Terminated[i] = 1 // y = r exactly, so the test needs no noise
	}
	xq := make([]float32, 16*5)
	concat(xq, b.Obs, b.Actions, 16, 3, 2)
	for u := 0; u < 4; u++ {
		var q, qt [2][]float32
		for k := 0; k < 2; k++ {
			q[k] = append([]float32(nil), a.q[k].Forward(a.q[k].NewTape(16), xq, 16)...)
			qt[k] = append([]float32(nil), a.qt[k].Forward(a.qt[k].NewTape(16), xq, 16)...)
		}
		if _, err := a.Update(b); err != nil {
			t.Fatal(err)
		}
		td, relo := a.TDErrors(), a.ReLoScores()
		for i := 0; i < 16; i++ {
			r := b.Rewards[i]
			wantTD := 0.5 * (math.Abs(float64(q[0][i]-r)) + math.Abs(float64(q[1][i]-r)))
			sq := func(x float32) float64 { return float64(x) * float64(x) }
			wantReLo := 0.5*(sq(q[0][i]-r)+sq(q[1][i]-r)) - 0.5*(sq(qt[0][i]-r)+sq(qt[1][i]-r))
			if math.Abs(float64(td[i])-wantTD) > 1e-5 || math.Abs(float64(relo[i])-wantReLo) > 1e-4 {
				t.Fatalf("update %d sample %d: TD %g ReLo %g, want %g %g", u, i, td[i], relo[i], wantTD, wantReLo)
			}
			if u == 0 && relo[i] != 0 {
				t.Fatalf("first update: targets equal the critics, ReLo must be 0, got %g", relo[i])
			}
		}
	}
}

func TestImportanceWeightsScaleCriticLoss(t *testing.T) {
	a1 := smallAgent(t, 15, nil)
	a2 := smallAgent(t, 15, nil)
	b1 := randomBatch(32, 3, 2, 8)
	b2 := randomBatch(32, 3, 2, 8)
	for i := range b2.Weights {
		b2.Weights[i] = 3
	}
	m1, err1 := a1.Update(b1)
	m2, err2 := a2.Update(b2)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if math.Abs(m2.QF1Loss-3*m1.QF1Loss) > 1e-5*m1.QF1Loss {
		t.Fatalf("weights 3: qf1 loss %g, want 3×%g", m2.QF1Loss, m1.QF1Loss)
	}
	// a zero-weight sample's reward cannot move the critics
	a3, a4 := smallAgent(t, 16, nil), smallAgent(t, 16, nil)
	b3, b4 := randomBatch(32, 3, 2, 9), randomBatch(32, 3, 2, 9)
	b3.Weights[5], b4.Weights[5] = 0, 0
	b4.Rewards[5] = 1e3
	if _, err := a3.Update(b3); err != nil {
		t.Fatal(err)
	}
	if _, err := a4.Update(b4); err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 2; k++ {
		for i := range a3.q[k].Params {
			if a3.q[k].Params[i] != a4.q[k].Params[i] {
				t.Fatalf("critic %d param %d moved by a zero-weight sample", k, i)
			}
		}
	}
}

func TestDivergedErrorOnNaN(t *testing.T) {
	a := smallAgent(t, 17, nil)
	b := randomBatch(8, 3, 2, 10)
	b.Rewards[3] = float32(math.NaN())
	before := append([]float32(nil), a.q[0].Params...)
	_, err := a.Update(b)
	var de *DivergedError
	if !errors.As(err, &de) || de.What != "losses/qf1_loss" || de.Update != 0 {
		t.Fatalf("err = %v, want *DivergedError for losses/qf1_loss at update 0", err)
	}
	for i, v := range a.q[0].Params {
		if math.Float32bits(v) != math.Float32bits(before[i]) {
			t.Fatalf("critic weights changed despite divergence")
		}
	}
}

func sameParams(t *testing.T, x, y *Agent) {
	t.Helper()
	nx := []*nn.MLP{x.actor, x.q[0], x.q[1], x.qt[0], x.qt[1]}
	ny := []*nn.MLP{y.actor, y.q[0], y.q[1], y.qt[0], y.qt[1]}
	for k := range nx {
		for i := range nx[k].Params {
			if math.Float32bits(nx[k].Params[i]) != math.Float32bits(ny[k].Params[i]) {
				t.Fatalf("network %d param %d: %g vs %g", k, i, nx[k].Params[i], ny[k].Params[i])
			}
		}
	}
	if x.logAlpha[0] != y.logAlpha[0] || x.updates != y.updates {
		t.Fatalf("log α %g vs %g, updates %d vs %d", x.logAlpha[0], y.logAlpha[0], x.updates, y.updates)
	}
}

func TestCheckpointResumesBitIdentically(t *testing.T) {
	a := smallAgent(t, 18, func(c *Config) { c.ReLo = true })
	batches := []*replay.Batch{randomBatch(16, 3, 2, 20), randomBatch(16, 3, 2, 21), randomBatch(16, 3, 2, 22)}
	for u := 0; u < 5; u++ {
		if _, err := a.Update(batches[u%3]); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "agent.ckpt")
	if err := a.Save(path); err != nil {
		t.Fatal(err)
	}
	b, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	sameParams(t, a, b)
	obs := []float64{0.1, -0.2, 0.3}
	for u := 5; u < 12; u++ {
		ma, erra := a.Update(batches[u%3])
		mb, errb := b.Update(batches[u%3])
		if erra != nil || errb != nil {
			t.Fatal(erra, errb)
		}
		if ma != mb {
			t.Fatalf("update %d metrics differ after resume: %+v vs %+v", u, ma, mb)
		}
		da, db := make([]float64, 2), make([]float64, 2)
		a.Act(da, obs, false)
		b.Act(db, obs, false)
		if da[0] != db[0] || da[1] != db[1] {
			t.Fatalf("stochastic actions differ after resume: %v vs %v", da, db)
		}
	}
	sameParams(t, a, b)
}

func TestCorruptCheckpointRejected(t *testing.T) {
	a := smallAgent(t, 19, nil)
	data, err := a.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string][]byte{
		"truncated": data[:len(data)/2],
		"bitflip":   append(append([]byte(nil), data[:100]...), append([]byte{data[100] ^ 1}, data[101:]...)...),
	} {
		if _, err := Unmarshal(bad); !errors.Is(err, nn.ErrFormat) {
			t.Errorf("%s checkpoint: err = %v, want nn.ErrFormat", name, err)
		}
	}
}

func TestThreadsGiveIdenticalResults(t *testing.T) {
	a1 := smallAgent(t, 20, func(c *Config) { c.Threads = 1; c.ReLo = true })
	a2 := smallAgent(t, 20, func(c *Config) { c.Threads = 2; c.ReLo = true })
	b := randomBatch(32, 3, 2, 23)
	for u := 0; u < 6; u++ {
		m1, e1 := a1.Update(b)
		m2, e2 := a2.Update(b)
		if e1 != nil || e2 != nil || m1 != m2 {
			t.Fatalf("update %d: %+v %v vs %+v %v", u, m1, e1, m2, e2)
		}
	}
	sameParams(t, a1, a2)
}

func TestUpdateAndActDoNotAllocate(t *testing.T) {
	prev := nn.Backend()
	defer func() { _ = nn.SetBackend(prev) }()
	if err := nn.SetBackend("openblas"); err != nil {
		t.Skip("needs the OpenBLAS backend (gonum's parallel GEMM allocates):", err)
	}
	for _, threads := range []int{1, 2} {
		a := smallAgent(t, 21, func(c *Config) { c.Threads = threads; c.ReLo = true })
		b := randomBatch(64, 3, 2, 24)
		if _, err := a.Update(b); err != nil {
			t.Fatal(err)
		}
		obs, act := []float64{0.1, 0.2, 0.3}, make([]float64, 2)
		a.Act(act, obs, false)
		if n := testing.AllocsPerRun(10, func() {
			if _, err := a.Update(b); err != nil {
				t.Fatal(err)
			}
			a.Act(act, obs, false)
			a.Act(act, obs, true)
		}); n != 0 {
			t.Fatalf("threads %d: %v allocations per Update+Act", threads, n)
		}
	}
}

func TestAlphaMovesTowardTargetEntropy(t *testing.T) {
	// α rises when the policy's entropy is below −|A| and falls when above.
	// A fresh actor has σ ≈ e^{−1.5} per dimension, entropy well above −2,
	// so autotuning must lower α from 1.
	a := smallAgent(t, 22, nil)
	b := randomBatch(32, 3, 2, 25)
	for u := 0; u < 20; u++ {
		m, err := a.Update(b)
		if err != nil {
			t.Fatal(err)
		}
		if u == 0 && m.Entropy < -2 {
			t.Skipf("initial entropy %g already below the target", m.Entropy)
		}
	}
	if a.Alpha() >= 1 {
		t.Fatalf("α = %g after 20 updates with entropy above target, want < 1", a.Alpha())
	}
}

func TestConfigValidation(t *testing.T) {
	for _, c := range []struct {
		name string
		mod  func(*Config)
	}{
		{"gamma", func(c *Config) { c.Gamma = 1.5 }},
		{"logstd", func(c *Config) { c.LogStdMin, c.LogStdMax = 2, -5 }},
		{"threads", func(c *Config) { c.Threads = 3 }},
		{"hidden", func(c *Config) { c.Hidden = []int{0} }},
	} {
		cfg := DefaultConfig()
		c.mod(&cfg)
		if _, err := New(cfg, 3, 1); err == nil {
			t.Errorf("%s: New accepted an invalid config", c.name)
		}
	}
	if _, err := New(DefaultConfig(), 0, 1); err == nil {
		t.Error("New accepted obsDim 0")
	}
}

// ResetCritics re-draws the critics from New's distribution (U(±1/√fan_in)),
// makes the targets equal to them and clears their Adam state, and leaves
// the actor and α exactly as they were; updates continue normally.
func TestResetCriticsKeepsActor(t *testing.T) {
	a := smallAgent(t, 23, nil)
	b := randomBatch(16, 3, 2, 5)
	for range 5 {
		if _, err := a.Update(b); err != nil {
			t.Fatal(err)
		}
	}
	actor := append([]float32(nil), a.actor.Params...)
	alpha := a.Alpha()
	q0 := append([]float32(nil), a.q[0].Params...)
	a.ResetCritics()
	for i, v := range a.actor.Params {
		if v != actor[i] {
			t.Fatal("ResetCritics changed the actor")
		}
	}
	if a.Alpha() != alpha {
		t.Fatal("ResetCritics changed α")
	}
	same := 0
	for k := range a.q {
		if a.qOpt[k].T != 0 {
			t.Fatalf("critic %d optimiser step %d after reset", k, a.qOpt[k].T)
		}
		for i, v := range a.q[k].Params {
			if a.qt[k].Params[i] != v {
				t.Fatalf("target %d differs from its critic after reset", k)
			}
		}
		for _, l := range a.q[k].Layers {
			bound := float32(1 / math.Sqrt(float64(l.In)))
			for _, w := range append(append([]float32(nil), l.W...), l.B...) {
				if w < -bound || w > bound {
					t.Fatalf("critic %d weight %g outside ±%g", k, w, bound)
				}
			}
		}
	}
	for i, v := range a.q[0].Params {
		if v == q0[i] {
			same++
		}
	}
	if same > len(q0)/10 {
		t.Fatalf("%d of %d critic parameters unchanged by the reset", same, len(q0))
	}
	if _, err := a.Update(b); err != nil {
		t.Fatal(err)
	}
}
