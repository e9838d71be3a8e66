package vlmreward

import (
	"context"
	"encoding/json"
	"errors"
	"image"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/vlmrb/vlmrb/internal/embedtest"
	"github.com/vlmrb/vlmrb/nn"
	"github.com/vlmrb/vlmrb/replay"
)

func randVec(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	return v
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// α = 0 with one goal prompt is exactly the cosine similarity.
func TestVLMRMAlphaZeroIsCosine(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for trial := 0; trial < 50; trial++ {
		g, b, x := randVec(rng, 16), randVec(rng, 16), randVec(rng, 16)
		v, err := NewVLMRM([][]float64{g}, [][]float64{b}, 0)
		if err != nil {
			t.Fatal(err)
		}
		r, err := v.Reward(x)
		if err != nil {
			t.Fatal(err)
		}
		cos := dot(g, x) / (norm(g) * norm(x))
		if math.Abs(r-cos) > 1e-12 {
			t.Fatalf("α=0 reward %.15f, cosine %.15f", r, cos)
		}
	}
}

// α = 1 depends only on the component of x along d = g − b: adding any
// vector orthogonal to d before normalisation changes x's norm, so the test
// perturbs the normalised x within the unit sphere's orthogonal directions
// by comparing two unit vectors with the same projection on d.
func TestVLMRMAlphaOneIgnoresOrthogonal(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	for trial := 0; trial < 50; trial++ {
		g, b := randVec(rng, 16), randVec(rng, 16)
		v, err := NewVLMRM([][]float64{g}, [][]float64{b}, 1)
		if err != nil {
			t.Fatal(err)
		}
		x := randVec(rng, 16)
		nx := norm(x)
		for i := range x {
			x[i] /= nx
		}
		// rotate x inside the plane of two directions orthogonal to d
		u1, u2 := randVec(rng, 16), randVec(rng, 16)
		orth := func(u []float64, against ...[]float64) {
			for _, a := range against {
				c := dot(u, a) / dot(a, a)
				for i := range u {
					u[i] -= c * a[i]
				}
			}
			n := norm(u)
			for i := range u {
				u[i] /= n
			}
		}
		orth(u1, v.d)
		orth(u2, v.d, u1)
		a1, a2 := dot(x, u1), dot(x, u2)
		th := rng.Float64() * 2 * math.Pi
		b1 := math.Cos(th)*a1 - math.Sin(th)*a2
		b2 := math.Sin(th)*a1 + math.Cos(th)*a2
		y := make([]float64, 16)
		for i := range y {
			y[i] = x[i] + (b1-a1)*u1[i] + (b2-a2)*u2[i]
		}
		if math.Abs(norm(y)-1) > 1e-12 || math.Abs(dot(y, v.d)-dot(x, v.d)) > 1e-12 {
			t.Fatal("test construction broken")
		}
		rx, _ := v.Reward(x)
		ry, _ := v.Reward(y)
		if math.Abs(rx-ry) > 1e-12 {
			t.Fatalf("α=1: reward changed %.15f → %.15f under an orthogonal change", rx, ry)
		}
		// and it equals 1 − ½((x−g)·d)²/‖d‖²
		dd := dot(v.d, v.d)
		xg := make([]float64, 16)
		for i := range xg {
			xg[i] = x[i] - v.G[i]
		}
		want := 1 - 0.5*dot(xg, v.d)*dot(xg, v.d)/dd
		if math.Abs(rx-want) > 1e-12 {
			t.Fatalf("α=1 reward %.15f, want %.15f", rx, want)
		}
	}
}

func TestVLMRMAveragesNormalisedPrompts(t *testing.T) {
	v, err := NewVLMRM([][]float64{{3, 0}, {0, 5}}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if v.G[0] != 0.5 || v.G[1] != 0.5 {
		t.Fatalf("g = %v, want (0.5, 0.5) (normalised, averaged, not re-normalised)", v.G)
	}
	if _, err := NewVLMRM([][]float64{{1, 0}}, [][]float64{{2, 0}}, 0.5); err == nil {
		t.Fatal("goal == baseline direction accepted with α > 0")
	}
}

func solid(r, g, b uint8) *image.RGBA {
	img := newRGBA(8, 6)
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = r, g, b, 255
	}
	return img
}

// End to end over HTTP: prompts → g, b; rollout frames → embeddings →
// rewards written into a real replay buffer's slots across a wrap-around;
// a stale slot is dropped; sampled batches train only on set rewards.
func TestVLMRMOverHTTPIntoReplay(t *testing.T) {
	srv := embedtest.New(t, "clip")
	srv.Fail.Store(1) // the first request gets a 503 and is retried
	images := &srv.Images
	e, err := NewHTTPEmbedder(srv.URL+"/v1", "clip", "")
	if err != nil {
		t.Fatal(err)
	}
	e.Backoff = 1
	ctx := context.Background()
	v, err := NewVLMRMFromPrompts(ctx, e, []string{"a red cube", "red red"}, []string{"a cube"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if e.Calls() != 3 { // 503, goal, baseline
		t.Fatalf("%d calls, want 3", e.Calls())
	}

	buf, err := replay.NewBuffer(replay.Config{Capacity: 8, ObsDim: 1, ActDim: 1})
	if err != nil {
		t.Fatal(err)
	}
	table := NewRewardTable(buf.Cap())
	var pend Pending
	colours := [][3]uint8{}
	refs := []replay.Ref{}
	for i := 0; i < 11; i++ { // wraps: slots 0–2 written twice
		ref := buf.Add(replay.Transition{Obs: []float64{float64(i)}, Action: []float64{0}, NextObs: []float64{0}})
		table.Clear(ref)
		c := [3]uint8{uint8(25 * i), 40, uint8(250 - 20*i)}
		colours = append(colours, c)
		refs = append(refs, ref)
		if i >= 1 { // transition 0 is never queued; it is overwritten anyway
			pend.Add(ref, solid(c[0], c[1], c[2]))
		}
	}
	n, err := pend.Flush(ctx, e, v, table, 4)
	if err != nil {
		t.Fatal(err)
	}
	if images.Load() != 10 || n != 8 { // transitions 1 and 2 are stale (slots 1, 2 rewritten by 9, 10)
		t.Fatalf("%d images embedded, %d rewards written; want 10 and 8", images.Load(), n)
	}
	for i := 3; i < 11; i++ {
		got, ok := table.Get(refs[i])
		c := colours[i]
		want, _ := v.Reward([]float64{float64(c[0]) * 257, float64(c[1]) * 257, float64(c[2]) * 257})
		if !ok || math.Abs(float64(got)-want) > 1e-6 {
			t.Fatalf("transition %d: reward %v (set %v), want %v", i, got, ok, want)
		}
	}
	// redder frames score higher for the "red" goal
	r3, _ := table.Get(refs[3])
	r10, _ := table.Get(refs[10])
	if !(r10 > r3) {
		t.Fatalf("red frame %v not above blue frame %v", r10, r3)
	}
	// slot 0 holds transition 8 (queued and set); add one more unset
	// transition (slot 3) and check Apply on sampled batches.
	ref := buf.Add(replay.Transition{Obs: []float64{11}, Action: []float64{0}, NextObs: []float64{0}})
	table.Clear(ref)
	u := replay.NewUniform(buf)
	b := replay.NewBatch(64, 1, 1)
	if !u.Sample(b, rand.New(rand.NewPCG(1, 2))) {
		t.Fatal("empty buffer")
	}
	unset := table.Apply(b)
	nUnset := 0
	for i, r := range b.Refs {
		if r == ref {
			nUnset++
			if b.Weights[i] != 0 {
				t.Fatal("unset reward kept a nonzero weight")
			}
		} else if b.Weights[i] != 1 {
			t.Fatalf("row %d (slot %d) weight %v", i, r.Slot, b.Weights[i])
		}
	}
	if unset != nUnset || nUnset == 0 {
		t.Fatalf("Apply reported %d unset rows, batch has %d rows of the unset slot", unset, nUnset)
	}
}

// A server that keeps failing leaves the whole queue pending and every
// reward unset; once it recovers, one Flush writes them all. Images go
// out concurrently (Workers) and keep their order.
func TestPendingFlushSurvivesServerOutage(t *testing.T) {
	srv := embedtest.New(t, "clip")
	e, err := NewHTTPEmbedder(srv.URL+"/v1", "clip", "")
	if err != nil {
		t.Fatal(err)
	}
	e.Backoff, e.Workers = 1, 3
	ctx := context.Background()
	v, err := NewVLMRM([][]float64{{1, 0, 0}}, [][]float64{{0, 0, 1}}, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	buf, _ := replay.NewBuffer(replay.Config{Capacity: 16, ObsDim: 1, ActDim: 1})
	table := NewRewardTable(buf.Cap())
	var pend Pending
	var refs []replay.Ref
	for i := range 10 {
		ref := buf.Add(replay.Transition{Obs: []float64{0}, Action: []float64{0}, NextObs: []float64{0}})
		table.Clear(ref)
		pend.Add(ref, solid(uint8(20*i), 10, uint8(200-20*i)))
		refs = append(refs, ref)
	}
	srv.Fail.Store(1 << 20)
	if n, err := pend.Flush(ctx, e, v, table, 4); err == nil || n != 0 || pend.Len() != 10 {
		t.Fatalf("outage: wrote %d, err %v, %d pending; want an error, 0 and 10", n, err, pend.Len())
	}
	for _, ref := range refs {
		if _, ok := table.Get(ref); ok {
			t.Fatal("a reward was set during the outage")
		}
	}
	srv.Fail.Store(0)
	n, err := pend.Flush(ctx, e, v, table, 4)
	if err != nil || n != 10 || pend.Len() != 0 {
		t.Fatalf("after recovery: wrote %d, err %v, %d pending", n, err, pend.Len())
	}
	for i, ref := range refs {
		got, _ := table.Get(ref)
		want, _ := v.Reward([]float64{float64(20*i) * 257, 10 * 257, float64(200-20*i) * 257})
		if math.Abs(float64(got)-want) > 1e-6 {
			t.Fatalf("transition %d: reward %v, want %v (images out of order?)", i, got, want)
		}
	}
}

// zeroEmbedder answers a zero vector for red frames and the colour for
// the others, and counts the images it was asked for.
type zeroEmbedder struct{ asked int }

func (z *zeroEmbedder) EmbedTexts(context.Context, []string) ([][]float64, error) { return nil, nil }

func (z *zeroEmbedder) EmbedImages(_ context.Context, imgs []image.Image) ([][]float64, error) {
	out := make([][]float64, len(imgs))
	for i, im := range imgs {
		z.asked++
		r, g, b, _ := im.At(0, 0).RGBA()
		if r > 0 && g == 0 && b == 0 {
			out[i] = []float64{0, 0, 0}
		} else {
			out[i] = []float64{float64(r), float64(g), float64(b)}
		}
	}
	return out, nil
}

// A zero embedding drops its transition (no reward, no retry) and the
// rest of the queue still gets its rewards: the frame is never asked for
// twice.
func TestFlushDropsUnusableEmbeddings(t *testing.T) {
	v, err := NewVLMRM([][]float64{{1, 0, 0}}, [][]float64{{0, 0, 1}}, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	buf, _ := replay.NewBuffer(replay.Config{Capacity: 16, ObsDim: 1, ActDim: 1})
	table := NewRewardTable(buf.Cap())
	var pend Pending
	var refs []replay.Ref
	for i := range 6 {
		ref := buf.Add(replay.Transition{Obs: []float64{0}, Action: []float64{0}, NextObs: []float64{0}})
		table.Clear(ref)
		c := solid(0, 100, 50)
		if i%3 == 1 {
			c = solid(200, 0, 0)
		}
		pend.Add(ref, c)
		refs = append(refs, ref)
	}
	e := &zeroEmbedder{}
	n, err := pend.Flush(context.Background(), e, v, table, 4)
	if !errors.Is(err, ErrBadEmbedding) || n != 4 || pend.Len() != 0 {
		t.Fatalf("wrote %d, err %v, %d pending; want ErrBadEmbedding, 4 and 0", n, err, pend.Len())
	}
	for i, ref := range refs {
		if _, ok := table.Get(ref); ok == (i%3 == 1) {
			t.Errorf("transition %d: reward set %v", i, ok)
		}
	}
	if _, err := pend.Flush(context.Background(), e, v, table, 4); err != nil || e.asked != 6 {
		t.Errorf("second flush: %v; %d images asked for, want 6 (none again)", err, e.asked)
	}
}

// FuzzUnmarshalModel: crafted model headers (members, CNN sizes and
// channels) are checked against the bounds and the bytes that follow
// before anything is allocated.
func FuzzUnmarshalModel(f *testing.F) {
	cfg := DefaultModelConfig(2)
	cfg.CNN = CNNConfig{Size: 8, Channels: []int{2}, Kernels: []int{3}, Strides: []int{2}}
	cfg.Ensemble = 1
	m, err := NewModel(cfg)
	if err != nil {
		f.Fatal(err)
	}
	b, err := m.MarshalBinary()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	for _, huge := range []ModelConfig{
		func() ModelConfig { c := cfg; c.Ensemble = 1 << 30; return c }(),
		func() ModelConfig { c := cfg; c.CNN.Channels = []int{1 << 20}; return c }(),
		func() ModelConfig { c := cfg; c.CNN.Size = 1 << 20; return c }(),
	} {
		js, _ := json.Marshal(huge)
		f.Add(nn.Seal(modelMagic, 1, nn.AppendBytes(nil, js)))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = UnmarshalModel(data)
	})
}
