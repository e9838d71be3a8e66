package main

import (
	"context"
	"fmt"
	"image"
	"math/rand/v2"
	"time"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/nn"
	"github.com/vlmrb/vlmrb/render"
	"github.com/vlmrb/vlmrb/replay"
	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/sac"
	"github.com/vlmrb/vlmrb/tasks"
)

// ThroughputOptions says what Throughput measures.
type ThroughputOptions struct {
	Task     string  // task whose scene is simulated and rendered
	Seconds  float64 // seconds per measurement (> 0)
	Backend  string  // renderer: auto | egl | soft
	Capacity int     // replay buffer size for the sampling measurements (≥ 256)
	BLAS     string  // BLAS backend for the SAC measurements: auto | gonum | openblas
}

// ThroughputRow is one measured rate; Err is set when the measurement
// could not run (e.g. no renderer).
type ThroughputRow struct {
	What, Unit string
	Rate       float64
	Note       string
	Err        error
}

// Throughput is robot-train bench: a quick look at this machine's rates
// for the sim, the renderer, SAC updates and acts, replay insert and
// sample, and a two-env VecEnv, each measured for o.Seconds. The
// benchmarks of record are the packages' go test -bench functions; this is
// the same work measured once without the test harness. Bad options are a
// *rundir.ConfigError.
func Throughput(ctx context.Context, o ThroughputOptions) ([]ThroughputRow, error) {
	if o.Seconds <= 0 || o.Capacity < 256 {
		return nil, &rundir.ConfigError{Msg: "--seconds must be > 0 and --replay-capacity ≥ 256"}
	}
	if _, err := describeTask(o.Task); err != nil {
		return nil, err
	}
	// process-global: every network in this process uses the backend
	if err := nn.SetBackend(o.BLAS); err != nil {
		return nil, &rundir.ConfigError{Msg: "--blas: " + err.Error()}
	}
	d := time.Duration(o.Seconds * float64(time.Second))
	env, err := tasks.Make(o.Task, tasks.Options{})
	if err != nil {
		return nil, err
	}
	defer func() { _ = env.Close() }()
	rng := rand.New(rand.NewPCG(1, 2))
	rows := []ThroughputRow{benchSim(ctx, d, o.Task, env, rng)}
	rows = append(rows, benchRender(ctx, d, o.Backend, env)...)
	sacRows, batch, err := benchSAC(ctx, d, rng)
	if err != nil {
		return nil, err
	}
	rows = append(rows, sacRows...)
	replayRows, err := benchReplay(ctx, d, o.Capacity, batch, rng)
	if err != nil {
		return nil, err
	}
	rows = append(rows, replayRows...)
	return append(rows, benchVec(ctx, d, o.Task, rng)), nil
}

// benchSim: control steps of the task env (frame skip 5) under random actions.
func benchSim(ctx context.Context, d time.Duration, task string, env *tasks.Env, rng *rand.Rand) ThroughputRow {
	act := make([]float64, env.Spec().ActDim)
	env.Reset(1)
	ep := uint64(1)
	rate, err := measureRate(ctx, d, 100, func() error {
		for range 100 {
			for i := range act {
				act[i] = 2*rng.Float64() - 1
			}
			_, _, term, trunc, _, err := env.Step(act)
			if err != nil {
				return err
			}
			if term || trunc {
				ep++
				env.Reset(ep)
			}
		}
		return nil
	})
	return ThroughputRow{What: "sim: " + task + " env step (5 substeps)", Unit: "steps/s", Rate: rate, Err: err}
}

// benchRender: scorer-size frames of the same scene.
func benchRender(ctx context.Context, d time.Duration, backend string, env *tasks.Env) []ThroughputRow {
	var rows []ThroughputRow
	for _, sz := range []int{84, 128} {
		cam, err := openTaskCamera(backend, "corner", "", sz, sz, env, render.DefaultCameraOptions())
		if err != nil {
			rows = append(rows, ThroughputRow{What: fmt.Sprintf("render %dx%d", sz, sz), Unit: "frames/s", Err: err})
			continue
		}
		img := image.NewRGBA(image.Rect(0, 0, sz, sz))
		rate, err := measureRate(ctx, d, 1, func() error { return cam.Render(env, img) })
		rows = append(rows, ThroughputRow{What: fmt.Sprintf("render %dx%d", sz, sz), Unit: "frames/s", Rate: rate, Note: cam.Describe(), Err: err})
		_ = cam.Close()
	}
	return rows
}

