package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

// IQM against values computed by hand with scipy.stats.trim_mean(x, 0.25)'s
// rule: int(n/4) values cut from each end of the sorted list.
func TestIQMHandComputed(t *testing.T) {
	cases := []struct {
		x    []float64
		want float64
	}{
		{[]float64{5}, 5},
		{[]float64{1, 2, 3}, 2},                         // n=3: cut 0
		{[]float64{4, 1, 3, 2}, 2.5},                    // n=4: cut 1 → mean(2,3)
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 5.5}, // cut 2 → mean(3..8)
		{[]float64{0, 0, 0, 1, 1, 1, 1, 100}, 0.75},     // cut 2 → mean(0,1,1,1)
		{[]float64{1, 0, 0.7, 0, 0}, (0 + 0 + 0.7) / 3}, // n=5: cut 1 → mean(0,0,0.7)
	}
	for _, c := range cases {
		if got := IQM(c.x); !near(got, c.want) {
			t.Errorf("IQM(%v) = %v, want %v", c.x, got, c.want)
		}
	}
	if !math.IsNaN(IQM(nil)) {
		t.Error("IQM of nothing should be NaN")
	}
}

func TestQuantileLinear(t *testing.T) {
	s := []float64{1, 2, 3, 4}
	// NumPy: np.quantile([1,2,3,4], [0, .25, .5, .975, 1]) = 1, 1.75, 2.5, 3.925, 4
	for _, c := range []struct{ q, want float64 }{{0, 1}, {0.25, 1.75}, {0.5, 2.5}, {0.975, 3.925}, {1, 4}} {
		if got := Quantile(s, c.q); !near(got, c.want) {
			t.Errorf("Quantile(%v) = %v, want %v", c.q, got, c.want)
		}
	}
}

func TestProbImprovementHandComputed(t *testing.T) {
	// x = {1, 2}, y = {1, 0}: pairs (1,1) tie ½, (1,0) 1, (2,1) 1, (2,0) 1 → 3.5/4
	if got := ProbImprovement([]float64{1, 2}, []float64{1, 0}); !near(got, 0.875) {
		t.Errorf("P = %v, want 0.875", got)
	}
	// symmetry: P(X>Y) + P(Y>X) = 1
	x, y := []float64{0.3, 0.9, 0.1, 0.5}, []float64{0.2, 0.9, 0.4}
	if s := ProbImprovement(x, y) + ProbImprovement(y, x); !near(s, 1) {
		t.Errorf("P(X>Y)+P(Y>X) = %v, want 1", s)
	}
}

func TestAUCAndFirstReach(t *testing.T) {
	x := []float64{0, 10, 20}
	if got := AUC(x, []float64{0, 1, 1}); !near(got, 0.75) { // (5 + 10) / 20
		t.Errorf("AUC = %v, want 0.75", got)
	}
	if got := AUC(x, []float64{1, 1, 1}); !near(got, 1) {
		t.Errorf("AUC of a constant 1 = %v", got)
	}
	if s, ok := FirstReach(x, []float64{0, 0.4, 0.6}, 0.5); !ok || s != 20 {
		t.Errorf("FirstReach = %v %v, want 20 true", s, ok)
	}
	if _, ok := FirstReach(x, []float64{0, 0.4, 0.4}, 0.5); ok {
		t.Error("FirstReach found a level the curve never reaches")
	}
}

// The percentile bootstrap CI of the mean covers the true mean at about its
// nominal rate on synthetic normal data. For n = 30 the percentile interval
// is known to run slightly narrow (≈ 0.93–0.94 coverage); 400 datasets give
// a binomial standard error of about 0.012, so [0.90, 0.98] is a > 3σ band.
func TestBootstrapCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	const datasets, n, mu = 400, 30, 0.3
	cover := 0
	for d := 0; d < datasets; d++ {
		x := make([]float64, n)
		for i := range x {
			x[i] = mu + rng.NormFloat64()
		}
		iv := BootstrapCI([][]float64{x}, PooledMean, 1000, 0.95, uint64(d+1))
		if iv.Lo <= mu && mu <= iv.Hi {
			cover++
		}
		if !(iv.Lo <= iv.Point && iv.Point <= iv.Hi) {
			t.Fatalf("point %v outside its interval [%v, %v]", iv.Point, iv.Lo, iv.Hi)
		}
	}
	rate := float64(cover) / datasets
	t.Logf("coverage %.3f over %d datasets", rate, datasets)
	if rate < 0.90 || rate > 0.98 {
		t.Errorf("95%% bootstrap CI covered the true mean in %.3f of datasets", rate)
	}
}

// Stratified resampling keeps each task's run count: with one task all 1s
// and another all 0s, every resample's pooled mean is exactly ½, so the
// interval collapses to a point. An unstratified bootstrap would not.
func TestBootstrapStratified(t *testing.T) {
	iv := BootstrapCI([][]float64{{1, 1, 1, 1}, {0, 0, 0, 0}}, PooledMean, 500, 0.95, 3)
	if iv.Point != 0.5 || iv.Lo != 0.5 || iv.Hi != 0.5 {
		t.Errorf("stratified CI = %+v, want exactly 0.5", iv)
	}
	// and it is reproducible for a seed
	a := BootstrapCI([][]float64{{0.1, 0.5, 0.9, 0.3}}, PooledIQM, 500, 0.95, 9)
	b := BootstrapCI([][]float64{{0.1, 0.5, 0.9, 0.3}}, PooledIQM, 500, 0.95, 9)
	if a != b {
		t.Errorf("same seed, different intervals: %+v %+v", a, b)
	}
}

func TestProbImprovementCI(t *testing.T) {
	iv := ProbImprovementCI([][]float64{{1, 1, 1}}, [][]float64{{0, 0, 0}}, 300, 0.95, 1)
	if iv.Point != 1 || iv.Lo != 1 || iv.Hi != 1 {
		t.Errorf("certain improvement: %+v", iv)
	}
	iv = ProbImprovementCI([][]float64{{0.2, 0.4, 0.6, 0.8}}, [][]float64{{0.3, 0.5, 0.7}}, 2000, 0.95, 1)
	if !(iv.Lo < iv.Point && iv.Point < iv.Hi) || iv.Lo < 0 || iv.Hi > 1 {
		t.Errorf("interval %+v", iv)
	}
}

// The sorted count equals the pairwise definition, ties and NaNs included.
func TestProbImprovementMatchesPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	pairs := func(x, y []float64) float64 {
		var u float64
		for _, a := range x {
			for _, b := range y {
				switch {
				case a > b:
					u++
				case a == b:
					u += 0.5
				}
			}
		}
		return u / float64(len(x)*len(y))
	}
	for it := 0; it < 200; it++ {
		x, y := make([]float64, 1+rng.IntN(20)), make([]float64, 1+rng.IntN(20))
		for _, v := range [][]float64{x, y} {
			for i := range v {
				v[i] = float64(rng.IntN(5)) / 4 // many ties
				if rng.IntN(15) == 0 {
					v[i] = math.NaN()
				}
			}
		}
		if got, want := ProbImprovement(x, y), pairs(x, y); math.Abs(got-want) > 1e-12 {
			t.Fatalf("x %v y %v: %g, pairwise %g", x, y, got, want)
		}
	}
}
