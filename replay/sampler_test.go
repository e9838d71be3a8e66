package replay

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// chiAlpha is the significance level of the goodness-of-fit tests. Seeds are
// fixed, so a pass is deterministic; 1e-4 keeps a correct sampler from being
// rejected by an unlucky seed while a wrong target (checked below) is
// rejected with p-values near 0.
const chiAlpha = 1e-4

// chiSquareP returns the p-value of observed counts against expected
// probabilities (cells with zero expectation must have zero counts).
func chiSquareP(t *testing.T, counts []int, probs []float64) float64 {
	t.Helper()
	total := 0
	for _, c := range counts {
		total += c
	}
	stat, df := 0.0, -1
	for i, p := range probs {
		e := p * float64(total)
		if e == 0 {
			if counts[i] != 0 {
				t.Fatalf("cell %d has probability 0 but %d draws", i, counts[i])
			}
			continue
		}
		d := float64(counts[i]) - e
		stat += d * d / e
		df++
	}
	return 1 - distuv.ChiSquared{K: float64(df)}.CDF(stat)
}

// newTestBuffer makes a buffer with obs 3, act 2 and adds n transitions whose
// obs[0] is the insertion index, so a sampled row can be traced to its slot.
func newTestBuffer(t *testing.T, capacity, n int) (*Buffer, []Ref) {
	t.Helper()
	b, err := NewBuffer(Config{Capacity: capacity, ObsDim: 3, ActDim: 2})
	if err != nil {
		t.Fatal(err)
	}
	return b, addN(b, 0, n)
}

func addN(b *Buffer, from, n int) []Ref {
	refs := make([]Ref, n)
	for k := range n {
		i := float64(from + k)
		refs[k] = b.Add(Transition{
			Obs: []float64{i, 1, 2}, Action: []float64{-i, 0.5}, Reward: i / 10,
			NextObs: []float64{i + 1, 1, 2}, Terminated: (from+k)%5 == 4, Truncated: (from+k)%7 == 6,
			Env: int32((from + k) % 3), Episode: int64((from + k) / 10), Step: int32((from + k) % 10),
		})
	}
	return refs
}

// sampleCounts draws `batches` batches of size m and counts slots, checking
// that every row's data matches its Ref's slot.
func sampleCounts(t *testing.T, b *Buffer, s Sampler, batches, m int, seed uint64) []int {
	t.Helper()
	counts := make([]int, b.Cap())
	dst := NewBatch(m, 3, 2)
	rng := rand.New(rand.NewPCG(seed, seed+1))
	for range batches {
		if !s.Sample(dst, rng) {
			t.Fatal("Sample returned false on a non-empty buffer")
		}
		for r, ref := range dst.Refs {
			counts[ref.Slot]++
			if !b.Valid(ref) {
				t.Fatalf("row %d has stale ref %+v", r, ref)
			}
			if got := dst.Obs[r*3+1]; got != 1 || dst.NextObs[r*3]-dst.Obs[r*3] != 1 {
				t.Fatalf("row %d data does not belong together: obs %v next %v", r, dst.Obs[r*3:r*3+3], dst.NextObs[r*3:r*3+3])
			}
		}
	}
	return counts
}

func TestUniformChiSquare(t *testing.T) {
	t.Parallel()
	b, _ := newTestBuffer(t, 64, 40) // 40 valid of 64: N is the valid count
	counts := sampleCounts(t, b, NewUniform(b), 2000, 32, 1)
	probs := make([]float64, 64)
	for i := range 40 {
		probs[i] = 1.0 / 40
	}
	if p := chiSquareP(t, counts, probs); p < chiAlpha {
		t.Fatalf("uniform sampling rejected: p = %g", p)
	}
}

// perTarget is P(i) = (|δ_i|+ε)^α / Σ (|δ|+ε)^α.
func perTarget(td []float64, alpha, eps float64, capacity int) []float64 {
	probs := make([]float64, capacity)
	sum := 0.0
	for i, d := range td {
		probs[i] = math.Pow(math.Abs(d)+eps, alpha)
		sum += probs[i]
	}
	for i := range probs {
		probs[i] /= sum
	}
	return probs
}

