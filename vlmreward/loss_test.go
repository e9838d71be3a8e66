package vlmreward

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// The 4-sample, 2-class example worked by hand: r = (0, 1, 0.25, 0.75),
// labels (0, 1, 0, 1). Normalised R̃ ≈ r; counts (2, 2) put R̄_1 at the
// second smallest R̃ = 0.25, so R̄ = (0, 0.25, 1) and, with k = 30,
// Q(x) = (−30x(x−¼), −30(x−¼)(x−1)):
//
//	x=0:    Q = (0, −7.5)     P(0) = σ(7.5)   MAE term 2σ(−7.5)
//	x=1:    Q = (−22.5, 0)    P(1) = σ(22.5)  MAE term 2σ(−22.5)
//	x=¼:    Q = (0, 0)        P = (½, ½)      MAE term 1 (label 0)
//	x=¾:    Q = (−11.25, 3.75) P(1) = σ(15)   MAE term 2σ(−15)
func TestRatingLossHandExample(t *testing.T) {
	r := []float64{0, 1, 0.25, 0.75}
	y := []int{0, 1, 0, 1}
	terms := []float64{2 * sigmoid(-7.5), 2 * sigmoid(-22.5), 1, 2 * sigmoid(-15)}
	ceTerms := []float64{-math.Log(sigmoid(7.5)), -math.Log(sigmoid(22.5)), math.Log(2), -math.Log(sigmoid(15))}

	bd, src := make([]float64, 3), make([]int, 3)
	norm := []float64{0, 1, 0.25, 0.75}
	Boundaries(norm, y, 2, bd, src)
	if bd[0] != 0 || bd[1] != 0.25 || bd[2] != 1 || src[1] != 2 {
		t.Fatalf("boundaries %v src %v, want (0, 0.25, 1) from sample 2", bd, src)
	}

	w := ClassWeights([]int{3, 1}) // (1/4, 3/4) / (1/4) = (1, 3)
	if w[0] != 1 || w[1] != 3 {
		t.Fatalf("class weights %v, want [1 3]", w)
	}
	for _, tc := range []struct {
		name string
		kind LossKind
		w    []float64
		want float64
	}{
		{"mae", LossMAE, nil, (terms[0] + terms[1] + terms[2] + terms[3]) / 4},
		{"mae-weighted", LossMAE, w, (terms[0] + 3*terms[1] + terms[2] + 3*terms[3]) / 8},
		{"ce", LossCE, nil, (ceTerms[0] + ceTerms[1] + ceTerms[2] + ceTerms[3]) / 4},
		{"ce-weighted", LossCE, w, (ceTerms[0] + 3*ceTerms[1] + ceTerms[2] + 3*ceTerms[3]) / 8},
	} {
		got, correct := RatingLoss(r, y, 2, 30, tc.w, tc.kind, nil)
		// R̃ is divided by 1 + 1e-6, so values move by ≤ 1e-6 relative.
		if math.Abs(got-tc.want) > 1e-4*max(1, tc.want) {
			t.Errorf("%s: loss %.8f, want %.8f", tc.name, got, tc.want)
		}
		if correct != 4 { // the tie at x = ¼ goes to class 0, the label
			t.Errorf("%s: %d correct, want 4", tc.name, correct)
		}
	}
}

func TestBoundariesAbsentClasses(t *testing.T) {
	norm := []float64{0.9, 0.1, 0.5, 0.3}
	for _, tc := range []struct {
		labels []int
		want   []float64
	}{
		{[]int{2, 2, 2, 2}, []float64{0, 0, 0, 1}},     // classes 0 and 1 absent: c_1 = c_2 = 0 → 0
		{[]int{0, 0, 2, 2}, []float64{0, 0.3, 0.3, 1}}, // class 1 absent: R̄_2 repeats R̄_1
		{[]int{1, 1, 2, 2}, []float64{0, 0, 0.3, 1}},   // class 0 absent: R̄_1 = 0
		{[]int{0, 1, 2, 0}, []float64{0, 0.3, 0.5, 1}}, // all present: sorted (0.1 0.3 0.5 0.9), c = 2, 3
		{[]int{0, 0, 0, 0}, []float64{0, 0.9, 0.9, 1}}, // only the worst class: both at the max
	} {
		bd, src := make([]float64, 4), make([]int, 4)
		Boundaries(norm, tc.labels, 3, bd, src)
		for j := range bd {
			if bd[j] != tc.want[j] {
				t.Errorf("labels %v: boundaries %v, want %v", tc.labels, bd, tc.want)
				break
			}
		}
	}
}

func TestClassWeights(t *testing.T) {
	for _, tc := range []struct {
		counts []int
		want   []float64
	}{
		{[]int{5, 3, 2}, []float64{1, 1.4, 1.6}}, // (.5 .7 .8)/.5
		{[]int{0, 4}, []float64{1, 1}},
		{[]int{2, 2}, []float64{1, 1}},
		{[]int{1, 9}, []float64{9, 1}},
	} {
		got := ClassWeights(tc.counts)
		for i := range got {
			if math.Abs(got[i]-tc.want[i]) > 1e-12 {
				t.Errorf("counts %v: weights %v, want %v", tc.counts, got, tc.want)
				break
			}
		}
	}
}

