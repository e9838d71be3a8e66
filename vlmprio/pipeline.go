package vlmprio

import (
	"context"
	"fmt"
	"image"
	"time"

	"github.com/vlmrb/vlmrb/frame"
	"github.com/vlmrb/vlmrb/replay"
)

// Pipeline is VLM-RB's scoring path for a training run with any learner:
// one frame.Source per environment → Clipper → Prioritizer (bounded queue,
// workers, Scorer) → the ScoreSink (replay's VLM-RB sampler).
//
// The frame rule. o_t is the observation the transition's action is taken
// in: env i's state s_t before its step t, where s_0 is the state right
// after the reset. A transition (s_t, a_t, r_t, s_{t+1}) stored in replay
// goes with frame o_t, and the clip that scores transition i is
// (o_i … o_{i+L−1}) — VLM-RB's τ_i. Each state is rendered once: the loop
// calls Capture for every env before every env step (o_t), and Push for
// every transition it stores, in order; transitions may reach replay later
// than their step (n-step returns), so each env keeps a queue of captured
// frames, and Push takes the oldest. An episode that terminates (the goal
// reached, not a time limit) has one more observation, o_T: the loop
// captures it with Terminal before the reset, and it closes the episode's
// last clips. A truncated episode's clips end at o_{T−1}. Past the
// episode's last frame, clips are padded with it (TailPad).
//
// Without sources (an oracle scorer reads privileged progress only) the
// frames carry only their camera name, sequence number and time.
//
// When scores land. With PrioritizerConfig.Inline a clip is scored inside
// the Push that completes it; with workers and Lag L, its score is written
// inside the L-th Tick after that Push (the loop waits for it there if
// needed); with workers and no Lag, whenever its worker finishes. The
// first two make a run with a deterministic scorer a function of its seed.
type Pipeline struct {
	cfg     PipelineConfig
	clipper *Clipper
	prio    *Prioritizer
	queues  [][]pending // per env, oldest first
	term    []pending   // per env: the terminal frame captured by Terminal
	hasTerm []bool
	free    []*image.RGBA // image buffers handed back after the Clipper cloned them
	seq     uint64
	renderT time.Duration
	stopped bool
}

// PipelineConfig configures a Pipeline.
type PipelineConfig struct {
	Envs        int
	Clipper     ClipperConfig
	Prioritizer PrioritizerConfig
	// Sources are the envs' cameras, one per env (their Next renders or
	// reads the env's current state); nil for scorers that read no image.
	// The Pipeline does not close them.
	Sources []frame.Source
	// Camera names image-less frames (no Sources).
	Camera string
}

type pending struct {
	f        frame.Frame
	progress float64
	has      bool // progress is known
}

// NewPipeline returns a pipeline scoring with scorer into sink. It panics
// when Sources is set with a length other than Envs (programmer misuse).
func NewPipeline(scorer Scorer, sink ScoreSink, cfg PipelineConfig) *Pipeline {
	if cfg.Sources != nil && len(cfg.Sources) != cfg.Envs {
		panic(fmt.Sprintf("vlmprio: NewPipeline: %d sources for %d envs", len(cfg.Sources), cfg.Envs))
	}
	return &Pipeline{
		cfg:     cfg,
		clipper: NewClipper(cfg.Clipper),
		prio:    NewPrioritizer(scorer, sink, cfg.Prioritizer),
		queues:  make([][]pending, cfg.Envs),
		term:    make([]pending, cfg.Envs),
		hasTerm: make([]bool, cfg.Envs),
	}
}

// Start starts the Prioritizer's workers (none with Inline).
func (p *Pipeline) Start(ctx context.Context) { p.prio.Start(ctx) }

// Tick ends one step of the loop: under PrioritizerConfig.Lag it writes
// back the scores that are due, waiting for any still being scored (see
// Prioritizer.Tick). Call it once per loop step, at the same point of
// every step (train calls it before the step's Captures).
func (p *Pipeline) Tick(ctx context.Context) error { return p.prio.Tick(ctx) }

// Images reports whether the pipeline reads frames from sources.
func (p *Pipeline) Images() bool { return p.cfg.Sources != nil }

// Capture takes o_t of env: its frame from the env's source (or an
// image-less frame stamped t when there is none) with the state's
// privileged progress (NaN or hasProgress false when unknown). Call it
// before the env's step.
func (p *Pipeline) Capture(ctx context.Context, env int, progress float64, hasProgress bool, t time.Duration) error {
	pf, err := p.capture(ctx, env, progress, hasProgress, t)
	if err != nil {
		return err
	}
	p.queues[env] = append(p.queues[env], pf)
	return nil
}