func TestPERChiSquare(t *testing.T) {
	t.Parallel()
	for _, alpha := range []float64{0, 0.4, 0.6, 1} {
		t.Run(fmt.Sprintf("alpha=%v", alpha), func(t *testing.T) {
			t.Parallel()
			b, refs := newTestBuffer(t, 50, 50)
			s, err := NewPER(b, PERConfig{Alpha: alpha, Beta0: 0.4, BetaSteps: 100, Eps: 1e-3})
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(9, 9))
			td := make([]float64, len(refs))
			for i := range td {
				td[i] = rng.NormFloat64() * float64(1+i%5) // signed: PER uses |δ|
			}
			td[7] = 0 // ε keeps it reachable
			if got := s.UpdatePriorities(refs, td); got != len(refs) {
				t.Fatalf("applied %d of %d updates", got, len(refs))
			}
			counts := sampleCounts(t, b, s, 3000, 64, uint64(alpha*10)+2)
			if p := chiSquareP(t, counts, perTarget(td, alpha, 1e-3, 50)); p < chiAlpha {
				t.Fatalf("PER α=%v rejected: p = %g", alpha, p)
			}
			// power: the same counts must reject a wrong target.
			if alpha == 1 {
				if p := chiSquareP(t, counts, perTarget(td, 0.6, 1e-3, 50)); p > 1e-6 {
					t.Fatalf("test has no power: α=0.6 target accepted for α=1 draws (p = %g)", p)
				}
			}
		})
	}
}

// TestReLoPriority checks ReLo's priority is ReLU(x)+ε before the exponent.
func TestReLoPriority(t *testing.T) {
	t.Parallel()
	b, refs := newTestBuffer(t, 8, 4)
	s, err := NewReLo(b, DefaultReLoConfig())
	if err != nil {
		t.Fatal(err)
	}
	vals := []float64{-3, 0, 0.25, 4}
	s.UpdatePriorities(refs, vals)
	for k, ref := range refs {
		want := math.Sqrt(max(vals[k], 0) + 1e-5)                        // α = 0.5
		if got, _ := s.Leaf(ref); math.Abs(got-want) > leafRelTol*want { // leaves are float32
			t.Errorf("leaf for %v = %v, want %v", vals[k], got, want)
		}
	}
	counts := sampleCounts(t, b, s, 2000, 16, 3)
	probs := make([]float64, 8)
	sum := 0.0
	for k, v := range vals {
		probs[k] = math.Sqrt(max(v, 0) + 1e-5)
		sum += probs[k]
	}
	for k := range probs {
		probs[k] /= sum
	}
	if p := chiSquareP(t, counts, probs); p < chiAlpha {
		t.Fatalf("ReLo sampling rejected: p = %g", p)
	}
}

// TestPERNewAtMax checks new transitions enter at the running max priority.
func TestPERNewAtMax(t *testing.T) {
	t.Parallel()
	b, refs := newTestBuffer(t, 16, 2)
	s, err := NewPER(b, PERConfig{Alpha: 0.6, Beta0: 0.4, Eps: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	if l, _ := s.Leaf(refs[0]); l != 1 {
		t.Fatalf("first leaf %v, want 1 (max priority starts at 1)", l)
	}
	s.UpdatePriorities(refs, []float64{5, -0.1})
	nw := addN(b, 2, 1)[0]
	want := math.Pow(5+1e-6, 0.6)
	if l, _ := s.Leaf(nw); math.Abs(l-want) > leafRelTol*want { // leaves are float32
		t.Fatalf("new leaf %v, want running max %v", l, want)
	}
	s.UpdatePriorities(refs[:1], []float64{0.5}) // max is a running max: it does not fall
	if l, _ := s.Leaf(addN(b, 3, 1)[0]); math.Abs(l-want) > leafRelTol*want {
		t.Fatalf("new leaf after lowering %v, want %v", l, want)
	}
}

// TestPERWeights checks w_j = (N·P(i_j))^−β / max_k (N·P(i_k))^−β.
func TestPERWeights(t *testing.T) {
	t.Parallel()
	b, refs := newTestBuffer(t, 40, 30)
	s, err := NewPER(b, PERConfig{Alpha: 0.7, Beta0: 0.3, BetaSteps: 4, Eps: 1e-2})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 5))
	td := make([]float64, len(refs))
	for i := range td {
		td[i] = rng.ExpFloat64()
	}
	s.UpdatePriorities(refs, td)
	dst := NewBatch(16, 3, 2)
	for step := range 6 {
		beta := s.Beta()
		if want := min(1, 0.3+0.7*float64(step)/4); math.Abs(beta-want) > 1e-15 {
			t.Fatalf("β at step %d = %v, want %v", step, beta, want)
		}
		s.Sample(dst, rng)
		total := s.Total()
		w := make([]float64, dst.Len())
		wmax := 0.0
		for j, ref := range dst.Refs {
			leaf, _ := s.Leaf(ref)
			w[j] = math.Pow(30*leaf/total, -beta)
			wmax = max(wmax, w[j])
		}
		for j := range w {
			if got, want := float64(dst.Weights[j]), w[j]/wmax; math.Abs(got-want) > 1e-6*want {
				t.Fatalf("step %d weight %d = %v, want %v", step, j, got, want)
			}
		}
	}
}

