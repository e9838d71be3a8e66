package main

import (
	"errors"
	"fmt"
	"sync"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/tasks"
)

// vecEnv steps n task environments, one goroutine each, writing straight
// into caller-owned arrays. Its autoreset is Gymnasium 1.x's default
// (AutoresetMode.NEXT_STEP): the step that ends an episode of env i returns
// that episode's last observation with terminated/truncated set; the next
// step ignores env i's action, resets it and returns the reset observation
// with reward 0, terminated = truncated = false and the reset info.
// control.VecEnv resets in the same step instead (Gymnasium ≤ 0.29), which
// is why this type does not wrap it. Episode k of env i after Reset(seed)
// uses control.EpisodeSeed(seed, i, k), as control.VecEnv does.
type vecEnv struct {
	mu   sync.Mutex // one caller at a time
	envs []*env
	spec envSpec
	seed uint64
	eps  []int  // episodes started per env
	auto []bool // env i ended its episode on the previous step

	// the current call's caller-owned arrays
	act, obs, rew, info []float64
	term, trunc         []byte
	errs                []error
	reset               bool

	work   []chan struct{}
	done   sync.WaitGroup
	closed bool
}

func newVecEnv(task string, n int, optsJSON string) (*vecEnv, error) {
	if n < 1 {
		return nil, badf("vlmrb: num_envs must be at least 1, got %d", n)
	}
	if n > 4096 {
		return nil, badf("vlmrb: num_envs %d is more than 4096; use several vector envs", n)
	}
	v := &vecEnv{eps: make([]int, n), auto: make([]bool, n), errs: make([]error, n), work: make([]chan struct{}, n)}
	for range n {
		e, err := newEnv(task, optsJSON)
		if err != nil {
			for _, e := range v.envs {
				_ = e.close() // the constructor error is what matters
			}
			return nil, err
		}
		v.envs = append(v.envs, e)
	}
	v.spec = specOf(v.envs[0].e, n)
	for i := range v.work {
		v.work[i] = make(chan struct{})
		go v.worker(i)
	}
	return v, nil
}

func (v *vecEnv) worker(i int) {
	for range v.work[i] {
		v.one(i)
		v.done.Done()
	}
}

func (v *vecEnv) one(i int) {
	od, ad, nk := v.spec.ObsDim, v.spec.ActDim, len(infoKeys)
	obs, info := v.obs[i*od:(i+1)*od], v.info[i*nk:(i+1)*nk]
	e := v.envs[i]
	v.errs[i] = nil
	if v.reset || v.auto[i] {
		e.reset(control.EpisodeSeed(v.seed, i, v.eps[i]), obs, info)
		v.eps[i]++
		v.auto[i] = false
		if !v.reset {
			v.rew[i], v.term[i], v.trunc[i] = 0, 0, 0
		}
		return
	}
	var r float64
	var te, tr bool
	if err := e.step(v.act[i*ad:(i+1)*ad], obs, &r, &te, &tr, info); err != nil {
		v.errs[i] = fmt.Errorf("env %d: %w", i, err)
		return
	}
	v.rew[i], v.term[i], v.trunc[i] = r, b2u(te), b2u(tr)
	v.auto[i] = te || tr
}

func b2u(b bool) byte {
	if b {
		return 1
	}
	return 0
}

func (v *vecEnv) run() error {
	v.done.Add(len(v.envs))
	for _, c := range v.work {
		c <- struct{}{}
	}
	v.done.Wait()
	return errors.Join(v.errs...)
}

func (v *vecEnv) lock() error {
	if !v.mu.TryLock() {
		return errors.New("vlmrb: vector env is in use by another thread; step it from one thread")
	}
	if v.closed {
		v.mu.Unlock()
		return errors.New("vlmrb: vector env is closed")
	}
	return nil
}

// Reset resets every env (episode 0 of seed's sequence) into obs (n×ObsDim)
// and info (n×len(infoKeys)).
func (v *vecEnv) Reset(seed uint64, obs, info []float64) error {
	if err := v.lock(); err != nil {
		return err
	}
	defer v.mu.Unlock()
	if err := v.checkLens(nil, obs, nil, nil, nil, info); err != nil {
		return err
	}
	v.seed = seed
	for i := range v.eps {
		v.eps[i], v.auto[i] = 0, false
	}
	v.act, v.obs, v.info, v.reset = nil, obs, info, true
	return v.run()
}

