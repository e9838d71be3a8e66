package dqn

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/vlmrb/vlmrb/nn"
	"github.com/vlmrb/vlmrb/replay"
)

// randomBatch fills a batch of n transitions with obs in [−1, 1], action
// indices, rewards in [0, 1], about a quarter terminal, random weights.
func randomBatch(n, obsDim, nActions int, seed uint64) *replay.Batch {
	rng := rand.New(rand.NewPCG(seed, 3))
	b := replay.NewBatch(n, obsDim, 1)
	for i := range b.Obs {
		b.Obs[i] = float32(2*rng.Float64() - 1)
		b.NextObs[i] = float32(2*rng.Float64() - 1)
	}
	for i := range n {
		b.Actions[i] = float32(rng.IntN(nActions))
		b.Rewards[i] = float32(rng.Float64())
		if rng.IntN(4) == 0 {
			b.Terminated[i] = 1
		}
		b.Weights[i] = float32(0.5 + rng.Float64())
	}
	return b
}

// denseInput one-hot encodes obs densely (the reference for the sparse
// rows): element j of width w > 0 sets input catOff[j] + clamp(round(v)).
func denseInput(a *Agent, obs []float32) []float32 {
	x := make([]float32, a.inDim)
	for j, v := range obs {
		if len(a.cfg.Categorical) > 0 && a.cfg.Categorical[j] > 0 {
			k := min(max(int(math.Round(float64(v))), 0), a.cfg.Categorical[j]-1)
			x[a.catOff[j]+k] = 1
		} else {
			x[a.catOff[j]] = v
		}
	}
	return x
}

// forward runs net densely (first layer as a GEMM, ReLU, the rest) on one
// observation and returns its outputs as float64.
func forward(a *Agent, net qnet, obs []float32) []float64 {
	h := net.first.Forward(net.first.NewTape(1), denseInput(a, obs), 1)
	hr := make([]float32, len(h))
	for i, v := range h {
		hr[i] = max(v, 0)
	}
	out := net.rest.Forward(net.rest.NewTape(1), hr, 1)
	r := make([]float64, len(out))
	for i, v := range out {
		r[i] = float64(v)
	}
	return r
}

func argmax64(q []float64) int {
	best := 0
	for k := range q {
		if q[k] > q[best] {
			best = k
		}
	}
	return best
}

// expected recomputes y, δ and the weighted Huber loss of a batch from the
// networks, independently of Update's code path.
func expected(a *Agent, online, target qnet, b *replay.Batch, double bool) (y, td []float64, loss float64) {
	n, O := b.Len(), a.obsDim
	gamma := math.Pow(a.cfg.Gamma, float64(a.cfg.NStep))
	for i := range n {
		sn := b.NextObs[i*O : (i+1)*O]
		qt := forward(a, target, sn)
		var next float64
		if double {
			next = qt[argmax64(forward(a, online, sn))]
		} else {
			next = qt[argmax64(qt)]
		}
		yi := float64(b.Rewards[i]) + gamma*(1-float64(b.Terminated[i]))*next
		qa := forward(a, online, b.Obs[i*O:(i+1)*O])[int(b.Actions[i])]
		d := qa - yi
		l := 0.5 * d * d
		if math.Abs(d) > a.cfg.HuberDelta {
			l = a.cfg.HuberDelta * (math.Abs(d) - 0.5*a.cfg.HuberDelta)
		}
		y, td = append(y, yi), append(td, math.Abs(d))
		loss += float64(b.Weights[i]) * l
	}
	return y, td, loss / float64(n)
}

const (
	tolF32 = 2e-5 // float32 forward passes of small nets agree to this relative error
	tolFD  = 2e-2 // central differences in float32 with h = 2e-3
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol*(1+math.Abs(b)) }