func TestSchedules(t *testing.T) {
	t.Parallel()
	b, _ := newTestBuffer(t, 8, 8)
	cfg := DefaultVLMRBConfig()
	cfg.WarmupSteps, cfg.Beta0, cfg.BetaSteps = 100, 0.4, 10
	s, err := NewVLMRB(b, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		step         int64
		lambda, beta float64
	}{{0, 0, 0.4}, {5, 0.025, 0.7}, {10, 0.05, 1}, {50, 0.25, 1}, {100, 0.5, 1}, {1000, 0.5, 1}} {
		s.SetStep(c.step)
		if got := s.Lambda(); math.Abs(got-c.lambda) > 1e-15 {
			t.Errorf("λ at %d = %v, want %v", c.step, got, c.lambda)
		}
		if got := s.Beta(); math.Abs(got-c.beta) > 1e-15 {
			t.Errorf("β at %d = %v, want %v", c.step, got, c.beta)
		}
	}
	// Sample advances the clock by one.
	s.SetStep(0)
	dst := NewBatch(4, 3, 2)
	rng := rand.New(rand.NewPCG(1, 1))
	for range 3 {
		s.Sample(dst, rng)
	}
	if s.Step() != 3 {
		t.Fatalf("step after 3 samples = %d", s.Step())
	}
	if p, _ := NewPER(b, PERConfig{Alpha: 1, Beta0: 0.4, Eps: 1}); p.Beta() != 1 {
		t.Fatalf("BetaSteps 0 should mean β = 1, got %v", p.Beta())
	}
}

// mixtureTarget is q(i) = λ·p_i/Σp + (1−λ)/N over the first n slots.
func mixtureTarget(p []float64, lambda float64, capacity int) []float64 {
	n := len(p)
	sum := 0.0
	for _, v := range p {
		sum += v
	}
	q := make([]float64, capacity)
	for i, v := range p {
		q[i] = (1 - lambda) / float64(n)
		if sum > 0 {
			q[i] += lambda * v / sum
		} else {
			q[i] = 1 / float64(n)
		}
	}
	return q
}

