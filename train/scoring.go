package train

import (
	"context"
	"fmt"
	"time"

	"github.com/vlmrb/vlmrb/frame"
	"github.com/vlmrb/vlmrb/replay"
	"github.com/vlmrb/vlmrb/tasks"
	"github.com/vlmrb/vlmrb/vlmprio"
)

// pixelTolerance is the RGB distance (0–441) within which a rendered pixel
// matches a task colour: lighting scales the base colour by roughly ±25%,
// which is about 60 units on a saturated channel pair.
const pixelTolerance = 70

// pixelLighting is the brightness ratio within which a pixel still matches
// a key's hue: scorer frames have shadows, and a surface in shadow gets
// the ambient light and the fill only, about a third of the lit value.
const pixelLighting = 3

// Near-black keys (R+G+B < darkKeySum: sweep-into's hole) match within
// darkTolerance only: at pixelTolerance every surface in deep shade (the
// arm's far side, the gripper's underside) would count as the hole.
const (
	darkKeySum    = 100
	darkTolerance = 35
)

// scoring is the VLM-RB pipeline of a run: frames (one frame.Source per
// env: the sim camera, or Options.Frames) → Clipper → Prioritizer (bounded
// queue, workers, Scorer) → VLMRB.SetScore.
type scoring struct {
	cfg      *Config
	cam      *SimCamera     // the sim camera behind srcs (nil: oracle, or Options.Frames)
	srcs     []frame.Source // per env; nil for the oracle scorer (it reads progress only)
	frames   []frame.Frame
	progress []float64
	clipper  *vlmprio.Clipper
	prio     *vlmprio.Prioritizer
	scorer   vlmprio.Scorer
	seq      uint64
	renderT  time.Duration
	stopped  bool
	scores   scoreWindow
}

// PixelSpecFor returns the pixel scorer's colour keys for a task's colours.
// Reach-like tasks have no separate object: the gripper is the object.
func PixelSpecFor(meta tasks.Meta) vlmprio.PixelSpec {
	key := func(c [3]uint8) vlmprio.ColorKey {
		tol := float64(pixelTolerance)
		if int(c[0])+int(c[1])+int(c[2]) < darkKeySum {
			tol = darkTolerance
		}
		return vlmprio.ColorKey{R: c[0], G: c[1], B: c[2], Tol: tol, Lighting: pixelLighting}
	}
	s := vlmprio.PixelSpec{Goal: key(meta.Colors.Goal), Gripper: key(meta.Colors.Gripper)}
	if meta.Colors.Object != meta.Colors.Gripper {
		s.Object = key(meta.Colors.Object)
	}
	return s
}

// NewScorer builds the named scorer ("pixel", "oracle", "openai") for a task.
func NewScorer(name string, meta tasks.Meta, v VLMConfig) (vlmprio.Scorer, error) {
	switch name {
	case "pixel":
		return vlmprio.NewPixelScorer(PixelSpecFor(meta)), nil
	case "oracle":
		return vlmprio.OracleScorer{}, nil
	case "openai":
		enc, err := ClipEncoding(v)
		if err != nil {
			return nil, err
		}
		oc := vlmprio.OpenAIConfig{
			BaseURL: v.BaseURL, Model: v.Model, APIKey: v.APIKey,
			Encoding: enc,
			Timeout:  time.Duration(v.Timeout * float64(time.Second)),
		}
		if v.Prompt != "" {
			p := vlmprio.DefaultPrompts()
			p[meta.Family] = v.Prompt
			oc.Prompts = p
		}
		s, err := vlmprio.NewOpenAIScorer(oc)
		if err != nil {
			return nil, &ConfigError{Msg: err.Error()}
		}
		return s, nil
	}
	return nil, &ConfigError{Msg: fmt.Sprintf("unknown scorer %q (pixel|oracle|openai)", name)}
}

// ClipEncoding returns the query encoding of vlm.clip_format: images and
// video send vlm.frames frames (all of the clip by default) at the scorer
// frame size; sheet is the 8-frame 480×360 contact sheet.
func ClipEncoding(v VLMConfig) (vlmprio.Encoding, error) {
	format := v.ClipFormat
	if format == "" {
		format = "images"
	}
	layout, err := vlmprio.ParseClipFormat(format)
	if err != nil {
		return vlmprio.Encoding{}, &ConfigError{Msg: err.Error()}
	}
	switch layout {
	case vlmprio.ContactSheet:
		return vlmprio.DefaultEncoding(), nil
	case vlmprio.VideoPart:
		if !vlmprio.FFmpegAvailable() {
			return vlmprio.Encoding{}, &ConfigError{Msg: vlmprio.ErrNoFFmpeg.Error()}
		}
	}
	return vlmprio.Encoding{Layout: layout, Frames: v.Frames, Width: v.Width, Height: v.Height}, nil
}