// The analytic gradient (through the min, the max and the boundary
// elements) matches central differences.
func TestRatingLossGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, kind := range []LossKind{LossMAE, LossCE} {
		for trial := 0; trial < 5; trial++ {
			n := 2 + trial%3
			B := 12
			r := make([]float64, B)
			y := make([]int, B)
			for i := range r {
				r[i] = 2*rng.Float64() - 1
				y[i] = rng.IntN(n)
			}
			w := ClassWeights([]int{3, 5, 2, 7, 1}[:n])
			g := make([]float64, B)
			RatingLoss(r, y, n, 30, w, kind, g)
			for i := range r {
				const h = 1e-7
				old := r[i]
				r[i] = old + h
				lp, _ := RatingLoss(r, y, n, 30, w, kind, nil)
				r[i] = old - h
				lm, _ := RatingLoss(r, y, n, 30, w, kind, nil)
				r[i] = old
				num := (lp - lm) / (2 * h)
				if math.Abs(num-g[i]) > 1e-4*max(1, math.Abs(num)) {
					t.Errorf("%s n=%d trial %d: dL/dr[%d] = %.6g, numeric %.6g", kind, n, trial, i, g[i], num)
				}
			}
		}
	}
}

func TestStratifiedBatches(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var labels []int
	for c, cnt := range []int{700, 200, 9} {
		for i := 0; i < cnt; i++ {
			labels = append(labels, c)
		}
	}
	rng.Shuffle(len(labels), func(a, b int) { labels[a], labels[b] = labels[b], labels[a] })
	batches := StratifiedBatches(labels, 3, 128, rng) // 909 → 8 batches; class 2 has 9 ≥ 8
	if len(batches) != 8 {
		t.Fatalf("%d batches, want 8", len(batches))
	}
	seen := make([]int, len(labels))
	for bi, b := range batches {
		// 909 = 8·113 + 5: each batch takes ⌊n_c/8⌋ per class (113), the 5
		// remainders fill the first batches (minority first), the last takes the rest.
		if len(b) < 113 || len(b) > 128 {
			t.Errorf("batch %d has %d items, want 113–128", bi, len(b))
		}
		var per [3]int
		for _, i := range b {
			seen[i]++
			per[labels[i]]++
		}
		for c, k := range per {
			if k == 0 {
				t.Errorf("batch %d lacks class %d (%v)", bi, c, per)
			}
		}
		// ≈ dataset proportions: class 0 is 77% of the data
		if f := float64(per[0]) / float64(len(b)); f < 0.6 || f > 0.9 {
			t.Errorf("batch %d: class-0 fraction %.2f", bi, f)
		}
	}
	for i, k := range seen {
		if k != 1 {
			t.Fatalf("index %d used %d times, want exactly once", i, k)
		}
	}
}

func TestSchedule(t *testing.T) {
	s := DefaultSchedule()
	s.Budget = 120
	used := 0
	var got []int
	for step := int64(0); step <= 40000; step++ {
		if q := s.Queries(step, used); q > 0 {
			got = append(got, int(step), q)
			used += q
		}
	}
	want := []int{10000, 50, 15000, 50, 20000, 20}
	if len(got) != len(want) {
		t.Fatalf("sessions %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("sessions %v, want %v", got, want)
		}
	}
}

func TestDatasetRing(t *testing.T) {
	d, err := NewDataset(3, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		d.Add([]uint8{uint8(i), uint8(i)}, i%2)
	}
	if d.Len() != 3 || d.Total() != 5 {
		t.Fatalf("len %d total %d", d.Len(), d.Total())
	}
	// slots hold adds 3, 4, 2
	if d.Image(0)[0] != 3 || d.Image(1)[0] != 4 || d.Image(2)[0] != 2 || d.Label(0) != 1 {
		t.Fatalf("ring contents %v %v", d.imgs, d.labels)
	}
	if _, err := NewDataset(10, 3, 6); err == nil {
		t.Fatal("6 classes accepted")
	}
}

func TestOracleNoise(t *testing.T) {
	o, err := NewOracleRater(3, 0.2, 7)
	if err != nil {
		t.Fatal(err)
	}
	const N = 20000
	flips := 0
	for i := 0; i < N; i++ {
		p := float64(i%100) / 99
		c, err := o.Rate(context.TODO(), &Query{Progress: p})
		if err != nil {
			t.Fatal(err)
		}
		if c != ProgressClass(p, 3) {
			flips++
		}
	}
	// binomial(20000, 0.2): σ ≈ 57
	if math.Abs(float64(flips)-0.2*N) > 4*math.Sqrt(N*0.2*0.8) || int64(flips) != o.Flips() {
		t.Fatalf("%d flips (counter %d), want ≈ %d", flips, o.Flips(), int(0.2*N))
	}
	if _, err := o.Rate(context.TODO(), &Query{Progress: math.NaN()}); err == nil {
		t.Fatal("NaN progress rated")
	}
	if ProgressClass(0, 3) != 0 || ProgressClass(0.5, 3) != 1 || ProgressClass(1, 3) != 2 || ProgressClass(0.34, 2) != 0 {
		t.Fatal("ProgressClass boundaries")
	}
}