func TestVLMRBMixtureChiSquare(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		lambda  float64
		mapping ScoreMapping
		useTD   bool
	}{
		{"lambda=0", 0, MapRaw, false},
		{"lambda=0.5/raw", 0.5, MapRaw, false},
		{"lambda=0.5/threshold", 0.5, MapThreshold, false},
		{"lambda=1/raw", 1, MapRaw, false},
		{"lambda=0.5/td", 0.5, MapRaw, true},
		{"lambda=1/td-threshold", 1, MapThreshold, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			const capacity, n = 64, 48
			b, refs := newTestBuffer(t, capacity, n)
			cfg := DefaultVLMRBConfig()
			cfg.LambdaMax, cfg.Mapping, cfg.UseTD, cfg.Default, cfg.Floor = c.lambda, c.mapping, c.useTD, 0.3, 0.02
			s, err := NewVLMRB(b, cfg)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(11, 12))
			pvlm := make([]float64, n)
			for i := range n {
				pvlm[i] = 0.3 // unscored: p̄
				if i%3 != 0 {
					sc := rng.Float64()
					if i%9 == 1 {
						sc = 0
					}
					if !s.SetScore(refs[i], sc) {
						t.Fatal("SetScore dropped a valid write")
					}
					pvlm[i] = max(sc, 0.02)
					if c.mapping == MapThreshold {
						pvlm[i] = 0.02
						if sc > 0.5 {
							pvlm[i] = 1
						}
					}
				}
			}
			p := pvlm
			if c.useTD {
				td := make([]float64, n)
				p = make([]float64, n)
				for i := range n {
					td[i] = rng.NormFloat64()
					p[i] = pvlm[i] * (math.Abs(td[i]) + 1e-6)
				}
				// the last 8 slots keep the TD placeholder (running max, 1
				// initially): update the others in two halves.
				s.UpdatePriorities(refs[:20], td[:20])
				s.UpdatePriorities(refs[20:40], td[20:40])
				for i := 40; i < n; i++ {
					p[i] = pvlm[i] // added before any update: TD placeholder 1
				}
			}
			counts := sampleCounts(t, b, s, 3000, 64, 13)
			if pv := chiSquareP(t, counts, mixtureTarget(p, c.lambda, capacity)); pv < chiAlpha {
				t.Fatalf("mixture rejected: p = %g", pv)
			}
			if c.lambda == 1 && !c.useTD {
				if pv := chiSquareP(t, counts, mixtureTarget(p, 0.5, capacity)); pv > 1e-6 {
					t.Fatalf("test has no power: λ=0.5 target accepted for λ=1 draws (p = %g)", pv)
				}
			}
		})
	}
}