// Step steps every env with act (n×ActDim). Input is checked before any
// env moves: a wrong length or a non-finite action of an env that is not
// autoresetting is an error and nothing steps.
func (v *vecEnv) Step(act, obs, rew []float64, term, trunc []byte, info []float64) error {
	if err := v.lock(); err != nil {
		return err
	}
	defer v.mu.Unlock()
	if err := v.checkLens(act, obs, rew, term, trunc, info); err != nil {
		return err
	}
	if v.eps[0] == 0 {
		return errors.New("vlmrb: vector env stepped before reset(); call reset() first")
	}
	ad := v.spec.ActDim
	for i := range v.envs {
		if v.auto[i] {
			continue // the action is ignored (NEXT_STEP autoreset)
		}
		for j, a := range act[i*ad : (i+1)*ad] {
			if a != a || a > 1e308 || a < -1e308 {
				return badf("vlmrb: action of env %d, element %d is %g; actions must be finite (nothing was stepped)", i, j, a)
			}
		}
	}
	v.act, v.obs, v.rew, v.term, v.trunc, v.info, v.reset = act, obs, rew, term, trunc, info, false
	return v.run()
}

func (v *vecEnv) checkLens(act, obs, rew []float64, term, trunc []byte, info []float64) error {
	n := len(v.envs)
	want := func(name string, got, w int) error {
		if got != w {
			return badf("vlmrb: %s has %d values, want %d", name, got, w)
		}
		return nil
	}
	errs := []error{want("obs buffer", len(obs), n*v.spec.ObsDim), want("info buffer", len(info), n*len(infoKeys))}
	if act != nil || rew != nil {
		errs = append(errs, want("actions", len(act), n*v.spec.ActDim), want("rewards buffer", len(rew), n),
			want("terminated buffer", len(term), n), want("truncated buffer", len(trunc), n))
	}
	return errors.Join(errs...)
}

func (v *vecEnv) Close() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.closed {
		return nil
	}
	v.closed = true
	for _, c := range v.work {
		close(c)
	}
	var errs []error
	for _, e := range v.envs {
		errs = append(errs, e.close())
	}
	return errors.Join(errs...)
}

// goVecSteps steps tasks.MakeVec's control.VecEnv (the Go API Go users
// step) with actions for steps steps after Reset(seed): the Go baseline of
// the overhead benchmark. actions holds steps×n×ActDim values.
func goVecSteps(task string, n, steps int, seed uint64, optsJSON string, actions []float64) error {
	_, to, err := parseOptions(task, optsJSON)
	if err != nil {
		return err
	}
	vec, _, err := tasks.MakeVec(task, n, to)
	if err != nil {
		return err
	}
	defer func() { _ = vec.Close() }() // a stepping error is what matters
	ad := vec.Spec().ActDim
	if len(actions) != steps*n*ad {
		return fmt.Errorf("vlmrb: %d actions for %d steps of %d envs × %d", len(actions), steps, n, ad)
	}
	rows := make([][]float64, n)
	vec.Reset(seed)
	for t := range steps {
		for i := range rows {
			o := (t*n + i) * ad
			rows[i] = actions[o : o+ad]
		}
		if _, _, _, _, _, err := vec.Step(rows); err != nil {
			return err
		}
	}
	return nil
}

// Render draws env i of the vector env (Gymnasium vector envs render env 0).
func (v *vecEnv) Render(i, w, h int, dst []byte) error {
	if err := v.lock(); err != nil {
		return err
	}
	defer v.mu.Unlock()
	if i < 0 || i >= len(v.envs) {
		return badf("vlmrb: env index %d is out of range [0, %d)", i, len(v.envs))
	}
	return v.envs[i].render(w, h, dst)
}

// RenderAll draws every env at w×h into dst (n×H×W×3), one goroutine per
// env (each env has its own camera).
func (v *vecEnv) RenderAll(w, h int, dst []byte) error {
	if err := v.lock(); err != nil {
		return err
	}
	defer v.mu.Unlock()
	if w <= 0 || h <= 0 {
		return badf("vlmrb: frame size %dx%d must be positive", w, h)
	}
	per := w * h * 3
	if len(dst) != len(v.envs)*per {
		return badf("vlmrb: frames buffer has %d bytes, want num_envs×H×W×3 = %d", len(dst), len(v.envs)*per)
	}
	errs := make([]error, len(v.envs))
	var wg sync.WaitGroup
	for i, e := range v.envs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = e.render(w, h, dst[i*per:(i+1)*per])
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
