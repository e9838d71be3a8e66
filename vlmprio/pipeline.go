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
// calls Capture for every env before every env step (o_t) and carries the
// Observed it returns with that step's transition — through n-step returns
// too, where a transition reaches replay later than its step — to the Push
// that stores it, so a frame is paired with its transition by the loop's
// own data, never by call order. An episode that terminates (the goal
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
	term    []Observed // per env: the terminal frame captured by Terminal
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

// Observed is o_t of one env as Capture took it: the frame and the state's
// privileged progress. The loop carries it with its transition to Push.
type Observed struct {
	Frame       frame.Frame
	Progress    float64
	HasProgress bool // Progress is known
	// owned marks a frame whose image the pipeline rendered into one of
	// its buffers (Capture), which Push hands back to the pool; a caller's
	// frame (a recording's) is never reused.
	owned bool
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
		term:    make([]Observed, cfg.Envs),
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
// before the env's step and hand the result to the Push of that step's
// transition (or to Discard when no transition takes it).
func (p *Pipeline) Capture(ctx context.Context, env int, progress float64, hasProgress bool, t time.Duration) (Observed, error) {
	return p.capture(ctx, env, progress, hasProgress, t)
}

// Terminal takes o_T of env's episode that just terminated (before the
// reset); the episode's last Push (Done) closes its clips with it.
func (p *Pipeline) Terminal(ctx context.Context, env int, progress float64, hasProgress bool, t time.Duration) error {
	pf, err := p.capture(ctx, env, progress, hasProgress, t)
	if err != nil {
		return err
	}
	if p.hasTerm[env] {
		p.Discard(p.term[env])
	}
	p.term[env], p.hasTerm[env] = pf, true
	return nil
}

func (p *Pipeline) capture(ctx context.Context, env int, progress float64, hasProgress bool, t time.Duration) (Observed, error) {
	t0 := time.Now()
	pf := Observed{Progress: progress, HasProgress: hasProgress, owned: true}
	if p.cfg.Sources == nil {
		pf.Frame = frame.Frame{Camera: p.cfg.Camera, Seq: p.seq, Time: time.Unix(0, 0).Add(t)}
	} else {
		if n := len(p.free); n > 0 {
			pf.Frame.Image, p.free = p.free[n-1], p.free[:n-1]
		}
		if err := p.cfg.Sources[env].Next(ctx, &pf.Frame); err != nil {
			p.recycle(pf.Frame.Image)
			return Observed{}, fmt.Errorf("scorer frame of env %d: %w", env, err)
		}
	}
	p.seq++
	p.renderT += time.Since(t0)
	return pf, nil
}

// Push hands the transition of env stored at ref, with its frame o (what
// Capture returned before the transition's step, or a frame the caller
// has: a recorded demonstration's video frame or an image-less frame), to
// the Clipper and submits the clips that completed. done marks the
// episode's last transition; a frame Terminal took closes its clips.
func (p *Pipeline) Push(env int, episode int64, ref replay.Ref, o Observed, done bool) {
	if o.Frame.Image == nil && o.Frame.Camera == "" {
		o.Frame.Camera = p.cfg.Camera
	}
	st := Step{Episode: episode, Frame: o.Frame, Ref: ref, Progress: o.Progress, HasProgress: o.HasProgress, Done: done}
	if done && p.hasTerm[env] {
		t := p.term[env]
		st.Terminal, st.TerminalProgress = &t.Frame, t.Progress
		p.hasTerm[env] = false
		defer p.Discard(t)
	}
	for _, c := range p.clipper.Push(env, st) {
		p.prio.Submit(c)
	}
	p.Discard(o) // the Clipper keeps its own copy
}

// Discard hands back the image of a frame Capture took that no Push will
// take; frames of the caller's own are left alone.
func (p *Pipeline) Discard(o Observed) {
	if o.owned {
		p.recycle(o.Frame.Image)
	}
}

// Reset forgets env's terminal frame that no Push took (an episode cut
// short outside the loop's Push calls).
func (p *Pipeline) Reset(env int) {
	if p.hasTerm[env] {
		p.Discard(p.term[env])
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
