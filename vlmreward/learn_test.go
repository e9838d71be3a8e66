package vlmreward

import (
	"context"
	"image"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/vlmrb/vlmrb/render"
	"github.com/vlmrb/vlmrb/tasks"
)

// episodeFrames runs one expert episode of task (seeded), renders every
// step's next state with the soft rasterizer from a fixed side camera and
// returns the downscaled frames (size px, CHW) and privileged progress.
func episodeFrames(t testing.TB, r render.Renderer, task string, seed uint64, steps, px, size int, noise float64) ([]uint8, []float64) {
	env, err := tasks.Make(task, tasks.Options{MaxSteps: steps})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	obs, _ := env.Reset(seed)
	pol := env.Expert()
	if rs, ok := pol.(interface{ Reset() }); ok {
		rs.Reset()
	}
	cam := render.LookAt(mgl64.Vec3{0.55, 0.45, 0.45}, mgl64.Vec3{0, 0.75, 0.05}, mgl64.Vec3{0, 0, 1}, 50, px, px)
	var sc render.Scene
	img := image.NewRGBA(image.Rect(0, 0, px, px))
	act := make([]float64, tasks.ActDim)
	rng := rand.New(rand.NewPCG(seed, 17))
	var imgs []uint8
	var prog []float64
	for i := 0; i < steps; i++ {
		pol.Act(obs, act)
		for k := range act {
			act[k] = max(-1, min(1, act[k]+noise*rng.NormFloat64()))
		}
		var term, trunc bool
		var info interface{ Get(string) float64 }
		o, _, te, tr, inf, err := env.Step(act)
		if err != nil {
			t.Fatal(err)
		}
		obs, term, trunc, info = o, te, tr, inf
		sc.UpdateFromModel(env.Model(), env.Data(), nil)
		c, _ := render.ResolveCamera(env.Model(), env.Data(), cam)
		if err := r.Render(&sc, c, img); err != nil {
			t.Fatal(err)
		}
		imgs = Downscale(imgs, img, size)
		prog = append(prog, info.Get("progress"))
		if term || trunc {
			break
		}
	}
	return imgs, prog
}

// learnCase is the data for the learned-reward tests: rated frames from
// noisy expert episodes, and clean held-out expert episodes to rank.
type learnCase struct {
	train     *Dataset
	trainProg []float64
	evalImgs  [][]uint8
	evalProg  [][]float64
	flips     int64
}

const learnSize = 24

func learnCNN() CNNConfig {
	return CNNConfig{Size: learnSize, Channels: []int{8, 16, 16}, Kernels: []int{5, 3, 3}, Strides: []int{2, 2, 1}}
}

// makeLearnCase renders drawer-open: training frames from episodes with
// action noise, each rated by the oracle (3 classes) with 20% label noise;
// evaluation frames from clean expert episodes up to 10 steps after the
// drawer is fully open.
func makeLearnCase(t testing.TB, task string, classes, trainEps, steps int) *learnCase {
	r, err := render.New("soft", render.Options{})
	if err != nil {
		t.Skipf("soft renderer: %v", err)
	}
	defer r.Close()
	orc, err := NewOracleRater(classes, 0.2, 42)
	if err != nil {
		t.Fatal(err)
	}
	d, err := NewDataset(10000, 3*learnSize*learnSize, classes)
	if err != nil {
		t.Fatal(err)
	}
	lc := &learnCase{train: d}
	dim := d.Dim()
	for ep := 0; ep < trainEps; ep++ {
		imgs, prog := episodeFrames(t, r, task, uint64(100+ep), steps, 64, learnSize, 0.3*float64(ep%3))
		for i, p := range prog {
			c, err := orc.Rate(context.TODO(), &Query{Progress: p})
			if err != nil {
				t.Fatal(err)
			}
			d.Add(imgs[i*dim:(i+1)*dim], c)
			lc.trainProg = append(lc.trainProg, p)
		}
	}
	lc.flips = orc.Flips()
	for ep := 0; ep < 2; ep++ {
		imgs, prog := episodeFrames(t, r, task, uint64(900+ep), steps, 64, learnSize, 0)
		end := len(prog)
		for i, p := range prog {
			if p >= 1 {
				end = min(len(prog), i+10)
				break
			}
		}
		lc.evalImgs = append(lc.evalImgs, imgs[:end*dim])
		lc.evalProg = append(lc.evalProg, prog[:end])
	}
	return lc
}