func TestUpdateTargetsAndLoss(t *testing.T) {
	t.Parallel()
	for _, double := range []bool{true, false} {
		cfg := DefaultConfig()
		cfg.Hidden, cfg.Double, cfg.Seed, cfg.NStep, cfg.HuberDelta = []int{16, 16}, double, 3, 3, 0.5
		a, err := New(cfg, 5, 4)
		if err != nil {
			t.Fatal(err)
		}
		// make the target differ from the online net
		initNet(a.qt, 9)
		b := randomBatch(32, 5, 4, 1)
		online, target := a.q.clone(), a.qt.clone()
		y, td, loss := expected(a, online, target, b, double)
		m, err := a.Update(b)
		if err != nil {
			t.Fatal(err)
		}
		if !near(m.TDLoss, loss, tolF32) {
			t.Errorf("double=%v: td_loss %g, recomputed %g", double, m.TDLoss, loss)
		}
		for i, v := range a.TDErrors() {
			if !near(float64(v), td[i], tolF32) {
				t.Fatalf("double=%v: |δ_%d| = %g, recomputed %g (y %g)", double, i, v, td[i], y[i])
			}
		}
	}
}

// TestGradientMatchesFiniteDifferences checks Update's gradient (left in
// the online net's Grads) against central differences of the weighted
// Huber loss with the targets held fixed, as the semi-gradient defines it.
func TestGradientMatchesFiniteDifferences(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	cfg.Hidden, cfg.Seed, cfg.HuberDelta = []int{8}, 5, 0.3
	cfg.MaxGradNorm = -1
	a, err := New(cfg, 3, 3)
	if err != nil {
		t.Fatal(err)
	}
	b := randomBatch(16, 3, 3, 2)
	before := a.q.clone()
	if _, err := a.Update(b); err != nil {
		t.Fatal(err)
	}
	y, _, _ := expected(a, before, a.qt, b, true) // target unchanged (TargetFrequency 1000)
	lossAt := func(net qnet) float64 {
		l := 0.0
		for i := range b.Len() {
			d := forward(a, net, b.Obs[i*3:(i+1)*3])[int(b.Actions[i])] - y[i]
			if math.Abs(d) > cfg.HuberDelta {
				l += float64(b.Weights[i]) * cfg.HuberDelta * (math.Abs(d) - 0.5*cfg.HuberDelta)
			} else {
				l += float64(b.Weights[i]) * 0.5 * d * d
			}
		}
		return l / float64(b.Len())
	}
	const h = 2e-3
	for part := range 2 {
		params := func(q qnet) []float32 { return [2]*nn.MLP{q.first, q.rest}[part].Params }
		grads := [2]*nn.MLP{a.q.first, a.q.rest}[part].Grads
		n := len(params(before))
		for _, p := range []int{0, 5, 17, n - 1, n - 4, n / 2} {
			plus, minus := before.clone(), before.clone()
			params(plus)[p] += h
			params(minus)[p] -= h
			fd := (lossAt(plus) - lossAt(minus)) / (2 * h)
			if got := float64(grads[p]); math.Abs(got-fd) > tolFD*(math.Abs(fd)+1e-2) {
				t.Errorf("part %d param %d: gradient %g, finite difference %g", part, p, got, fd)
			}
		}
	}
}

func TestReLoScores(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	cfg.Hidden, cfg.Seed, cfg.ReLo = []int{16}, 4, true
	a, err := New(cfg, 4, 3)
	if err != nil {
		t.Fatal(err)
	}
	initNet(a.qt, 1)
	b := randomBatch(20, 4, 3, 5)
	online, target := a.q.clone(), a.qt.clone()
	y, _, _ := expected(a, online, target, b, true)
	if _, err := a.Update(b); err != nil {
		t.Fatal(err)
	}
	hub := func(d float64) float64 {
		if math.Abs(d) > 1 {
			return math.Abs(d) - 0.5
		}
		return 0.5 * d * d
	}
	for i, got := range a.ReLoScores() {
		s := b.Obs[i*4 : (i+1)*4]
		k := int(b.Actions[i])
		want := hub(forward(a, online, s)[k]-y[i]) - hub(forward(a, target, s)[k]-y[i])
		if !near(float64(got), want, 1e-4) {
			t.Fatalf("ReLo score %d = %g, want %g", i, got, want)
		}
	}
}

