package train

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"time"

	"github.com/vlmrb/vlmrb/replay"
	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/vlmprio"
)

// recentEpisodes is the window of rollout/ statistics (SB3's stats_window_size).
const recentEpisodes = 20

// learner is what one algorithm (SAC on the manipulation tasks, DQN on
// the grid tasks) adds to the shared loop: how it collects a vector step
// of experience, how it updates, evaluates, logs and checkpoints.
type learner interface {
	// collect takes one step in every training env and adds the
	// transitions through core.add.
	collect(ctx context.Context) error
	// train runs the updates the step count calls for (through core.update).
	train(ctx context.Context) error
	// evaluate runs the deterministic policy and returns extra eval/ values.
	evaluate(ctx context.Context) (*rundir.EvalResult, map[string]float64, error)
	// values adds the learner's own groups to a log row.
	values(v map[string]float64)
	// checkpoint writes the learner's checkpoint through core.save.
	checkpoint() error
	// marshalAgent is the agent as checkpoints store it (agent.bin).
	marshalAgent() ([]byte, error)
	// stop ends background work before the final evaluation.
	stop()
}

// core is the part of a run both learners share: the counters, the replay
// buffer and its sampler, the episodes in progress and their statistics,
// the metric log and console, the hooks, and the loop that calls the
// learner and paces evaluation, logging and checkpoints.
type core struct {
	cfg  rundir.Config
	opts Options
	out  io.Writer // console table (nil when quiet)
	errw io.Writer
	res  *Result
	// derived names the settings the run derived from others rather than
	// took as configured; the console's start says them.
	derived []string

	buf     *replay.Buffer
	smp     sampler
	batch   *replay.Batch
	prioBuf []float64
	diag    *replayDiag
	hooks   hookList // the run's own hooks, then Options.Hooks

	pcg *rand.PCG
	rng *rand.Rand

	step, updates, episodes int64
	nextEpisode             int64
	startStep, startUpdates int64
	sessionStart            time.Time
	elapsedBefore           float64

	// episodes in progress, per env
	epID   []int64
	epT    []int32
	epRet  []float64
	epSucc []bool

	recentRet, recentLen, recentSucc []float64

	mlog     *rundir.MetricsLog
	prog     *rundir.Progress
	haveUpd  bool
	lastUpd  UpdateMetrics
	lastEval *rundir.EvalResult
	best     *bestEval // the best evaluation so far (checkpoints/best)
	title    string    // curve title
}

func newCore(cfg rundir.Config, opts Options) *core {
	c := &core{cfg: cfg, opts: opts, errw: opts.Stderr, res: &Result{RunDir: cfg.Out}}
	if c.errw == nil {
		c.errw = io.Discard
	}
	if !opts.Quiet && opts.Stdout != nil {
		c.out = opts.Stdout
	}
	return c
}

func (c *core) warnf(format string, a ...any) {
	_, _ = fmt.Fprintf(c.errw, "warning: "+format+"\n", a...)
}

// initLoop sets up what every learner's loop needs once the buffer
// exists: the sampler, batch, random stream and episode bookkeeping.
func (c *core) initLoop(obsDim, actDim, batchSize int, totalUpdates, warmupSamples int64) error {
	var err error
	if c.smp, err = newSampler(&c.cfg, c.buf, totalUpdates, warmupSamples); err != nil {
		return err
	}
	c.diag = newReplayDiag(c.buf.Cap(), c.cfg.NumEnvs)
	c.batch = replay.NewBatch(batchSize, obsDim, actDim)
	c.prioBuf = make([]float64, batchSize)
	// the loop's own random stream: exploration actions and replay draws
	c.pcg = rand.NewPCG(c.cfg.Seed, 0x7261696e)
	c.rng = rand.New(c.pcg)
	n := c.cfg.NumEnvs
	c.epID, c.epT, c.epRet, c.epSucc = make([]int64, n), make([]int32, n), make([]float64, n), make([]bool, n)
	return nil
}

// openLog opens the metric files (truncated to the checkpoint's step on a
// resume) and starts the session clock and the progress bar.
func (c *core) openLog(man *rundir.Manifest) error {
	keep := int64(-1)
	if man != nil {
		keep = man.Step
	}
	var err error
	if c.mlog, err = rundir.OpenMetricsLog(c.cfg.Out, keep, c.cfg.Log.TensorBoard); err != nil {
		return err
	}
	c.startStep, c.startUpdates = c.step, c.updates
	c.sessionStart = time.Now()
	if c.out != nil {
		c.prog = rundir.NewProgress(c.opts.Stdout, c.step, c.cfg.Steps)
	}
	return nil
}

// startEpisode gives env i's new episode its id.
func (c *core) startEpisode(i int) {
	c.epID[i] = c.nextEpisode
	c.nextEpisode++
	c.epT[i], c.epRet[i], c.epSucc[i] = 0, 0, false
}

// demo reports whether env i's episode is one of the first cfg.Demos
// episodes, which the task's scripted expert drives: the buffer then holds
// reward-bearing experience from the start, whatever exploration finds.
func (c *core) demo(i int) bool { return c.epID[i] < int64(c.cfg.Demos) }

// add stores env i's transition with its frame o_t (nil: none) and calls
// the hooks.
func (c *core) add(step int64, i int, t replay.Transition, o *vlmprio.Observed, info map[string]float64, done bool) (replay.Ref, error) {
	ref := c.buf.Add(t)
	return ref, c.hooks.step(StepEvent{Step: step, Env: i, Ref: ref, Transition: t, Info: info, Done: done, Demo: c.demo(i), Frame: o})
}