// fitAndRank trains a model with the given loss and model seed and
// returns the Spearman correlation of its reward with progress on each
// evaluation episode.
func fitAndRank(t testing.TB, lc *learnCase, classes int, loss LossKind, seed uint64, sessions int) ([]float64, TrainStats) {
	cfg := DefaultModelConfig(classes)
	cfg.CNN = learnCNN()
	cfg.Loss = loss
	cfg.Batch = 256
	cfg.LR = 1e-3
	cfg.Seed = seed
	m, err := NewModel(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var st TrainStats
	for s := 0; s < sessions; s++ {
		if st, err = m.Train(lc.train); err != nil {
			t.Fatal(err)
		}
	}
	var rho []float64
	for e, imgs := range lc.evalImgs {
		n := len(lc.evalProg[e])
		out := make([]float32, n)
		m.Predict(out, imgs, n)
		r := make([]float64, n)
		for i, v := range out {
			r[i] = float64(v)
		}
		rho = append(rho, Spearman(r, lc.evalProg[e]))
	}
	return rho, st
}

func mean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// With oracle ratings and 20% label noise on rendered drawer-open frames,
// the learned reward (class-weighted MAE, stratified batches, ensemble of
// 3, 3 fits of ≤ 10 epochs) orders held-out expert frames by progress: mean
// Spearman over two held-out episodes ≥ 0.65 for every model seed and ≥ 0.75
// averaged over seeds 1–4 (a reward that learned nothing scores ≈ 0), for
// MAE and for cross-entropy on the same noisy labels; and the robust loss
// costs no ordering: its average is at most 0.08 below cross-entropy's.
// This test used to require MAE to beat cross-entropy. At 20% symmetric
// noise the two tie: averages 0.851 and 0.851 on the renderer of fcd8f3b,
// 0.818 and 0.855 once round shapes got fewer slices at small sizes
// (9608388); the per-seed minimum went from 0.834 to 0.741. ERL-VLM's case
// for MAE is heavier, systematic rater noise, which this case does not
// model. -short runs seed 1 with MAE only.
func TestLearnedRewardOrdersExpertFrames(t *testing.T) {
	const classes = 3
	lc := makeLearnCase(t, "drawer-open", classes, 12, 90)
	t.Logf("%d rated frames, class counts %v, %d labels flipped by noise", lc.train.Len(), lc.train.Counts(), lc.flips)
	seeds := []uint64{1, 2, 3, 4}
	if testing.Short() {
		seeds = seeds[:1]
	}
	var sumMAE, sumCE float64
	for _, seed := range seeds {
		rho, st := fitAndRank(t, lc, classes, LossMAE, seed, 3)
		t.Logf("seed %d MAE: Spearman %.3f (last fit: %d epochs, acc %.3f)", seed, rho, st.Epochs, st.Accuracy)
		if m := mean(rho); m < 0.65 {
			t.Errorf("seed %d: MAE reward mean Spearman %.3f < 0.65", seed, m)
		}
		sumMAE += mean(rho)
		if testing.Short() {
			continue
		}
		rho, st = fitAndRank(t, lc, classes, LossCE, seed, 3)
		t.Logf("seed %d CE:  Spearman %.3f (last fit: %d epochs, acc %.3f)", seed, rho, st.Epochs, st.Accuracy)
		if m := mean(rho); m < 0.65 {
			t.Errorf("seed %d: cross-entropy reward mean Spearman %.3f < 0.65", seed, m)
		}
		sumCE += mean(rho)
	}
	if !testing.Short() {
		n := float64(len(seeds))
		t.Logf("mean Spearman over seeds: MAE %.3f, CE %.3f", sumMAE/n, sumCE/n)
		for _, c := range []struct {
			name string
			avg  float64
		}{{"MAE", sumMAE / n}, {"cross-entropy", sumCE / n}} {
			if c.avg < 0.75 {
				t.Errorf("%s: mean Spearman over seeds %.3f < 0.75", c.name, c.avg)
			}
		}
		if sumMAE/n < sumCE/n-0.08 {
			t.Errorf("MAE mean Spearman %.3f is more than 0.08 below cross-entropy's %.3f under 20%% label noise", sumMAE/n, sumCE/n)
		}
	}
}

// Spearman against hand-computed cases: monotone maps give ±1, ties get
// their mean rank, and ρ = 1 − 6Σd²/(n(n²−1)) holds without ties.
func TestSpearman(t *testing.T) {
	if got := Spearman([]float64{1, 2, 3, 4}, []float64{10, 100, 1000, 1e4}); got != 1 {
		t.Fatalf("monotone increasing: %v", got)
	}
	if got := Spearman([]float64{1, 2, 3, 4}, []float64{4, 3, 2, 1}); got != -1 {
		t.Fatalf("monotone decreasing: %v", got)
	}
	// ranks 0,1,2,3,4 vs 1,0,2,4,3: Σd² = 4, ρ = 1 − 24/120 = 0.8
	if got := Spearman([]float64{1, 2, 3, 4, 5}, []float64{2, 1, 3, 5, 4}); math.Abs(got-0.8) > 1e-12 {
		t.Fatalf("one swap pair twice: %v, want 0.8", got)
	}
	// ties: b's ranks are 0.5, 0.5, 2 → Pearson of (0,1,2) and (0.5,0.5,2) = √3/2
	if got := Spearman([]float64{1, 2, 3}, []float64{7, 7, 9}); math.Abs(got-math.Sqrt(3)/2) > 1e-12 {
		t.Fatalf("ties: %v, want %v", got, math.Sqrt(3)/2)
	}
	if !math.IsNaN(Spearman([]float64{1, 2}, []float64{3, 3})) || !math.IsNaN(Spearman(nil, nil)) {
		t.Fatal("constant or empty input should give NaN")
	}
}
