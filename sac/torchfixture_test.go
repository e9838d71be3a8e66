package sac

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/vlmrb/vlmrb/replay"
)

// TestWriteLearnerFixture writes what a second SAC implementation needs to
// replay this agent's updates exactly: the initial weights, a pool of
// transitions, the batch indices of every update, the standard normal noise
// Update draws (in its order: target actions, then one draw per actor
// step) and the weights, α and losses after chosen updates. It runs only
// when VLMRB_SAC_FIXTURE names an output directory; python/tests/
// test_sac_learner.py runs it and checks the example's PyTorch SAC
// (python/examples/sac_reach.py) against it. Sizes come from
// VLMRB_SAC_FIXTURE_SIZES "obs,act,hidden,batch,updates,pool" (default
// 39,4,32,32,40,256: reach's widths, small nets).
func TestWriteLearnerFixture(t *testing.T) {
	dir := os.Getenv("VLMRB_SAC_FIXTURE")
	if dir == "" {
		t.Skip("VLMRB_SAC_FIXTURE not set (python/tests/test_sac_learner.py sets it)")
	}
	sz := []int{39, 4, 32, 32, 40, 256}
	if s := os.Getenv("VLMRB_SAC_FIXTURE_SIZES"); s != "" {
		var got []int
		for _, f := range strings.Split(s, ",") {
			v, err := strconv.Atoi(f)
			if err != nil || v < 1 {
				t.Fatalf("VLMRB_SAC_FIXTURE_SIZES %q: want six positive integers obs,act,hidden,batch,updates,pool", s)
			}
			got = append(got, v)
		}
		if len(got) != 6 {
			t.Fatalf("VLMRB_SAC_FIXTURE_SIZES %q: want six integers obs,act,hidden,batch,updates,pool", s)
		}
		sz = got
	}
	O, A, H, B, K, P := sz[0], sz[1], sz[2], sz[3], sz[4], sz[5]
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Hidden = []int{H, H}
	cfg.BatchSize = B
	cfg.Seed = 7
	a, err := New(cfg, O, A)
	if err != nil {
		t.Fatal(err)
	}

	// a pool of transitions on reach's scales: obs N(0,1), rewards in
	// [0, 10], 5% terminal
	rng := rand.New(rand.NewPCG(11, 12))
	pool := replay.NewBatch(P, O, A)
	for i := range pool.Obs {
		pool.Obs[i] = float32(rng.NormFloat64())
		pool.NextObs[i] = float32(rng.NormFloat64())
	}
	for i := range pool.Actions {
		pool.Actions[i] = float32(2*rng.Float64() - 1)
	}
	for i := 0; i < P; i++ {
		pool.Rewards[i] = float32(10 * rng.Float64())
		if rng.Float64() < 0.05 {
			pool.Terminated[i] = 1
		}
	}
	var poolF []float32
	poolF = append(poolF, pool.Obs...)
	poolF = append(poolF, pool.Actions...)
	poolF = append(poolF, pool.Rewards...)
	poolF = append(poolF, pool.NextObs...)
	poolF = append(poolF, pool.Terminated...)
	writeF32(t, filepath.Join(dir, "pool.f32"), poolF)
	writeF32(t, filepath.Join(dir, "params_0.f32"), agentParams(a))

	checkpoints := map[int]bool{1: true, 2: true, 10: true, K: true}
	type ckpt struct {
		Update                             int
		Alpha, QF1Loss, QF2Loss, ActorLoss float64
		AlphaLoss, QF1Value, Entropy       float64
	}
	var ckpts []ckpt
	var idxAll []int32
	var noise []float32
	b := replay.NewBatch(B, O, A)
	for u := 1; u <= K; u++ {
		for i := 0; i < B; i++ {
			j := rng.IntN(P)
			idxAll = append(idxAll, int32(j))
			copy(b.Obs[i*O:(i+1)*O], pool.Obs[j*O:(j+1)*O])
			copy(b.NextObs[i*O:(i+1)*O], pool.NextObs[j*O:(j+1)*O])
			copy(b.Actions[i*A:(i+1)*A], pool.Actions[j*A:(j+1)*A])
			b.Rewards[i], b.Terminated[i], b.Weights[i] = pool.Rewards[j], pool.Terminated[j], 1
		}
		// the noise Update will draw, from a copy of the agent's generator
		st, err := a.pcg.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		cp := &rand.PCG{}
		if err := cp.UnmarshalBinary(st); err != nil {
			t.Fatal(err)
		}
		r := rand.New(cp)
		draws := 1
		if a.updates%int64(cfg.PolicyFrequency) == 0 {
			draws += cfg.PolicyFrequency
		}
		for k := 0; k < draws*B*A; k++ {
			noise = append(noise, float32(r.NormFloat64()))
		}
		m, err := a.Update(b)
		if err != nil {
			t.Fatal(err)
		}
		if checkpoints[u] {
			writeF32(t, filepath.Join(dir, "params_"+strconv.Itoa(u)+".f32"), agentParams(a))
			ckpts = append(ckpts, ckpt{u, m.Alpha, m.QF1Loss, m.QF2Loss, m.ActorLoss, m.AlphaLoss, m.QF1Value, m.Entropy})
		}
	}
	writeF32(t, filepath.Join(dir, "noise.f32"), noise)
	ib := make([]byte, 4*len(idxAll))
	for i, v := range idxAll {
		binary.LittleEndian.PutUint32(ib[4*i:], uint32(v))
	}
	if err := os.WriteFile(filepath.Join(dir, "indices.i32"), ib, 0o644); err != nil {
		t.Fatal(err)
	}
	meta := map[string]any{
		"obs_dim": O, "act_dim": A, "hidden": H, "batch": B, "updates": K, "pool": P,
		"gamma": cfg.Gamma, "tau": cfg.Tau, "policy_lr": cfg.PolicyLR, "q_lr": cfg.QLR,
		"policy_frequency": cfg.PolicyFrequency, "log_std_min": cfg.LogStdMin, "log_std_max": cfg.LogStdMax,
		"checkpoints":   ckpts,
		"params_layout": "actor, qf1, qf2, qf1_target, qf2_target (each nn.MLP.Params: per layer W (in×out row-major) then B), log α",
	}
	js, err := json.MarshalIndent(meta, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "meta.json"), js, 0o644); err != nil {
		t.Fatal(err)
	}
}

func agentParams(a *Agent) []float32 {
	var p []float32
	p = append(p, a.actor.Params...)
	for k := range a.q {
		p = append(p, a.q[k].Params...)
	}
	for k := range a.qt {
		p = append(p, a.qt[k].Params...)
	}
	return append(p, a.logAlpha[0])
}

func writeF32(t *testing.T, path string, v []float32) {
	t.Helper()
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