func newScoring(ctx context.Context, r *runner) (*scoring, error) {
	cfg := &r.cfg
	s := &scoring{cfg: cfg}
	var err error
	if s.scorer, err = NewScorer(cfg.Scorer, r.meta, cfg.VLM); err != nil {
		return nil, err
	}
	if cfg.Scorer == "openai" {
		s.scorer = outageScorer{s.scorer, r.vlm}
	}
	if cfg.Scorer != "oracle" {
		if s.srcs, err = r.frameSources(); err != nil {
			return nil, err
		}
		if r.opts.Frames == nil {
			s.cam = r.frameCam
		}
	}
	s.frames = make([]frame.Frame, cfg.NumEnvs)
	s.progress = make([]float64, cfg.NumEnvs)
	s.clipper = vlmprio.NewClipper(vlmprio.ClipperConfig{
		Length: cfg.VLM.ClipLen, Stride: cfg.VLM.Stride, Apply: cfg.VLM.applyRule(),
		Task: r.meta.Description, Family: r.meta.Family,
	})
	s.prio = vlmprio.NewPrioritizer(s.scorer, r.smp.vlmrb, vlmprio.PrioritizerConfig{
		Workers: cfg.VLM.Workers, Inline: cfg.VLM.Workers == 0, QueueSize: cfg.VLM.Queue,
	})
	s.prio.Start(ctx)
	return s, nil
}

func (s *scoring) describe() string {
	switch {
	case s.srcs == nil:
		return "privileged progress, no frames"
	case s.cam == nil:
		return "frames from the run's own sources"
	}
	return fmt.Sprintf("%s camera %dx%d, %s", s.cfg.VLM.Camera, s.cfg.VLM.Width, s.cfg.VLM.Height, s.cam.Describe())
}

// capture takes every env's frame of its current state (the state its
// next action is taken in) and reads its privileged progress.
func (s *scoring) capture(ctx context.Context, r *runner) error {
	t0 := time.Now()
	for i, e := range r.envs {
		s.progress[i], _ = e.Progress()
		f := &s.frames[i]
		if s.srcs == nil {
			f.Camera, f.Seq = s.cfg.VLM.Camera, s.seq
			f.Time = time.Unix(0, 0).Add(time.Duration(e.State().Time * float64(time.Second)))
			continue
		}
		if err := s.srcs[i].Next(ctx, f); err != nil {
			return fmt.Errorf("scorer frame of env %d: %w", i, err)
		}
	}
	s.seq++
	s.renderT += time.Since(t0)
	return nil
}

// push hands env i's transition (stored at ref) and its frame to the
// Clipper and submits the clips that completed.
func (s *scoring) push(r *runner, i int, ref replay.Ref, done bool) {
	clips := s.clipper.Push(i, vlmprio.Step{
		Episode: r.epID[i], Frame: s.frames[i], Ref: ref,
		Progress: s.progress[i], HasProgress: true, Done: done,
	})
	for _, c := range clips {
		s.prio.Submit(c)
	}
}

// metrics adds the vlm/ group to a log row.
func (s *scoring) metrics(r *runner, v map[string]float64) {
	vlmMetrics(v, s.prio, r.smp.vlmrb, r.buf.Len(), s.renderT, &s.scores)
}

// vlmMetrics is the vlm/ group of a VLM-RB run: how much of the buffer is
// scored, λ, the scoring queue, failures and latency, and render time.
func vlmMetrics(v map[string]float64, prio *vlmprio.Prioritizer, vb *replay.VLMRB, bufLen int, renderT time.Duration, w *scoreWindow) {
	m := prio.Metrics()
	w.metrics(v, m)
	st := vb.Stats()
	if bufLen > 0 {
		v["vlm/scored_fraction"] = float64(st.Scored) / float64(bufLen)
	}
	v["vlm/lambda"] = vb.Lambda()
	v["vlm/queue"] = float64(m.QueueDepth)
	v["vlm/clips_scored"] = float64(m.Scored)
	v["vlm/clips_dropped"] = float64(m.Dropped)
	v["vlm/errors"] = float64(m.Failed)
	v["vlm/stale_writes"] = float64(m.Stale)
	v["vlm/latency_p50_ms"] = float64(m.LatencyP50) / 1e6
	v["vlm/latency_p95_ms"] = float64(m.LatencyP95) / 1e6
	if m.PromptTokens > 0 {
		v["vlm/prompt_tokens"] = float64(m.PromptTokens)
	}
	v["time/render_s"] = renderT.Seconds()
}

// scoreWindow remembers the Prioritizer's score totals at the last log row,
// so each row describes the clips scored since the one before.
type scoreWindow struct {
	sum  float64
	hist [10]int64
}

// metrics adds vlm/mean_score and vlm/score_above_half (the share of clips
// scoring ≥ 0.5, the paper's threshold) over the clips scored since the
// last row; rows with no new clip leave both out.
func (w *scoreWindow) metrics(v map[string]float64, m vlmprio.Metrics) {
	// counts from the histogram, which the Prioritizer updates under the
	// same lock as the sum (Scored is counted a moment earlier)
	var n, above int64
	for k := range m.ScoreHist {
		d := m.ScoreHist[k] - w.hist[k]
		n += d
		if k >= 5 {
			above += d
		}
	}
	if n > 0 {
		v["vlm/mean_score"] = (m.ScoreSum - w.sum) / float64(n)
		v["vlm/score_above_half"] = float64(above) / float64(n)
	}
	w.sum, w.hist = m.ScoreSum, m.ScoreHist
}

// stop closes the Prioritizer (workers drain; queued clips are dropped).
func (s *scoring) stop() {
	if !s.stopped {
		s.stopped = true
		s.prio.Close()
	}
}

func (s *scoring) close() {
	for _, src := range s.srcs {
		_ = src.Close()
	}
}
