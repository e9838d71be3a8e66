package vlmreward

import (
	"context"
	"image"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/vlmrb/vlmrb/render"
	"github.com/vlmrb/vlmrb/replay"
	"github.com/vlmrb/vlmrb/tasks"
)

// The Learner loop on a real replay buffer and rendered drawer-open
// episodes: no rewards before the first session (all weights zeroed), a
// session at the scheduled step rates queries, fits the model and
// relabels every slot — wrapped ones included — with the model's reward.
func TestLearnerRelabelsWholeBuffer(t *testing.T) {
	r, err := render.New("soft", render.Options{})
	if err != nil {
		t.Skipf("soft renderer: %v", err)
	}
	defer r.Close()
	orc, _ := NewOracleRater(3, 0.2, 1)
	cfg := DefaultLearnerConfig(3, "open the drawer")
	cfg.Model.CNN = learnCNN()
	cfg.Model.Batch = 128
	cfg.Model.MaxEpochs = 2
	cfg.PerEpisode = 40
	cfg.Schedule = Schedule{First: 200, Every: 100, PerSession: 60, Budget: 150}
	const capacity = 250
	l, err := NewLearner(cfg, orc, capacity)
	if err != nil {
		t.Fatal(err)
	}
	buf, _ := replay.NewBuffer(replay.Config{Capacity: capacity, ObsDim: tasks.ObsDim, ActDim: tasks.ActDim})
	u := replay.NewUniform(buf)
	rng := rand.New(rand.NewPCG(3, 3))
	b := replay.NewBatch(64, tasks.ObsDim, tasks.ActDim)

	cam := render.LookAt(mgl64.Vec3{0.55, 0.45, 0.45}, mgl64.Vec3{0, 0.75, 0.05}, mgl64.Vec3{0, 0, 1}, 50, 48, 48)
	var sc render.Scene
	img := image.NewRGBA(image.Rect(0, 0, 48, 48))
	act := make([]float64, tasks.ActDim)
	step := int64(0)
	var refs []replay.Ref
	sessions := 0
	for ep := 0; step < 420; ep++ {
		env, err := tasks.Make("drawer-open", tasks.Options{MaxSteps: 70})
		if err != nil {
			t.Fatal(err)
		}
		obs, _ := env.Reset(uint64(ep))
		pol := env.Expert()
		for {
			pol.Act(obs, act)
			next, rew, term, trunc, info, err := env.Step(act)
			if err != nil {
				t.Fatal(err)
			}
			ref := buf.Add(replay.Transition{Obs: obs, Action: act, Reward: rew, NextObs: next, Terminated: term, Truncated: trunc, Episode: int64(ep)})
			refs = append(refs, ref)
			sc.UpdateFromModel(env.Model(), env.Data(), nil)
			c, _ := render.ResolveCamera(env.Model(), env.Data(), cam)
			if err := r.Render(&sc, c, img); err != nil {
				t.Fatal(err)
			}
			l.Observe(ref, 0, int64(ep), img, info.Get("progress"))
			step++
			if !l.Trained() {
				u.Sample(b, rng)
				if unset := l.Apply(b); unset != b.Len() {
					t.Fatalf("step %d: %d of %d rows unset before the first fit", step, unset, b.Len())
				}
			}
			ran, err := l.Update(context.Background(), step)
			if err != nil {
				t.Fatal(err)
			}
			if ran {
				sessions++
				if l.Stats.Relabelled != buf.Len() {
					t.Fatalf("relabelled %d slots, buffer holds %d", l.Stats.Relabelled, buf.Len())
				}
			}
			obs = next
			if term || trunc {
				break
			}
		}
		env.Close()
	}
	// sessions at 200, 300, 400 (60, 60, 30 queries: budget 150)
	if sessions != 3 || l.Stats.Queries != 150 || l.Stats.Rated != 150 || l.Stats.Updates != 3 {
		t.Fatalf("sessions %d, stats %+v", sessions, l.Stats)
	}
	// every live slot (the buffer wrapped) carries exactly the current model's reward
	live := refs[len(refs)-capacity:]
	imgs := make([]uint8, 0, len(live)*l.Model.InputLen())
	for _, ref := range live {
		imgs = append(imgs, l.Relabel.imgs[int(ref.Slot)*l.Relabel.dim:int(ref.Slot+1)*l.Relabel.dim]...)
	}
	want := make([]float32, len(live))
	// rewards written after the last session (steps 401–420) were set at
	// insertion with the same model, so all must match a fresh prediction
	// (to float32 rounding: a BLAS may sum a batch of 1 in another order)
	l.Model.Predict(want, imgs, len(live))
	for i, ref := range live {
		got, ok := l.Relabel.Table.Get(ref)
		if !ok || math.Abs(float64(got-want[i])) > 1e-6 {
			t.Fatalf("slot %d: reward %v (set %v), model says %v", ref.Slot, got, ok, want[i])
		}
	}
	for _, ref := range refs[:len(refs)-capacity] {
		if _, ok := l.Relabel.Table.Get(ref); ok {
			t.Fatalf("overwritten transition (slot %d gen %d) still has a reward", ref.Slot, ref.Gen)
		}
	}
	u.Sample(b, rng)
	if unset := l.Apply(b); unset != 0 {
		t.Fatalf("%d unset rows after training", unset)
	}

	// a checkpoint round trip restores model, dataset, frames and rewards
	data, err := l.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	l2, err := NewLearner(cfg, orc, capacity)
	if err != nil {
		t.Fatal(err)
	}
	if err := l2.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	if !l2.Trained() || l2.Stats != l.Stats || l2.Data.Len() != l.Data.Len() || l2.Data.Total() != l.Data.Total() {
		t.Fatalf("restored learner: trained %v, stats %+v, dataset %d/%d; want %+v, %d/%d",
			l2.Trained(), l2.Stats, l2.Data.Len(), l2.Data.Total(), l.Stats, l.Data.Len(), l.Data.Total())
	}
	for i := range l.Data.Len() {
		if l2.Data.Label(i) != l.Data.Label(i) || string(l2.Data.Image(i)) != string(l.Data.Image(i)) {
			t.Fatalf("rating %d differs after restore", i)
		}
	}
	got := make([]float32, len(live))
	l2.Model.Predict(got, imgs, len(live))
	for i, ref := range live {
		r2, ok := l2.Relabel.Table.Get(ref)
		r1, _ := l.Relabel.Table.Get(ref)
		if !ok || r2 != r1 || got[i] != want[i] {
			t.Fatalf("slot %d after restore: table %v (set %v), model %v; want %v and %v", ref.Slot, r2, ok, got[i], r1, want[i])
		}
	}
	if n := l2.Relabel.Relabel(l2.Model); n != capacity {
		t.Fatalf("restored relabeler holds %d frames, want %d", n, capacity)
	}
	// damaged checkpoints are rejected and leave the learner untouched
	bad := append([]byte(nil), data...)
	bad[len(bad)/2] ^= 0xff
	l3, _ := NewLearner(cfg, orc, capacity)
	if err := l3.UnmarshalBinary(bad); err == nil {
		t.Fatal("a corrupted learner checkpoint was accepted")
	}
	if err := l3.UnmarshalBinary(data[:len(data)-10]); err == nil || l3.Trained() {
		t.Fatalf("a truncated learner checkpoint: err %v, trained %v", err, l3.Trained())
	}
	l4, _ := NewLearner(cfg, orc, capacity+1)
	if err := l4.UnmarshalBinary(data); err == nil {
		t.Fatal("a checkpoint for another replay capacity was accepted")
	}
}