// addDemo stores a recorded demonstration's transition (demos.go) with the
// recording's frame (nil: not scored) and calls the hooks with Demo and
// Recorded set.
func (c *core) addDemo(step int64, i int, t replay.Transition, o *vlmprio.Observed, info map[string]float64, done bool) (replay.Ref, error) {
	ref := c.buf.Add(t)
	return ref, c.hooks.step(StepEvent{Step: step, Env: i, Ref: ref, Transition: t, Info: info, Done: done, Demo: true, Recorded: true, Frame: o})
}

// record adds one step's reward and success to env i's episode and closes
// the episode when it is done.
func (c *core) record(i int, reward float64, success, done bool) {
	c.epRet[i] += reward
	c.epT[i]++
	if success {
		c.epSucc[i] = true
	}
	if !done {
		return
	}
	if !c.demo(i) {
		c.smp.endEpisode(c.epRet[i]) // ERO's replay reward
	}
	c.closeEpisode(c.epRet[i], float64(c.epT[i]), c.epSucc[i])
	c.startEpisode(i)
}

// closeEpisode adds a finished episode to the rollout/ statistics.
func (c *core) closeEpisode(ret, length float64, success bool) {
	push := func(s *[]float64, v float64) {
		*s = append(*s, v)
		if len(*s) > recentEpisodes {
			*s = (*s)[1:]
		}
	}
	push(&c.recentRet, ret)
	push(&c.recentLen, length)
	push(&c.recentSucc, b2f(success))
	c.episodes++
}

// updater is one learner's gradient step on a sampled batch.
type updater interface {
	// prepare rewrites the batch before the update (learned rewards).
	prepare(b *replay.Batch)
	update(b *replay.Batch) (UpdateMetrics, error)
	// TDErrors and ReLoScores are the last update's per-sample signals
	// (the sampler takes back the one the config decided: sampler.signal).
	TDErrors() []float32
	ReLoScores() []float32
}

// update runs updates until the count reaches target. obs are the envs'
// current observations (AER's query states).
func (c *core) update(target int64, obs [][]float64, u updater) error {
	for c.updates < target {
		c.smp.query(obs, c.updates) // AER's current state
		if !c.smp.Sample(c.batch, c.rng) {
			return nil
		}
		k := c.smp.prioritized()
		u.prepare(c.batch)
		m, err := u.update(c.batch)
		if err != nil {
			return err
		}
		c.lastUpd, c.haveUpd = m, true
		c.updates++
		if sig := c.smp.signal(u); sig != nil {
			for i, v := range sig {
				c.prioBuf[i] = float64(v)
			}
			c.smp.UpdatePriorities(c.batch.Refs, c.prioBuf[:len(sig)])
		}
		if err := c.hooks.update(UpdateEvent{Step: c.step, Update: c.updates, Batch: c.batch, Metrics: m,
			Prioritized: k, BufferLen: c.buf.Len()}); err != nil {
			return err
		}
	}
	return nil
}

// loop runs vector steps, updates, evaluation, logging and checkpoints
// until the budget is spent or ctx is cancelled.
func (c *core) loop(ctx context.Context, l learner) error {
	for c.step < c.cfg.Steps {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := l.collect(ctx); err != nil {
			return err
		}
		if err := l.train(ctx); err != nil {
			return err
		}
		if c.prog != nil {
			c.prog.Update(c.step)
		}
		if err := c.pace(ctx, l); err != nil {
			return err
		}
	}
	return nil
}

// pace runs the evaluation, log row and checkpoint that the vector step
// which just ended crossed into.
func (c *core) pace(ctx context.Context, l learner) error {
	n := int64(c.cfg.NumEnvs)
	if crossed(c.step, n, c.cfg.Eval.Every) && c.step < c.cfg.Steps {
		if err := c.evalAndLog(ctx, l, false); err != nil {
			return err
		}
	}
	if crossed(c.step, n, c.cfg.Log.Every) {
		if err := c.logRow(l); err != nil {
			return err
		}
	}
	if crossed(c.step, n, c.cfg.Ckpt.Every) && c.step < c.cfg.Steps {
		if err := l.checkpoint(); err != nil {
			return err
		}
	}
	return nil
}

// crossed reports whether step just passed a multiple of every (after
// advancing by inc).
func crossed(step, inc, every int64) bool {
	return every > 0 && step/every != (step-inc)/every
}

// finish runs the end-of-run evaluation, log row and checkpoint. A run
// that failed (a diverged agent included) never checkpoints over its last
// good checkpoint.
func (c *core) finish(ctx context.Context, l learner, loopErr error) error {
	if c.mlog == nil {
		return loopErr
	}
	l.stop()
	interrupted := errors.Is(loopErr, context.Canceled) || errors.Is(loopErr, context.DeadlineExceeded)
	switch {
	case loopErr == nil:
		if err := c.evalAndLog(ctx, l, true); err != nil {
			return err
		}
		if !crossed(c.step, int64(c.cfg.NumEnvs), c.cfg.Log.Every) {
			if err := c.logRow(l); err != nil {
				return err
			}
		}
	case interrupted:
		c.res.Interrupted = true
	default:
		c.fillResult()
		return loopErr
	}
	if c.prog != nil {
		c.prog.Clear()
	}
	if err := l.checkpoint(); err != nil {
		return errors.Join(loopErr, err)
	}
	c.plot()
	c.fillResult()
	return loopErr
}

func (c *core) fillResult() {
	c.res.Step, c.res.Updates, c.res.Episodes = c.step, c.updates, c.episodes
	c.res.Elapsed = time.Since(c.sessionStart)
	c.res.EnvSPS, c.res.UpdatesPS = c.rates()
}

// closeLog closes the metric files.
func (c *core) closeLog() {
	if c.mlog != nil {
		if err := c.mlog.Close(); err != nil {
			c.warnf("closing metric files: %v", err)
		}
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