// Terminal takes o_T of env's episode that just terminated (before the
// reset); the episode's last Push (Done) closes its clips with it.
func (p *Pipeline) Terminal(ctx context.Context, env int, progress float64, hasProgress bool, t time.Duration) error {
	pf, err := p.capture(ctx, env, progress, hasProgress, t)
	if err != nil {
		return err
	}
	if p.hasTerm[env] {
		p.recycle(p.term[env].f.Image)
	}
	p.term[env], p.hasTerm[env] = pf, true
	return nil
}

func (p *Pipeline) capture(ctx context.Context, env int, progress float64, hasProgress bool, t time.Duration) (pending, error) {
	t0 := time.Now()
	pf := pending{progress: progress, has: hasProgress}
	if p.cfg.Sources == nil {
		pf.f = frame.Frame{Camera: p.cfg.Camera, Seq: p.seq, Time: time.Unix(0, 0).Add(t)}
	} else {
		if n := len(p.free); n > 0 {
			pf.f.Image, p.free = p.free[n-1], p.free[:n-1]
		}
		if err := p.cfg.Sources[env].Next(ctx, &pf.f); err != nil {
			p.recycle(pf.f.Image)
			return pending{}, fmt.Errorf("scorer frame of env %d: %w", env, err)
		}
	}
	p.seq++
	p.renderT += time.Since(t0)
	return pf, nil
}

// Push hands the transition of env stored at ref (its oldest captured
// frame) to the Clipper and submits the clips that completed. done marks
// the episode's last transition; it drops frames still queued for env
// (none when every step's transition was stored).
func (p *Pipeline) Push(env int, episode int64, ref replay.Ref, done bool) {
	q := p.queues[env]
	if len(q) == 0 {
		panic(fmt.Sprintf("vlmprio: Pipeline.Push for env %d without a captured frame", env))
	}
	pf := q[0]
	p.queues[env] = q[1:]
	st := Step{Episode: episode, Frame: pf.f, Ref: ref, Progress: pf.progress, HasProgress: pf.has, Done: done}
	if done && p.hasTerm[env] {
		t := p.term[env]
		st.Terminal, st.TerminalProgress = &t.f, t.progress
		p.hasTerm[env] = false
		defer p.recycle(t.f.Image)
	}
	for _, c := range p.clipper.Push(env, st) {
		p.prio.Submit(c)
	}
	p.recycle(pf.f.Image) // the Clipper keeps its own copy
	if done {
		for _, left := range p.queues[env] {
			p.recycle(left.f.Image)
		}
		p.queues[env] = p.queues[env][:0]
	}
}

// PushFrame is Push for a transition whose frame o_t the caller already
// has (a recorded demonstration's video frame, or an image-less frame):
// it goes to the Clipper directly, past env's queue of captures.
func (p *Pipeline) PushFrame(env int, episode int64, ref replay.Ref, f frame.Frame, progress float64, hasProgress, done bool) {
	if f.Image == nil && f.Camera == "" {
		f.Camera = p.cfg.Camera
	}
	for _, c := range p.clipper.Push(env, Step{Episode: episode, Frame: f, Ref: ref, Progress: progress, HasProgress: hasProgress, Done: done}) {
		p.prio.Submit(c)
	}
}

// Reset forgets env's captured frames that no transition took (an episode
// cut short outside the loop's Push calls).
func (p *Pipeline) Reset(env int) {
	for _, left := range p.queues[env] {
		p.recycle(left.f.Image)
	}
	p.queues[env] = p.queues[env][:0]
	if p.hasTerm[env] {
		p.recycle(p.term[env].f.Image)
		p.hasTerm[env] = false
	}
}

func (p *Pipeline) recycle(img *image.RGBA) {
	if img != nil {
		p.free = append(p.free, img)
	}
}

// Metrics returns the Prioritizer's counters.
func (p *Pipeline) Metrics() Metrics { return p.prio.Metrics() }

// RenderTime is the time spent capturing frames.
func (p *Pipeline) RenderTime() time.Duration { return p.renderT }

// Clipper returns the pipeline's Clipper (for its counters).
func (p *Pipeline) Clipper() *Clipper { return p.clipper }

// Close stops the Prioritizer: workers drain, queued clips are dropped.
// Safe to call more than once.
func (p *Pipeline) Close() {
	if !p.stopped {
		p.stopped = true
		p.prio.Close()
	}
}