// Standardize: after Relabel the stored rewards have mean 0 and standard
// deviation 1 over the slots, each equal to (r̂ − mean)/sd of its raw model
// output; Put applies the same transform to later insertions.
func TestRelabelerStandardize(t *testing.T) {
	cfg := DefaultModelConfig(3)
	cfg.CNN = learnCNN()
	cfg.Ensemble = 1
	m, err := NewModel(cfg)
	if err != nil {
		t.Fatal(err)
	}
	const n = 40
	rl := NewRelabeler(n+1, cfg.CNN.Size)
	rl.Standardize = true
	rng := rand.New(rand.NewPCG(4, 4))
	img := make([]uint8, m.InputLen())
	raw := make([]float64, n)
	var one [1]float32
	for i := range n {
		for j := range img {
			img[j] = uint8(rng.IntN(256))
		}
		rl.Put(replay.Ref{Slot: int32(i), Gen: 1}, img, nil)
		m.Predict(one[:], img, 1)
		raw[i] = float64(one[0])
	}
	if got := rl.Relabel(m); got != n {
		t.Fatalf("relabelled %d slots, want %d", got, n)
	}
	var mu, sd float64
	for _, v := range raw {
		mu += v
	}
	mu /= n
	for _, v := range raw {
		sd += (v - mu) * (v - mu)
	}
	sd = math.Sqrt(sd / (n - 1))
	var sum, sq float64
	for i := range n {
		got, ok := rl.Table.Get(replay.Ref{Slot: int32(i), Gen: 1})
		want := (raw[i] - mu) / sd
		if !ok || math.Abs(float64(got)-want) > 1e-4 {
			t.Fatalf("slot %d: %v, want (%v − %v)/%v = %v", i, got, raw[i], mu, sd, want)
		}
		sum += float64(got)
		sq += float64(got) * float64(got)
	}
	if math.Abs(sum/n) > 1e-5 || math.Abs(math.Sqrt(sq/(n-1))-1) > 1e-4 {
		t.Fatalf("standardised rewards: mean %v, sd %v", sum/n, math.Sqrt(sq/(n-1)))
	}
	rl.Put(replay.Ref{Slot: n, Gen: 1}, img, m)
	got, _ := rl.Table.Get(replay.Ref{Slot: n, Gen: 1})
	if want := (raw[n-1] - mu) / sd; math.Abs(float64(got)-want) > 1e-4 {
		t.Fatalf("insertion after Relabel: %v, want %v", got, want)
	}
}
