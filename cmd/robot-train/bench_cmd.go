package main

import (
	"context"
	"fmt"
	"image"
	"io"
	"math/rand/v2"
	"text/tabwriter"
	"time"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/nn"
	"github.com/vlmrb/vlmrb/replay"
	"github.com/vlmrb/vlmrb/sac"
	"github.com/vlmrb/vlmrb/tasks"
	"github.com/vlmrb/vlmrb/train"
)

// benchRow is one measured throughput.
type benchRow struct {
	what, unit string
	rate       float64
	note       string
	err        error
}

// measure calls f (which does `per` units of work) until d has passed and
// returns units per second.
func measure(ctx context.Context, d time.Duration, per float64, f func() error) (float64, error) {
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

func cmdBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("bench", "[--task NAME] [--seconds S]", stderr)
	task := fs.String("task", "push", "task whose scene is simulated and rendered")
	secs := fs.Float64("seconds", 2, "seconds per measurement")
	backend := fs.String("render-backend", "auto", "renderer: auto|egl|soft")
	capacity := fs.Int("replay-capacity", 1<<18, "replay buffer size for the sampling measurements")
	blas := fs.String("blas", "auto", "BLAS backend for the SAC measurements: auto|gonum|openblas")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *secs <= 0 || *capacity < 256 {
		return usagef("--seconds must be > 0 and --replay-capacity ≥ 256")
	}
	if _, err := tasks.Lookup(*task); err != nil {
		return usagef("%v", err)
	}
	if err := nn.SetBackend(*blas); err != nil {
		return usagef("--blas: %v", err)
	}
	d := time.Duration(*secs * float64(time.Second))
	var rows []benchRow

	// sim: control steps of the task env (frame skip 5) under random actions
	env, err := tasks.Make(*task, tasks.Options{})
	if err != nil {
		return err
	}
	defer func() { _ = env.Close() }()
	rng := rand.New(rand.NewPCG(1, 2))
	act := make([]float64, env.Spec().ActDim)
	env.Reset(1)
	ep := uint64(1)
	rate, err := measure(ctx, d, 100, func() error {
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
	rows = append(rows, benchRow{what: "sim: " + *task + " env step (5 substeps)", unit: "steps/s", rate: rate, err: err})

	// render: scorer-size frames of the same scene
	for _, sz := range []int{84, 128} {
		cam, err := train.NewSimCamera(*backend, "corner", "", sz, sz, env)
		if err != nil {
			rows = append(rows, benchRow{what: fmt.Sprintf("render %dx%d", sz, sz), unit: "frames/s", err: err})
			continue
		}
		img := image.NewRGBA(image.Rect(0, 0, sz, sz))
		rate, err := measure(ctx, d, 1, func() error { return cam.Render(env, img) })
		rows = append(rows, benchRow{what: fmt.Sprintf("render %dx%d", sz, sz), unit: "frames/s", rate: rate, note: cam.Describe(), err: err})
		cam.Close()
	}

	// sac: updates at the size (obs 39, act 4, 256×256, batch 256)
	sc := sac.DefaultConfig()
	agent, err := sac.New(sc, tasks.ObsDim, tasks.ActDim)
	if err != nil {
		return err
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
	rate, err = measure(ctx, d, 1, func() error { _, err := agent.Update(batch); return err })
	rows = append(rows, benchRow{what: "sac update (256x256, batch 256)", unit: "updates/s", rate: rate, note: "BLAS " + nn.Backend(), err: err})
	obs := make([]float64, tasks.ObsDim)
	rate, err = measure(ctx, d, 1000, func() error {
		for range 1000 {
			agent.Act(act, obs, false)
		}
		return nil
	})
	rows = append(rows, benchRow{what: "sac act (batch 1)", unit: "actions/s", rate: rate, err: err})

	// replay: batch-256 samples from a full buffer
	buf, err := replay.NewBuffer(replay.Config{Capacity: *capacity, ObsDim: tasks.ObsDim, ActDim: tasks.ActDim})
	if err != nil {
		return err
	}
	per, _ := replay.NewPER(buf, replay.DefaultPERConfig())
	o := make([]float64, tasks.ObsDim)
	a := make([]float64, tasks.ActDim)
	t0 := time.Now()
	for i := range buf.Cap() {
		buf.Add(replay.Transition{Obs: o, NextObs: o, Action: a, Reward: float64(i % 7)})
	}
	insert := float64(buf.Cap()) / time.Since(t0).Seconds()
	rows = append(rows, benchRow{what: "replay insert (with PER attached)", unit: "transitions/s", rate: insert})
	for _, s := range []struct {
		name string
		s    replay.Sampler
	}{{"uniform", replay.NewUniform(buf)}, {"per", per}} {
		rate, err := measure(ctx, d, 1, func() error { s.s.Sample(batch, rng); return nil })
		rows = append(rows, benchRow{what: fmt.Sprintf("replay sample batch 256 (%s, %d slots)", s.name, buf.Cap()), unit: "batches/s", rate: rate, err: err})
	}

	// end-to-end: vec env with 2 envs, random actions
	vec, err := control.NewVecEnv(2, func(int) (control.Env, error) { return tasks.Make(*task, tasks.Options{}) })
	if err == nil {
		vec.Reset(3)
		acts := [][]float64{make([]float64, 4), make([]float64, 4)}
		rate, err = measure(ctx, d, 200, func() error {
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
	rows = append(rows, benchRow{what: "VecEnv 2 envs, random actions", unit: "steps/s", rate: rate, err: err})

	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	_, _ = fmt.Fprintln(tw, "MEASUREMENT\tRATE\tUNIT\tNOTE")
	for _, r := range rows {
		if r.err != nil {
			_, _ = fmt.Fprintf(tw, "%s\t-\t%s\tunavailable: %v\n", r.what, r.unit, r.err)
			continue
		}
		_, _ = fmt.Fprintf(tw, "%s\t%.0f\t%s\t%s\n", r.what, r.rate, r.unit, r.note)
	}
	_, _ = fmt.Fprintf(tw, "(%.1f s per measurement; numbers depend on machine load)\n", *secs)
	return tw.Flush()
}