func TestTargetUpdateFrequency(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	cfg.Hidden, cfg.TargetFrequency, cfg.LR = []int{8}, 3, 1e-2
	a, err := New(cfg, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	b := randomBatch(8, 2, 2, 1)
	same := func() bool {
		return string(f32bytes(a.q.first.Params)) == string(f32bytes(a.qt.first.Params)) &&
			string(f32bytes(a.q.rest.Params)) == string(f32bytes(a.qt.rest.Params))
	}
	for u := 1; u <= 6; u++ {
		if _, err := a.Update(b); err != nil {
			t.Fatal(err)
		}
		// hard copy after updates 3 and 6 only
		if got, want := same(), u%3 == 0; got != want {
			t.Fatalf("after update %d: target equals online = %v, want %v", u, got, want)
		}
	}
}

// initNet redraws both parts of a network from a fresh seeded stream.
func initNet(q qnet, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, seed))
	q.first.Init(rng)
	q.rest.Init(rng)
}

func f32bytes(v []float32) []byte {
	b := make([]byte, 0, 4*len(v))
	for _, x := range v {
		u := math.Float32bits(x)
		b = append(b, byte(u), byte(u>>8), byte(u>>16), byte(u>>24))
	}
	return b
}

func TestEpsilonSchedule(t *testing.T) {
	t.Parallel()
	c := Config{EpsStart: 1, EpsEnd: 0.1, EpsDecaySteps: 100, LearningStarts: 50}
	for _, tc := range []struct {
		step int64
		want float64
	}{{0, 1}, {50, 1}, {100, 0.55}, {150, 0.1}, {1000, 0.1}} {
		if got := c.Epsilon(tc.step); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("Epsilon(%d) = %g, want %g", tc.step, got, tc.want)
		}
	}
}

