package train

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"time"

	"github.com/vlmrb/vlmrb/internal/safefile"
	"github.com/vlmrb/vlmrb/replay"
)

// recentEpisodes is the window of rollout/ statistics (SB3's stats_window_size).
const recentEpisodes = 20

// evalSeedSalt separates evaluation episode seeds from training ones; every
// evaluation uses the same episodes, so curves compare like with like.
const evalSeedSalt = 0x5eed_e7a1

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
	evaluate(ctx context.Context) (*EvalResult, map[string]float64, error)
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
	cfg  Config
	opts Options
	out  io.Writer // console table (nil when quiet)
	errw io.Writer
	res  *Result

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

	mlog     *MetricsLog
	prog     *Progress
	haveUpd  bool
	lastUpd  UpdateMetrics
	lastEval *EvalResult
	best     *bestEval // the best evaluation so far (checkpoints/best)
	title    string    // curve title
}

// bestEval is the evaluation whose agent checkpoints/best holds.
type bestEval struct {
	Step        int64   `json:"step"`
	SuccessRate float64 `json:"success_rate"`
	MeanReturn  float64 `json:"mean_return"`
}

func newCore(cfg Config, opts Options) *core {
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
func (c *core) openLog(man *Manifest) error {
	keep := int64(-1)
	if man != nil {
		keep = man.Step
	}
	var err error
	if c.mlog, err = OpenMetricsLog(c.cfg.Out, keep, c.cfg.Log.TensorBoard); err != nil {
		return err
	}
	c.startStep, c.startUpdates = c.step, c.updates
	c.sessionStart = time.Now()
	if c.out != nil {
		c.prog = NewProgress(c.opts.Stdout, c.step, c.cfg.Steps)
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

// add stores env i's transition and calls the hooks.
func (c *core) add(step int64, i int, t replay.Transition, info map[string]float64, done bool) (replay.Ref, error) {
	ref := c.buf.Add(t)
	return ref, c.hooks.step(StepEvent{Step: step, Env: i, Ref: ref, Transition: t, Info: info, Done: done, Demo: c.demo(i)})
}

// addDemo stores a recorded demonstration's transition (demos.go) and
// calls the hooks with Demo and Recorded set.
func (c *core) addDemo(step int64, i int, t replay.Transition, info map[string]float64, done bool) (replay.Ref, error) {
	ref := c.buf.Add(t)
	return ref, c.hooks.step(StepEvent{Step: step, Env: i, Ref: ref, Transition: t, Info: info, Done: done, Demo: true, Recorded: true})
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
		afterEpisode(c.smp.Sampler, c.epRet[i]) // ERO's replay reward
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
	// signal is the per-sample feedback of the last update.
	signal(f feedback) []float32
}

// update runs updates until the count reaches target. obs are the envs'
// current observations (AER's query states).
func (c *core) update(target int64, obs [][]float64, u updater) error {
	for c.updates < target {
		attend(c.smp.Sampler, obs, c.updates) // AER's current state
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
		if sig := u.signal(c.smp.feedback); sig != nil {
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

// rates returns env steps/s and updates/s of this process.
func (c *core) rates() (float64, float64) {
	el := time.Since(c.sessionStart).Seconds()
	if el <= 0 {
		return 0, 0
	}
	return float64(c.step-c.startStep) / el, float64(c.updates-c.startUpdates) / el
}

// logRow writes one metrics row and prints the console table.
func (c *core) logRow(l learner) error {
	v := map[string]float64{
		"rollout/ep_rew_mean":  mean(c.recentRet),
		"rollout/ep_len_mean":  mean(c.recentLen),
		"rollout/success_rate": mean(c.recentSucc),
		"time/episodes":        float64(c.episodes),
		"time/total_updates":   float64(c.updates),
		"time/elapsed_s":       c.elapsedBefore + time.Since(c.sessionStart).Seconds(),
	}
	sps, ups := c.rates()
	v["time/fps"], v["time/updates_per_s"] = sps, ups
	if c.haveUpd {
		c.lastUpd.Range(func(k string, x float64) { v[k] = x })
	}
	l.values(v)
	c.diag.metrics(v, c.buf.Len())
	eroMetrics(c.smp.Sampler, v)
	if err := c.mlog.Write(Row{Step: c.step, Values: v}); err != nil {
		return err
	}
	if c.out != nil {
		if c.prog != nil {
			c.prog.Clear()
		}
		// the table shows the latest evaluation; the files keep it in its own rows
		if c.lastEval != nil {
			v["eval/success_rate"] = c.lastEval.SuccessRate
			v["eval/mean_return"] = c.lastEval.MeanReturn
		}
		_, _ = fmt.Fprint(c.out, FormatTable(c.step, v))
	}
	return nil
}

// evalAndLog evaluates the deterministic policy, logs eval/ metrics and
// refreshes the curves.
func (c *core) evalAndLog(ctx context.Context, l learner, final bool) error {
	if c.cfg.Eval.Episodes == 0 {
		return nil
	}
	res, extra, err := l.evaluate(ctx)
	if err != nil {
		return err
	}
	c.lastEval = res
	if final {
		c.res.FinalEval = res
	}
	row := Row{Step: c.step, Values: map[string]float64{
		"eval/success_rate":   res.SuccessRate,
		"eval/mean_return":    res.MeanReturn,
		"eval/std_return":     res.StdReturn,
		"eval/mean_ep_length": res.MeanLength,
		"eval/episodes":       float64(res.Episodes),
	}}
	for k, x := range extra {
		row.Values[k] = x
	}
	if err := c.mlog.Write(row); err != nil {
		return err
	}
	if c.out != nil {
		if c.prog != nil {
			c.prog.Clear()
		}
		_, _ = fmt.Fprintf(c.out, "eval @ %d: success rate %.2f, mean return %.2f ± %.2f (%d episodes)",
			c.step, res.SuccessRate, res.MeanReturn, res.StdReturn, res.Episodes)
		if rho, ok := extra["eval/reward_expert_spearman"]; ok {
			_, _ = fmt.Fprintf(c.out, "; learned reward vs progress on an expert episode: Spearman %.2f", rho)
		}
		_, _ = fmt.Fprintln(c.out)
	}
	c.plot()
	if err := c.saveBest(l, res); err != nil {
		return err
	}
	return c.hooks.eval(EvalEvent{Step: c.step, Result: res, Final: final})
}

// saveBest keeps the agent of the best evaluation so far in
// checkpoints/best: the highest success rate, ties broken by the higher
// mean return (the earlier step when both tie).
func (c *core) saveBest(l learner, res *EvalResult) error {
	if b := c.best; b != nil && (res.SuccessRate < b.SuccessRate ||
		res.SuccessRate == b.SuccessRate && res.MeanReturn <= b.MeanReturn) {
		return nil
	}
	be := &bestEval{Step: c.step, SuccessRate: res.SuccessRate, MeanReturn: res.MeanReturn}
	man := &Manifest{Step: c.step, Updates: c.updates, Episodes: c.episodes}
	_, err := writeCheckpointDir(CheckpointRoot(c.cfg.Out), BestName, man, []CheckpointPart{
		{Name: "agent.bin", Write: writeBytes(l.marshalAgent)},
		{Name: "config.yaml", Write: writeBytes(c.cfg.encode)},
		{Name: "eval.json", Write: func(w io.Writer) error { return json.NewEncoder(w).Encode(res) }},
	})
	if err != nil {
		return fmt.Errorf("best checkpoint: %w", err)
	}
	c.best = be
	return nil
}

func (c *core) plot() {
	paths, err := PlotCurves(filepath.Join(c.cfg.Out, "curves"), c.title, c.mlog.Rows())
	if err != nil {
		c.warnf("learning curves: %v", err)
		return
	}
	c.res.Curves = paths
}

// loopState is the loop's part of a checkpoint (state.json); each learner
// adds its own fields.
type loopState struct {
	NextEpisode int64       `json:"next_episode"`
	RecentRet   []float64   `json:"recent_returns"`
	RecentLen   []float64   `json:"recent_lengths"`
	RecentSucc  []float64   `json:"recent_successes"`
	HaveUpd     bool        `json:"have_update_metrics"`
	LastEval    *EvalResult `json:"last_eval,omitempty"`
	Best        *bestEval   `json:"best,omitempty"`
	// EROPrev is the return of ERO's previous training episode (its replay
	// reward is the change since it); the sampler's own state is in
	// replay.bin.
	EROPrev *float64 `json:"ero_prev_return,omitempty"`
}

func (c *core) loopState() loopState {
	ls := loopState{NextEpisode: c.nextEpisode, RecentRet: c.recentRet, RecentLen: c.recentLen,
		RecentSucc: c.recentSucc, HaveUpd: c.haveUpd, LastEval: c.lastEval, Best: c.best}
	if e, ok := c.smp.Sampler.(*eroSampler); ok && e.have {
		ls.EROPrev = &e.prev
	}
	return ls
}

// save writes a checkpoint: the agent, the replay buffer, the config, the
// state (a learner's struct that embeds loopState) and extra parts.
func (c *core) save(agent func() ([]byte, error), state any, extra ...CheckpointPart) error {
	if err := c.mlog.Sync(); err != nil {
		return err
	}
	pcgState, err := c.pcg.MarshalBinary()
	if err != nil {
		return fmt.Errorf("checkpoint rng: %w", err)
	}
	man := &Manifest{
		Step: c.step, Updates: c.updates, Episodes: c.episodes,
		RNG:     map[string]string{"train": hex.EncodeToString(pcgState)},
		Elapsed: c.elapsedBefore + time.Since(c.sessionStart).Seconds(),
	}
	parts := append([]CheckpointPart{
		{Name: "agent.bin", Write: writeBytes(agent)},
		{Name: "replay.bin", Write: c.buf.Save},
		{Name: "config.yaml", Write: writeBytes(c.cfg.encode)},
		{Name: "state.json", Write: func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(state)
		}},
	}, extra...)
	dir, err := SaveCheckpoint(c.cfg.Out, man, parts, c.cfg.Ckpt.Keep)
	if err != nil {
		return err
	}
	c.res.Checkpoint = dir
	return c.hooks.checkpoint(CheckpointEvent{Step: c.step, Dir: dir})
}

// writeBytes adapts an encoder to a CheckpointPart writer.
func writeBytes(encode func() ([]byte, error)) func(io.Writer) error {
	return func(w io.Writer) error {
		b, err := encode()
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
}

// restore loads the checkpoint's replay buffer, random stream, counters
// and state.json into state (a learner's struct embedding loopState; ls
// points at that embedded part). It returns agent.bin's bytes.
func (c *core) restore(dir string, man *Manifest, state any, ls *loopState) ([]byte, error) {
	ab, err := readPart(dir, man, "agent.bin", MaxAgentBytes)
	if err != nil {
		return nil, fmt.Errorf("resume: %w", err)
	}
	f, err := safefile.Open(filepath.Join(dir, "replay.bin"))
	if err != nil {
		return nil, fmt.Errorf("resume: %w", err)
	}
	err = c.buf.Load(f)
	_ = f.Close()
	if err != nil {
		return nil, fmt.Errorf("resume replay buffer: %w", err)
	}
	b, err := readPart(dir, man, "state.json", maxStateBytes)
	if err != nil {
		return nil, fmt.Errorf("resume: %w", err)
	}
	if err := json.Unmarshal(b, state); err != nil {
		return nil, fmt.Errorf("resume: state.json: %w", err)
	}
	h, err := hex.DecodeString(man.RNG["train"])
	if err == nil {
		err = c.pcg.UnmarshalBinary(h)
	}
	if err != nil {
		return nil, fmt.Errorf("resume: rng state: %w", err)
	}
	c.step, c.updates, c.episodes = man.Step, man.Updates, man.Episodes
	c.elapsedBefore = man.Elapsed
	c.nextEpisode = ls.NextEpisode
	c.recentRet, c.recentLen, c.recentSucc = ls.RecentRet, ls.RecentLen, ls.RecentSucc
	c.haveUpd, c.lastEval, c.best = ls.HaveUpd, ls.LastEval, ls.Best
	if e, ok := c.smp.Sampler.(*eroSampler); ok && ls.EROPrev != nil {
		e.prev, e.have = *ls.EROPrev, true
	}
	c.res.Resumed, c.res.ResumedFrom = true, man.Step
	return ab, nil
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
