package train

import (
	"context"
	"time"

	"github.com/vlmrb/vlmrb/frame"
	"github.com/vlmrb/vlmrb/replay"
	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/vlmprio"
)

// scoring is VLM-RB's clip scoring in a run, for either learner: a
// vlmprio.Pipeline (the envs' cameras → Clipper → Prioritizer → the
// VLM-RB sampler) and the vlm/ metrics. The frame of transition t is o_t,
// the observation its action is taken in (vlmprio.Pipeline states the
// rule): every loop step the learner calls writeBack (scores due land in
// the sampler), then capture for every env before its step (the learner
// carries each env's frame with that step's transition into StepEvent),
// terminal after a step that ended the episode by termination, and the
// hook (OnStep) pushes every stored transition with its frame.
type scoring struct {
	NopHook
	pipe   *vlmprio.Pipeline
	scorer vlmprio.Scorer
	vb     *replay.VLMRB
	srcs   []frame.Source // closed by close (nil: no images)
	frames []vlmprio.Observed
	desc   string
	scores scoreWindow
}

// scoringSetup is what a learner hands the scoring: the scorer, the
// sampler its scores go to, the envs' cameras (nil for image-less
// scorers) and what the clips say about the task.
type scoringSetup struct {
	scorer       vlmprio.Scorer
	sink         *replay.VLMRB
	srcs         []frame.Source
	task, family string
	desc         string // how frames are made, for the console
}

// envView is what capture reads of a training env's current state: its
// privileged progress and the state's time.
type envView func(env int) (progress float64, t time.Duration)

func newScoring(ctx context.Context, cfg *rundir.Config, s scoringSetup) *scoring {
	v := &cfg.VLM
	clip, prio := v.Clip, v.Scoring
	clip.Task, clip.Family = s.task, s.family
	prio.Inline = prio.Workers == 0
	sc := &scoring{scorer: s.scorer, vb: s.sink, srcs: s.srcs, desc: s.desc}
	sc.pipe = vlmprio.NewPipeline(s.scorer, s.sink, vlmprio.PipelineConfig{
		Envs:        cfg.NumEnvs,
		Clipper:     clip,
		Prioritizer: prio,
		Sources:     s.srcs,
		Camera:      v.Camera,
	})
	sc.pipe.Start(ctx)
	return sc
}

// writeBack writes the scores due under vlm.lag to the sampler (waiting
// for them if needed): the first stage of every loop step, before capture.
func (s *scoring) writeBack(ctx context.Context) error { return s.pipe.Tick(ctx) }

// capture takes every env's frame o_t of its current state. The slice is
// the scoring's own, overwritten by the next capture; the learner copies
// or hands on each frame with its env's transition.
func (s *scoring) capture(ctx context.Context, n int, view envView) ([]vlmprio.Observed, error) {
	s.frames = s.frames[:0]
	for i := range n {
		p, t := view(i)
		o, err := s.pipe.Capture(ctx, i, p, true, t)
		if err != nil {
			return nil, err
		}
		s.frames = append(s.frames, o)
	}
	return s.frames, nil
}

// terminal takes env i's final observation o_T of an episode that
// terminated (before its reset).
func (s *scoring) terminal(ctx context.Context, i int, view envView) error {
	p, t := view(i)
	return s.pipe.Terminal(ctx, i, p, true, t)
}

// OnStep hands the stored transition with the frame that travelled with
// it (a live capture or a recording's) to the Clipper.
func (s *scoring) OnStep(e StepEvent) error {
	if e.Frame != nil {
		s.pipe.Push(e.Env, e.Transition.Episode, e.Ref, *e.Frame, e.Done)
	}
	return nil
}

// metrics adds the vlm/ group to a log row: how much of the buffer is
// scored, λ, the scoring queue, failures and latency, and render time.
func (s *scoring) metrics(v map[string]float64, bufLen int) {
	m := s.pipe.Metrics()
	s.scores.metrics(v, m)
	st := s.vb.Stats()
	if bufLen > 0 {
		v["vlm/scored_fraction"] = float64(st.Scored) / float64(bufLen)
	}
	v["vlm/lambda"] = s.vb.Lambda()
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
	v["time/render_s"] = s.pipe.RenderTime().Seconds()
	v["time/vlm_wait_s"] = m.Waited.Seconds()
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
func (s *scoring) stop() { s.pipe.Close() }

// close stops scoring and closes the cameras.
func (s *scoring) close() {
	s.stop()
	for _, src := range s.srcs {
		_ = src.Close()
	}
}