func TestCategoricalEncoding(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	cfg.Categorical = []int{3, 0, 2}
	a, err := New(cfg, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	if a.InputDim() != 6 {
		t.Fatalf("input width %d, want 3+1+2", a.InputDim())
	}
	var x sparseRows
	a.encode(&x, []float32{2, 0.25, 1, 7, -1, -3}, 2) // out-of-range codes clamp
	// rows: element 0 → 0..2, element 1 → 3 (pass-through), element 2 → 4..5
	wantRow := []int32{2, 3, 5, 2, 3, 4}
	wantVal := []float32{1, 0.25, 1, 1, -1, 1}
	for i := range wantRow {
		if x.row[i] != wantRow[i] || x.val[i] != wantVal[i] {
			t.Fatalf("encoded rows %v values %v, want %v %v", x.row, x.val, wantRow, wantVal)
		}
	}
	if _, err := New(Config{Categorical: []int{2}}, 3, 2); err == nil {
		t.Fatal("Categorical of the wrong length accepted")
	}
}

func TestCheckpointResumesBitIdentically(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	cfg.Hidden, cfg.Seed, cfg.TargetFrequency = []int{16}, 8, 2
	a, err := New(cfg, 4, 3)
	if err != nil {
		t.Fatal(err)
	}
	for s := range uint64(3) {
		if _, err := a.Update(randomBatch(16, 4, 3, s)); err != nil {
			t.Fatal(err)
		}
	}
	data, err := a.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	c, err := Unmarshal(data)
	if err != nil {
		t.Fatal(err)
	}
	b := randomBatch(16, 4, 3, 99)
	m1, _ := a.Update(b)
	m2, _ := c.Update(b)
	if m1 != m2 || string(f32bytes(a.q.rest.Params)) != string(f32bytes(c.q.rest.Params)) || string(f32bytes(a.q.first.Params)) != string(f32bytes(c.q.first.Params)) {
		t.Fatalf("resumed agent differs: %+v vs %+v", m1, m2)
	}
	obs := []float64{0.1, -0.2, 0.3, 0.9}
	d1, d2 := []float64{0}, []float64{0}
	for range 20 {
		a.Act(d1, obs, 0.5)
		c.Act(d2, obs, 0.5)
		if d1[0] != d2[0] {
			t.Fatal("resumed agent's exploration stream differs")
		}
	}
	data[len(data)/2] ^= 0xff
	if _, err := Unmarshal(data); !errors.Is(err, nn.ErrFormat) {
		t.Fatalf("corrupted checkpoint: err %v, want nn.ErrFormat", err)
	}
}

// TestLearnsChain trains on a deterministic chain of 6 states with uniform
// replay: action 1 moves right, action 0 resets to state 0; reaching the
// last state pays 1 and ends the episode. The optimal greedy policy
// always moves right, and Q*(s, right) = γ^(4−s) for s < 5.
func TestLearnsChain(t *testing.T) {
	t.Parallel()
	const states, gamma = 6, 0.9
	cfg := DefaultConfig()
	cfg.Hidden, cfg.Seed, cfg.Gamma, cfg.LR, cfg.TargetFrequency, cfg.BatchSize = []int{32}, 1, gamma, 1e-3, 50, 32
	cfg.Categorical = []int{states}
	a, err := New(cfg, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	buf, err := replay.NewBuffer(replay.Config{Capacity: 5000, ObsDim: 1, ActDim: 1})
	if err != nil {
		t.Fatal(err)
	}
	smp := replay.NewUniform(buf)
	rng := rand.New(rand.NewPCG(2, 2))
	batch := replay.NewBatch(cfg.BatchSize, 1, 1)
	s, ep := 0, int64(0)
	for step := range 4000 {
		act := rng.IntN(2) // fully exploratory data; Q-learning is off-policy
		next, r, term := 0, 0.0, false
		if act == 1 {
			next = s + 1
		}
		if next == states-1 {
			r, term = 1, true
		}
		buf.Add(replay.Transition{Obs: []float64{float64(s)}, Action: []float64{float64(act)}, Reward: r,
			NextObs: []float64{float64(next)}, Terminated: term, Episode: ep, Step: int32(step)})
		s = next
		if term {
			s, ep = 0, ep+1
		}
		if step >= 200 && smp.Sample(batch, rng) {
			if _, err := a.Update(batch); err != nil {
				t.Fatal(err)
			}
		}
	}
	q := make([]float64, 2)
	for s := range states - 1 {
		a.QValues(q, []float64{float64(s)})
		want := math.Pow(gamma, float64(states-2-s))
		if a.Greedy([]float64{float64(s)}) != 1 || math.Abs(q[1]-want) > 0.05 {
			t.Errorf("state %d: Q = %v, greedy %d; want right with Q ≈ %.3f", s, q, a.Greedy([]float64{float64(s)}), want)
		}
	}
}

func TestUpdateAndActDoNotAllocate(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Hidden, cfg.Categorical, cfg.ReLo = []int{16, 16}, []int{5, 0, 3}, true
	a, err := New(cfg, 3, 4)
	if err != nil {
		t.Fatal(err)
	}
	b := randomBatch(32, 3, 4, 1)
	if _, err := a.Update(b); err != nil {
		t.Fatal(err)
	}
	obs, dst := []float64{2, 0.5, 1}, []float64{0}
	a.Act(dst, obs, 0.1)
	if n := testing.AllocsPerRun(20, func() { _, _ = a.Update(b) }); n != 0 {
		t.Errorf("Update allocates %.0f times", n)
	}
	if n := testing.AllocsPerRun(20, func() { a.Act(dst, obs, 0.1) }); n != 0 {
		t.Errorf("Act allocates %.0f times", n)
	}
}