// benchSAC: updates at the size (obs 39, act 4, 256×256, batch
// 256) and single acts. It returns the random batch for the replay rows.
func benchSAC(ctx context.Context, d time.Duration, rng *rand.Rand) ([]ThroughputRow, *replay.Batch, error) {
	agent, err := sac.New(sac.DefaultConfig(), tasks.ObsDim, tasks.ActDim)
	if err != nil {
		return nil, nil, err
	}
	defer agent.Close()
	batch := replay.NewBatch(256, tasks.ObsDim, tasks.ActDim)
	for i := range batch.Obs {
		batch.Obs[i], batch.NextObs[i] = float32(rng.NormFloat64()), float32(rng.NormFloat64())
	}
	for i := range batch.Actions {
		batch.Actions[i] = float32(2*rng.Float64() - 1)
	}
	for i := range batch.Rewards {
		batch.Rewards[i], batch.Weights[i] = float32(rng.Float64()), 1
	}
	rate, err := measureRate(ctx, d, 1, func() error { _, err := agent.Update(batch); return err })
	rows := []ThroughputRow{{What: "sac update (256x256, batch 256)", Unit: "updates/s", Rate: rate, Note: "BLAS " + nn.Backend(), Err: err}}
	obs, act := make([]float64, tasks.ObsDim), make([]float64, tasks.ActDim)
	rate, err = measureRate(ctx, d, 1000, func() error {
		for range 1000 {
			agent.Act(act, obs, false)
		}
		return nil
	})
	return append(rows, ThroughputRow{What: "sac act (batch 1)", Unit: "actions/s", Rate: rate, Err: err}), batch, nil
}

// benchReplay: inserts into a buffer of capacity slots, then batch-256
// samples from it full.
func benchReplay(ctx context.Context, d time.Duration, capacity int, batch *replay.Batch, rng *rand.Rand) ([]ThroughputRow, error) {
	buf, err := replay.NewBuffer(replay.Config{Capacity: capacity, ObsDim: tasks.ObsDim, ActDim: tasks.ActDim})
	if err != nil {
		return nil, err
	}
	per, _ := replay.NewPER(buf, replay.DefaultPERConfig())
	zo := make([]float64, tasks.ObsDim)
	a := make([]float64, tasks.ActDim)
	t0 := time.Now()
	for i := range buf.Cap() {
		buf.Add(replay.Transition{Obs: zo, NextObs: zo, Action: a, Reward: float64(i % 7)})
	}
	insert := float64(buf.Cap()) / time.Since(t0).Seconds()
	rows := []ThroughputRow{{What: "replay insert (with PER attached)", Unit: "transitions/s", Rate: insert}}
	for _, s := range []struct {
		name string
		s    replay.Sampler
	}{{"uniform", replay.NewUniform(buf)}, {"per", per}} {
		rate, err := measureRate(ctx, d, 1, func() error { s.s.Sample(batch, rng); return nil })
		rows = append(rows, ThroughputRow{What: fmt.Sprintf("replay sample batch 256 (%s, %d slots)", s.name, buf.Cap()), Unit: "batches/s", Rate: rate, Err: err})
	}
	return rows, nil
}

// benchVec: end to end, a VecEnv of 2 envs under random actions.
func benchVec(ctx context.Context, d time.Duration, task string, rng *rand.Rand) ThroughputRow {
	var rate float64
	vec, err := control.NewVecEnv(2, func(int) (control.Env, error) { return tasks.Make(task, tasks.Options{}) })
	if err == nil {
		vec.Reset(3)
		acts := [][]float64{make([]float64, 4), make([]float64, 4)}
		rate, err = measureRate(ctx, d, 200, func() error {
			for range 100 {
				for _, a := range acts {
					for i := range a {
						a[i] = 2*rng.Float64() - 1
					}
				}
				if _, _, _, _, _, err := vec.Step(acts); err != nil {
					return err
				}
			}
			return nil
		})
		_ = vec.Close()
	}
	return ThroughputRow{What: "VecEnv 2 envs, random actions", Unit: "steps/s", Rate: rate, Err: err}
}

// measureRate calls f (which does `per` units of work) until d has passed and
// returns units per second.
func measureRate(ctx context.Context, d time.Duration, per float64, f func() error) (float64, error) {
	if err := f(); err != nil { // warm-up
		return 0, err
	}
	start := time.Now()
	n := 0.0
	for time.Since(start) < d {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		if err := f(); err != nil {
			return 0, err
		}
		n += per
	}
	return n / time.Since(start).Seconds(), nil
}
