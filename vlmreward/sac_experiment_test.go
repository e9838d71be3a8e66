package vlmreward

import (
	"context"
	"image"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/vlmrb/vlmrb/render"
	"github.com/vlmrb/vlmrb/replay"
	"github.com/vlmrb/vlmrb/sac"
	"github.com/vlmrb/vlmrb/tasks"
)

// TestSACExperiment is an opt-in experiment, not a unit test: SAC trained
// on the ERL-VLM reward (oracle rater, 20% label noise) vs the task's
// sparse reward, same budget. VLMREWARD_SAC=task:steps:seed runs it, e.g.
// VLMREWARD_SAC=reach:20000:1 go test ./vlmreward -run SACExperiment -v -timeout 0
func TestSACExperiment(t *testing.T) {
	spec := os.Getenv("VLMREWARD_SAC")
	if spec == "" {
		t.Skip("set VLMREWARD_SAC=task:steps:seed")
	}
	parts := splitColon(spec)
	if len(parts) != 3 {
		t.Fatalf("VLMREWARD_SAC=%q: want task:steps:seed", spec)
	}
	task := parts[0]
	steps, err1 := strconv.ParseInt(parts[1], 10, 64)
	seed, err2 := strconv.ParseUint(parts[2], 10, 64)
	if err1 != nil || err2 != nil || steps <= 0 {
		t.Fatalf("VLMREWARD_SAC=%q: want task:steps:seed", spec)
	}
	for _, mode := range []string{"erlvlm", "sparse"} {
		sr, ret := runSAC(t, task, mode, steps, seed)
		t.Logf("RESULT task=%s reward=%s steps=%d seed=%d success_rate=%.2f eval_dense_return=%.1f", task, mode, steps, seed, sr, ret)
	}
}

func splitColon(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ':' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return out
}

func runSAC(t *testing.T, task, mode string, steps int64, seed uint64) (float64, float64) {
	const epLen = 150
	rmode := tasks.Sparse
	env, err := tasks.Make(task, tasks.Options{Reward: rmode, MaxSteps: epLen})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	r, err := render.New("soft", render.Options{})
	if err != nil {
		t.Skip(err)
	}
	defer r.Close()
	cfg := sac.DefaultConfig()
	cfg.Seed = seed
	cfg.LearningStarts = 1000
	cfg.Hidden = []int{128, 128} // smaller than CleanRL's 256×256 so the experiment fits a shared 2-core machine
	cfg.BatchSize = 128
	agent, err := sac.New(cfg, tasks.ObsDim, tasks.ActDim)
	if err != nil {
		t.Fatal(err)
	}
	defer agent.Close()
	buf, _ := replay.NewBuffer(replay.Config{Capacity: int(steps), ObsDim: tasks.ObsDim, ActDim: tasks.ActDim})
	u := replay.NewUniform(buf)
	batch := replay.NewBatch(cfg.BatchSize, tasks.ObsDim, tasks.ActDim)
	rng := rand.New(rand.NewPCG(seed, 5))

	var l *Learner
	if mode == "erlvlm" {
		orc, _ := NewOracleRater(3, 0.2, seed)
		lc := DefaultLearnerConfig(3, env.Description())
		lc.Model.CNN = learnCNN()
		lc.Model.Batch = 256
		lc.Model.LR = 1e-3
		lc.Model.Seed = seed
		lc.Schedule = Schedule{First: 1000, Every: 1500, PerSession: 200, Budget: 2000}
		lc.PerEpisode = 20
		if l, err = NewLearner(lc, orc, buf.Cap()); err != nil {
			t.Fatal(err)
		}
	}
	cam := render.LookAt(mgl64.Vec3{0.55, 0.45, 0.45}, mgl64.Vec3{0, 0.75, 0.05}, mgl64.Vec3{0, 0, 1}, 50, 64, 64)
	var sc render.Scene
	img := image.NewRGBA(image.Rect(0, 0, 64, 64))
	act := make([]float64, tasks.ActDim)
	obs, _ := env.Reset(seed * 1000)
	ep := int64(0)
	t0 := time.Now()
	for step := int64(1); step <= steps; step++ {
		if step <= int64(cfg.LearningStarts) {
			agent.RandomAction(act)
		} else {
			agent.Act(act, obs, false)
		}
		next, rew, term, trunc, info, err := env.Step(act)
		if err != nil {
			t.Fatal(err)
		}
		ref := buf.Add(replay.Transition{Obs: obs, Action: act, Reward: rew, NextObs: next, Terminated: term, Truncated: trunc, Episode: ep})
		if l != nil {
			sc.UpdateFromSim(env.Model(), env.State(), nil)
			c, _ := render.ResolveCamera(env.Model(), env.State(), cam)
			if err := r.Render(&sc, c, img); err != nil {
				t.Fatal(err)
			}
			l.Observe(ref, 0, ep, img, info.Get("progress"))
			if _, err := l.Update(context.Background(), step); err != nil {
				t.Fatal(err)
			}
		}
		obs = next
		if term || trunc {
			ep++
			obs, _ = env.Reset(seed*1000 + uint64(ep))
		}
		if step > int64(cfg.LearningStarts) && (l == nil || l.Trained()) {
			u.Sample(batch, rng)
			if l != nil {
				l.Apply(batch)
			}
			if _, err := agent.Update(batch); err != nil {
				t.Fatal(err)
			}
		}
		if step%1000 == 0 {
			t.Logf("%s step %d (%.0f s)", mode, step, time.Since(t0).Seconds())
		}
	}
	// deterministic evaluation with the dense return for reference
	envD, _ := tasks.Make(task, tasks.Options{Reward: tasks.Dense, MaxSteps: epLen})
	defer envD.Close()
	succ, ret := 0.0, 0.0
	const evalEps = 10
	for e := 0; e < evalEps; e++ {
		o, _ := envD.Reset(uint64(777000 + e))
		s := 0.0
		for {
			agent.Act(act, o, true)
			n, rw, te, tr, inf, err := envD.Step(act)
			if err != nil {
				t.Fatal(err)
			}
			ret += rw
			s = max(s, inf.Get("success"))
			o = n
			if te || tr {
				break
			}
		}
		succ += s
	}
	return succ / evalEps, ret / evalEps
}