// TestVLMRBWeights checks IS weights against the mixture probability.
func TestVLMRBWeights(t *testing.T) {
	t.Parallel()
	b, refs := newTestBuffer(t, 32, 32)
	cfg := DefaultVLMRBConfig()
	cfg.Mapping, cfg.ISWeights, cfg.Beta0, cfg.BetaSteps, cfg.WarmupSteps = MapRaw, true, 0.5, 3, 2
	s, err := NewVLMRB(b, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for i, ref := range refs {
		s.SetScore(ref, float64(i%4)/3)
	}
	dst := NewBatch(20, 3, 2)
	rng := rand.New(rand.NewPCG(2, 2))
	for step := range 5 {
		lambda, beta := s.Lambda(), s.Beta()
		s.Sample(dst, rng)
		total := s.Total()
		q := make([]float64, dst.Len())
		wmax := 0.0
		for j, ref := range dst.Refs {
			leaf, _ := s.Leaf(ref)
			q[j] = lambda*leaf/total + (1-lambda)/32
			wmax = max(wmax, math.Pow(32*q[j], -beta))
		}
		for j := range q {
			want := math.Pow(32*q[j], -beta) / wmax
			if got := float64(dst.Weights[j]); math.Abs(got-want) > 1e-6*want {
				t.Fatalf("step %d (λ %v β %v) weight %d = %v, want %v", step, lambda, beta, j, got, want)
			}
		}
	}
	// without ISWeights every weight is 1
	s2, _ := NewVLMRB(b, DefaultVLMRBConfig())
	s2.Sample(dst, rng)
	for _, w := range dst.Weights {
		if w != 1 {
			t.Fatalf("weight %v without ISWeights", w)
		}
	}
}

// TestVLMRBZeroMassFallsBackToUniform checks Σp = 0 samples uniformly and
// terminates.
func TestVLMRBZeroMassFallsBackToUniform(t *testing.T) {
	t.Parallel()
	b, refs := newTestBuffer(t, 30, 30)
	cfg := DefaultVLMRBConfig()
	cfg.LambdaMax, cfg.Default, cfg.Floor, cfg.Mapping, cfg.ISWeights = 1, 0, 0, MapRaw, true
	s, err := NewVLMRB(b, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if s.Total() != 0 {
		t.Fatalf("total %v with p̄ = 0", s.Total())
	}
	for _, r := range refs[:10] {
		s.SetScore(r, 0)
	}
	counts := sampleCounts(t, b, s, 1000, 30, 4)
	if p := chiSquareP(t, counts, mixtureTarget(make([]float64, 30), 1, 30)); p < chiAlpha {
		t.Fatalf("Σp = 0 fallback not uniform: p = %g", p)
	}
}

// TestStaleWritesDropped overwrites slots between taking a Ref and writing
// back through it.
func TestStaleWritesDropped(t *testing.T) {
	t.Parallel()
	b, refs := newTestBuffer(t, 10, 10)
	cfg := DefaultVLMRBConfig()
	cfg.UseTD = true
	v, _ := NewVLMRB(b, cfg)
	p, _ := NewPER(b, DefaultPERConfig())
	fresh := addN(b, 10, 3) // overwrites slots 0, 1, 2
	for k := range 3 {
		if refs[k].Slot != fresh[k].Slot || fresh[k].Gen != refs[k].Gen+1 {
			t.Fatalf("slot reuse: old %+v new %+v", refs[k], fresh[k])
		}
		if b.Valid(refs[k]) || !b.Valid(fresh[k]) {
			t.Fatal("Valid disagrees with generations")
		}
	}
	leafV, _ := v.Leaf(fresh[0])
	leafP, _ := p.Leaf(fresh[0])
	if v.SetScore(refs[0], 1) {
		t.Fatal("SetScore accepted a stale ref")
	}
	if n := v.UpdatePriorities(refs[:3], []float64{9, 9, 9}); n != 0 {
		t.Fatalf("VLMRB applied %d stale TD updates", n)
	}
	if n := p.UpdatePriorities(refs[:4], []float64{9, 9, 9, 9}); n != 1 {
		t.Fatalf("PER applied %d of 4 updates, want 1 (3 stale)", n)
	}
	if l, _ := v.Leaf(fresh[0]); l != leafV {
		t.Fatalf("stale score changed the new transition's leaf: %v → %v", leafV, l)
	}
	if l, _ := p.Leaf(fresh[0]); l != leafP {
		t.Fatalf("stale update changed the new transition's leaf: %v → %v", leafP, l)
	}
	if st := v.Stats(); st.Stale != 4 {
		t.Fatalf("VLMRB stale count %d, want 4", st.Stale)
	}
	if st := p.Stats(); st.Stale != 3 || st.Applied != 1 {
		t.Fatalf("PER stats %+v", st)
	}
	if _, ok := b.Meta(refs[0]); ok {
		t.Fatal("Meta accepted a stale ref")
	}
	if v.SetScore(Ref{}, 1) || v.SetScore(Ref{Slot: 99, Gen: 1}, 1) || v.SetScore(Ref{Slot: -1, Gen: 1}, 1) {
		t.Fatal("SetScore accepted a never-valid ref")
	}
}

// TestUnscoredKeepDefault checks unscored slots sit at p̄ whatever else is
// scored, and an overwritten scored slot returns to p̄.
func TestUnscoredKeepDefault(t *testing.T) {
	t.Parallel()
	b, refs := newTestBuffer(t, 6, 6)
	cfg := DefaultVLMRBConfig()
	cfg.Default, cfg.Alpha = 0.25, 0.5
	s, _ := NewVLMRB(b, cfg)
	pbar := math.Sqrt(0.25)
	for _, r := range refs {
		if l, _ := s.Leaf(r); l != pbar {
			t.Fatalf("new slot leaf %v, want p̄^α = %v", l, pbar)
		}
	}
	s.SetScore(refs[0], 0.9) // → 1
	s.SetScore(refs[1], 0.1) // → floor
	if l, _ := s.Leaf(refs[0]); l != 1 {
		t.Fatalf("scored 0.9 leaf %v, want 1", l)
	}
	if l, _ := s.Leaf(refs[1]); math.Abs(l-math.Sqrt(1e-3)) > leafRelTol*math.Sqrt(1e-3) {
		t.Fatalf("scored 0.1 leaf %v, want floor^α", l)
	}
	for _, r := range refs[2:] {
		if l, _ := s.Leaf(r); l != pbar {
			t.Fatalf("unscored leaf %v after others were scored, want %v", l, pbar)
		}
		if _, scored, _ := s.Score(r); scored {
			t.Fatal("unscored slot reports a score")
		}
	}
	if st := s.Stats(); st.Scored != 2 {
		t.Fatalf("scored count %d, want 2", st.Scored)
	}
	nw := addN(b, 6, 1)[0] // overwrites slot 0, which was scored
	if l, _ := s.Leaf(nw); l != pbar {
		t.Fatalf("overwritten scored slot leaf %v, want p̄", l)
	}
	if st := s.Stats(); st.Scored != 1 {
		t.Fatalf("scored count after overwrite %d, want 1", st.Scored)
	}
	if s.SetScore(refs[2], math.NaN()) || s.SetScore(refs[2], -1) || s.SetScore(refs[2], math.Inf(1)) {
		t.Fatal("SetScore accepted a non-finite or negative score")
	}
}

// TestEmptyBuffer checks samplers report an empty buffer instead of looping.
func TestEmptyBuffer(t *testing.T) {
	t.Parallel()
	b, _ := newTestBuffer(t, 4, 0)
	p, _ := NewPER(b, DefaultPERConfig())
	v, _ := NewVLMRB(b, DefaultVLMRBConfig())
	dst := NewBatch(2, 3, 2)
	rng := rand.New(rand.NewPCG(1, 1))
	for _, s := range []Sampler{NewUniform(b), p, v} {
		if s.Sample(dst, rng) {
			t.Fatalf("%T sampled from an empty buffer", s)
		}
	}
}

// TestZeroAllocs checks the hot paths allocate nothing after warm-up.
func TestZeroAllocs(t *testing.T) {
	b, refs := newTestBuffer(t, 1000, 1000)
	p, _ := NewPER(b, DefaultPERConfig())
	cfg := DefaultVLMRBConfig()
	cfg.UseTD, cfg.ISWeights = true, true
	v, _ := NewVLMRB(b, cfg)
	dst := NewBatch(64, 3, 2)
	rng := rand.New(rand.NewPCG(1, 1))
	vals := make([]float64, 64)
	tr := Transition{Obs: make([]float64, 3), Action: make([]float64, 2), NextObs: make([]float64, 3)}
	for _, s := range []Sampler{NewUniform(b), p, v} {
		s.Sample(dst, rng) // warm-up
		s.UpdatePriorities(refs[:64], vals)
		if a := testing.AllocsPerRun(50, func() { s.Sample(dst, rng) }); a != 0 {
			t.Errorf("%T.Sample allocates %v", s, a)
		}
		if a := testing.AllocsPerRun(50, func() { s.UpdatePriorities(dst.Refs, vals) }); a != 0 {
			t.Errorf("%T.UpdatePriorities allocates %v", s, a)
		}
	}
	if a := testing.AllocsPerRun(50, func() { v.SetScore(refs[999], 0.7) }); a != 0 {
		t.Errorf("SetScore allocates %v", a)
	}
	if a := testing.AllocsPerRun(50, func() { b.Add(tr) }); a != 0 {
		t.Errorf("Add allocates %v", a)
	}
}

func TestConfigErrors(t *testing.T) {
	t.Parallel()
	if _, err := NewBuffer(Config{Capacity: 0, ObsDim: 1, ActDim: 1}); err == nil {
		t.Error("zero capacity accepted")
	}
	b, _ := newTestBuffer(t, 4, 0)
	for _, c := range []PERConfig{{Alpha: -1, Eps: 1}, {Alpha: 1, Beta0: 2, Eps: 1}, {Alpha: 1, Eps: 0}, {Alpha: math.NaN(), Eps: 1}} {
		if _, err := NewPER(b, c); err == nil {
			t.Errorf("PER config %+v accepted", c)
		}
	}
	bad := DefaultVLMRBConfig()
	bad.LambdaMax = 1.5
	if _, err := NewVLMRB(b, bad); err == nil {
		t.Error("λ_max 1.5 accepted")
	}
	bad = DefaultVLMRBConfig()
	bad.Default = -1
	if _, err := NewVLMRB(b, bad); err == nil {
		t.Error("negative p̄ accepted")
	}
}

// TestHugeValuesStayFinite checks a diverging critic's |δ| and absurd scores
// are capped so the tree total stays finite and sampling works.
func TestHugeValuesStayFinite(t *testing.T) {
	t.Parallel()
	b, refs := newTestBuffer(t, 8, 8)
	p, _ := NewPER(b, PERConfig{Alpha: 1, Beta0: 0.4, Eps: 1e-6})
	cfg := DefaultVLMRBConfig()
	cfg.UseTD, cfg.Mapping, cfg.ISWeights = true, MapRaw, true
	v, _ := NewVLMRB(b, cfg)
	huge := []float64{1e300, -1e300, math.MaxFloat64, 1e40, 1, 2, 3, 4}
	p.UpdatePriorities(refs, huge)
	v.UpdatePriorities(refs, huge)
	for _, r := range refs {
		v.SetScore(r, 1e300)
	}
	for _, s := range []*prioBase{&p.prioBase, &v.prioBase} {
		if tot := s.Total(); math.IsInf(tot, 0) || math.IsNaN(tot) {
			t.Fatalf("total %v", tot)
		}
	}
	dst := NewBatch(16, 3, 2)
	rng := rand.New(rand.NewPCG(1, 1))
	for _, s := range []Sampler{p, v} {
		s.Sample(dst, rng)
		for _, w := range dst.Weights {
			if !(w > 0 && w <= 1) {
				t.Fatalf("%T weight %v", s, w)
			}
		}
	}
}

// TestLargeBufferPaths exercises the cache-miss touch passes, which only
// run on buffers and trees larger than the caches (the other tests' buffers
// are small): sampled rows must still match their refs, weights stay in
// (0, 1], and stale refs are still dropped.
func TestLargeBufferPaths(t *testing.T) {
	t.Parallel()
	const capacity, od, ad = 70_000, 39, 4
	b, err := NewBuffer(Config{Capacity: capacity, ObsDim: od, ActDim: ad})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := NewPER(b, DefaultPERConfig())
	cfg := DefaultVLMRBConfig()
	cfg.UseTD, cfg.ISWeights = true, true
	v, _ := NewVLMRB(b, cfg)
	obs, next, act := make([]float64, od), make([]float64, od), make([]float64, ad)
	var first Ref
	for k := range capacity + 100 { // wraps: the first 100 slots are rewritten
		obs[0], obs[od-1], next[0], act[ad-1] = float64(k), -float64(k), float64(k+1), float64(k%7)
		r := b.Add(Transition{Obs: obs, NextObs: next, Action: act, Reward: float64(k)})
		if k == 0 {
			first = r
		}
	}
	if len(b.obs) < touchFloats || len(p.tree.leaf) < touchLeaves {
		t.Fatal("buffer too small to reach the touch passes")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	dst := NewBatch(256, od, ad)
	vals := make([]float64, 256)
	for _, s := range []Sampler{NewUniform(b), p, v} {
		for range 20 {
			if !s.Sample(dst, rng) {
				t.Fatal("empty")
			}
			for r, ref := range dst.Refs {
				k := dst.Obs[r*od]
				if dst.Obs[r*od+od-1] != -k || dst.NextObs[r*od] != k+1 || dst.Rewards[r] != k ||
					dst.Actions[r*ad+ad-1] != float32(int(k)%7) || int(k)%capacity != int(ref.Slot) {
					t.Fatalf("%T row %d (slot %d) holds transition %v inconsistently", s, r, ref.Slot, k)
				}
				if w := dst.Weights[r]; !(w > 0 && w <= 1) {
					t.Fatalf("%T weight %v", s, w)
				}
			}
			for j := range vals {
				vals[j] = rng.NormFloat64()
			}
			refs := append([]Ref(nil), dst.Refs...)
			refs[0] = first       // stale
			want := len(refs) - 1 // no Adds since sampling: only refs[0] is stale
			if _, ok := s.(*Uniform); ok {
				want = 0
			}
			if n := s.UpdatePriorities(refs, vals); n != want {
				t.Fatalf("%T applied %d updates, want %d", s, n, want)
			}
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	checkTree(t, p.tree)
	checkTree(t, v.tree)
}

// TestBytesPerSlot checks the samplers' reported memory against the tree
// layout: float32 leaves, two float64 arrays (values, prefix sums) per level
// above them, each level 1/16 of the one below, plus 4-byte stamps per group
// above the leaf level.
func TestBytesPerSlot(t *testing.T) {
	t.Parallel()
	b, _ := newTestBuffer(t, 1<<16, 0) // 65536 = 16⁴: levels 65536, 4096, 256, 16
	p, _ := NewPER(b, DefaultPERConfig())
	cfg := DefaultVLMRBConfig()
	cfg.UseTD = true
	v, _ := NewVLMRB(b, cfg)
	upper := 4096.0 + 256 + 16
	want := (4*65536 + 16*upper + 4*upper/16) / 65536
	if got := p.BytesPerSlot(); math.Abs(got-want) > 1e-12 {
		t.Fatalf("PER BytesPerSlot %v, want %v", got, want)
	}
	if got := v.BytesPerSlot(); math.Abs(got-(want+9)) > 1e-12 {
		t.Fatalf("VLMRB BytesPerSlot %v, want %v", got, want+9)
	}
}

// TestSetScoresMatchesSetScore writes the same scores one at a time into one
// sampler and as a batch into another: leaves, ok flags and stats must agree,
// and stale or invalid entries in the batch are dropped individually.
func TestSetScoresMatchesSetScore(t *testing.T) {
	t.Parallel()
	b1, refs1 := newTestBuffer(t, 8, 8)
	b2, refs2 := newTestBuffer(t, 8, 8)
	one, _ := NewVLMRB(b1, DefaultVLMRBConfig())
	batch, _ := NewVLMRB(b2, DefaultVLMRBConfig())
	addN(b1, 8, 2) // slots 0 and 1 are overwritten: refs[0], refs[1] go stale
	addN(b2, 8, 2)
	scores := []float64{0.9, 0.1, 0.7, math.NaN(), 0.2, 0.8, -1, 0.6}
	ok := make([]bool, len(scores))
	batch.SetScores(refs2, scores, ok)
	for i, r := range refs1 {
		if want := one.SetScore(r, scores[i]); ok[i] != want {
			t.Fatalf("ref %d: SetScores ok=%v, SetScore %v", i, ok[i], want)
		}
	}
	for i := range refs1 {
		l1, _ := one.Leaf(Ref{Slot: refs1[i].Slot, Gen: refs1[i].Gen})
		l2, _ := batch.Leaf(Ref{Slot: refs2[i].Slot, Gen: refs2[i].Gen})
		if l1 != l2 {
			t.Fatalf("slot %d leaf %v (single) vs %v (batch)", i, l1, l2)
		}
	}
	if s1, s2 := one.Stats(), batch.Stats(); s1 != s2 {
		t.Fatalf("stats differ: single %+v, batch %+v", s1, s2)
	}
	if st := batch.Stats(); st.Stale != 2 || st.Rejected != 2 || st.Applied != 4 {
		t.Fatalf("stats %+v, want 2 stale, 2 rejected, 4 applied", st)
	}
}

// TestScoreMappingText: the mappings read and write themselves as the
// names train's buffer.score_map uses, and refuse other text and values.
func TestScoreMappingText(t *testing.T) {
	for _, m := range []ScoreMapping{MapThreshold, MapRaw} {
		b, err := m.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back ScoreMapping
		if err := back.UnmarshalText(b); err != nil || back != m {
			t.Errorf("%v: text %q reads back as %v (%v)", m, b, back, err)
		}
	}
	var m ScoreMapping
	if err := m.UnmarshalText([]byte("linear")); err == nil {
		t.Error("linear: no error")
	}
	if _, err := ScoreMapping(7).MarshalText(); err == nil {
		t.Error("ScoreMapping(7): no error")
	}
}
