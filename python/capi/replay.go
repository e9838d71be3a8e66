package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"math"
	"math/rand/v2"
	"os"
	"sync"
	"time"
	"unsafe"

	"github.com/vlmrb/vlmrb/frame"
	"github.com/vlmrb/vlmrb/render"
	"github.com/vlmrb/vlmrb/replay"
	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/tasks"
	"github.com/vlmrb/vlmrb/vlmprio"
)

// rbOptions are the keyword options of vlmrb.ReplayBuffer, sent as JSON.
// Their defaults are robot-train's (rundir.DefaultConfig): the buffer,
// VLM-RB and PER values, the clip length and stride, one scorer worker
// with lag 64 and a queue of 64.
type rbOptions struct {
	Capacity     int    `json:"capacity"`
	ObsDim       int    `json:"obs_dim"`
	ActDim       int    `json:"act_dim"`
	NumEnvs      int    `json:"num_envs"`
	Sampler      string `json:"sampler"` // uniform | per | vlmrb
	Seed         uint64 `json:"seed"`
	ShareNextObs bool   `json:"share_next_obs"`
	// VLM-RB mixture (replay.VLMRBConfig)
	LambdaMax    *float64 `json:"lambda_max"`
	WarmupSteps  int64    `json:"warmup_steps"`
	DefaultPrio  *float64 `json:"default_prio"`
	Threshold    *float64 `json:"threshold"`
	TDProduct    bool     `json:"td_product"`
	ImportanceIS bool     `json:"importance_is"`
	// PER (replay.PERConfig); beta0 is VLM-RB's IS exponent too
	PERAlpha  *float64 `json:"per_alpha"`
	Beta0     *float64 `json:"beta0"`
	BetaSteps int64    `json:"beta_steps"`
	// scoring (rundir.VLMConfig)
	Scorer     string   `json:"scorer"` // pixel | oracle | openai (vlmrb only)
	Task       string   `json:"task"`
	ClipLen    int      `json:"clip_len"`
	Stride     int      `json:"stride"`
	Workers    *int     `json:"workers"`
	Lag        *int     `json:"lag"`
	Queue      int      `json:"queue"`
	ClipFormat string   `json:"clip_format"`
	Frames     int      `json:"frames"`
	BaseURL    string   `json:"base_url"`
	Model      string   `json:"model"`
	TimeoutS   *float64 `json:"timeout_s"`
	Prompt     string   `json:"prompt"`
}

const rbKnown = "capacity, obs_dim, act_dim, num_envs, sampler, seed, share_next_obs, lambda_max, warmup_steps, default_prio, threshold, td_product, importance_is, per_alpha, beta0, beta_steps, scorer, task, clip_len, stride, workers, lag, queue, clip_format, frames, base_url, model, timeout_s, prompt"

// rbuf is a replay.Buffer with one sampler and, for vlmrb, vlmprio's
// Clipper and Prioritizer scoring the clips of the frames added with the
// transitions.
type rbuf struct {
	mu      sync.Mutex
	opts    rbOptions
	buf     *replay.Buffer
	smp     replay.Sampler
	vlm     *replay.VLMRB
	stats   func() replay.Stats
	clipper *vlmprio.Clipper
	prio    *vlmprio.Prioritizer
	cancel  context.CancelFunc
	rng     *rand.Rand
	batch   replay.Batch
	img     *image.RGBA
	term    *image.RGBA
	epi     []int64 // current episode per env
	step    []int32 // step in it
	started []bool
	seq     uint64
	samples int64
	drawn   int64 // draws of all samples
	prioK   int64 // of which from the prioritized branch (vlmrb)
	closed  bool
}

func newReplay(optsJSON string) (*rbuf, error) {
	def := rundir.DefaultConfig()
	o := rbOptions{NumEnvs: 1, Sampler: "vlmrb", Scorer: "pixel", Task: "reach", Capacity: def.Buffer.Capacity}
	if s := bytes.TrimSpace([]byte(optsJSON)); len(s) > 0 {
		d := json.NewDecoder(bytes.NewReader(s))
		d.DisallowUnknownFields()
		if err := d.Decode(&o); err != nil {
			return nil, badf("vlmrb: bad replay buffer options: %v (known: %s)", err, rbKnown)
		}
	}
	switch {
	case o.Capacity <= 0 || o.Capacity > 1<<30:
		return nil, badf("vlmrb: capacity %d must be in [1, 2^30]", o.Capacity)
	case o.ObsDim <= 0 || o.ActDim <= 0:
		return nil, badf("vlmrb: obs_dim and act_dim must be positive, got %d and %d", o.ObsDim, o.ActDim)
	case o.NumEnvs <= 0 || o.NumEnvs > 4096:
		return nil, badf("vlmrb: num_envs %d must be in [1, 4096]", o.NumEnvs)
	}
	buf, err := replay.NewBuffer(replay.Config{Capacity: o.Capacity, ObsDim: o.ObsDim, ActDim: o.ActDim, ShareNextObs: o.ShareNextObs})
	if err != nil {
		return nil, bad(err)
	}
	r := &rbuf{opts: o, buf: buf, rng: rand.New(rand.NewPCG(o.Seed, 0x5eed)),
		epi: make([]int64, o.NumEnvs), step: make([]int32, o.NumEnvs), started: make([]bool, o.NumEnvs),
		stats: func() replay.Stats { return replay.Stats{} }}
	pc := def.Buffer.PER
	if o.PERAlpha != nil {
		pc.Alpha = *o.PERAlpha
	}
	if o.Beta0 != nil {
		pc.Beta0 = *o.Beta0
	}
	pc.BetaSteps = o.BetaSteps
	switch o.Sampler {
	case "uniform":
		r.smp = replay.NewUniform(buf)
	case "per":
		p, err := replay.NewPER(buf, pc)
		if err != nil {
			return nil, bad(err)
		}
		r.smp, r.stats = p, p.Stats
	case "vlmrb":
		vc := def.Buffer.VLMRB
		for _, f := range []struct {
			dst *float64
			src *float64
		}{{&vc.LambdaMax, o.LambdaMax}, {&vc.Default, o.DefaultPrio}, {&vc.Threshold, o.Threshold}} {
			if f.src != nil {
				*f.dst = *f.src
			}
		}
		vc.UseTD, vc.ISWeights = o.TDProduct, o.ImportanceIS
		vc.Beta0, vc.BetaSteps, vc.WarmupSteps = pc.Beta0, o.BetaSteps, o.WarmupSteps
		v, err := replay.NewVLMRB(buf, vc)
		if err != nil {
			return nil, bad(err)
		}
		r.smp, r.vlm, r.stats = v, v, v.Stats
		if err := r.startScoring(def.VLM); err != nil {
			return nil, err
		}
	default:
		return nil, badf("vlmrb: sampler %q is not one of uniform, per, vlmrb", o.Sampler)
	}
	return r, nil
}

// startScoring builds the scorer the way robot-train does (rundir.NewScorer
// on the task's Meta and the vlm section) and starts the Prioritizer.
func (r *rbuf) startScoring(v rundir.VLMConfig) error {
	o := r.opts
	meta, err := tasks.Lookup(o.Task)
	if err != nil {
		return bad(err)
	}
	if o.ClipLen != 0 {
		v.Clip.Length = o.ClipLen
	}
	if o.Stride != 0 {
		v.Clip.Stride = o.Stride
	}
	if o.ClipLen < 0 || o.Stride < 0 || o.Queue < 0 || o.Frames < 0 {
		return badf("vlmrb: clip_len, stride, queue and frames must not be negative")
	}
	if o.Workers != nil {
		v.Scoring.Workers = *o.Workers
	}
	if o.Lag != nil {
		v.Scoring.Lag = *o.Lag
	}
	if v.Scoring.Workers < 0 || v.Scoring.Lag < 0 {
		return badf("vlmrb: workers %d and lag %d must not be negative", v.Scoring.Workers, v.Scoring.Lag)
	}
	if o.Queue != 0 {
		v.Scoring.QueueSize = o.Queue
	}
	if o.ClipFormat != "" {
		v.ClipFormat = o.ClipFormat
	}
	if o.Frames != 0 {
		v.Frames = o.Frames
	}
	if o.TimeoutS != nil {
		v.Timeout = *o.TimeoutS
	}
	v.BaseURL, v.Model, v.Prompt = o.BaseURL, o.Model, o.Prompt
	v.APIKey = os.Getenv("OPENAI_API_KEY") // as robot-train: from the environment only, never stored
	sc, err := rundir.NewScorer(o.Scorer, meta, v)
	if err != nil {
		return bad(err)
	}
	clip, prio := v.Clip, v.Scoring
	clip.Task, clip.Family = meta.Description, meta.Family
	prio.Inline = prio.Workers == 0
	r.clipper = vlmprio.NewClipper(clip)
	r.prio = vlmprio.NewPrioritizer(sc, r.vlm, prio)
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	r.prio.Start(ctx)
	return nil
}

// addArgs are the caller's arrays for n transitions, one per env 0..n−1.
type addArgs struct {
	obs, act, rew, next []float64
	term, trunc         []byte
	episode             []int64
	frames, terminal    []byte // n×H×W×3, or nil
	h, w                int
	progress            []float64 // n, or nil (NaN: unknown)
	valid               []byte    // n, or nil (all): rows with 0 are not stored (a vector env's autoreset step)
	idx                 []int64   // out: n indices
}

func (r *rbuf) lock() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return errors.New("vlmrb: replay buffer is closed")
	}
	return nil
}

// Add stores one loop step of n = num_envs transitions (row i from env
// i) and hands each with its frame o_t to the Clipper; the clips that
// complete go to the Prioritizer. It first ends the previous loop step
// with the Prioritizer's Tick, as robot-train does before its captures
// (unless no row is valid).
func (r *rbuf) Add(a addArgs) error {
	if err := r.lock(); err != nil {
		return err
	}
	defer r.mu.Unlock()
	n, od, ad := r.opts.NumEnvs, r.opts.ObsDim, r.opts.ActDim
	if err := errors.Join(checkLen("obs", len(a.obs), n*od), checkLen("actions", len(a.act), n*ad),
		checkLen("rewards", len(a.rew), n), checkLen("next_obs", len(a.next), n*od),
		checkLen("terminated", len(a.term), n), checkLen("truncated", len(a.trunc), n),
		checkLen("episodes", len(a.episode), n), checkLen("indices", len(a.idx), n)); err != nil {
		return err
	}
	for _, x := range [][]float64{a.obs, a.act, a.rew, a.next} {
		for _, v := range x {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return badf("vlmrb: transition holds %g; obs, actions, rewards and next_obs must be finite (nothing was added)", v)
			}
		}
	}
	scoring := r.prio != nil
	if scoring && r.opts.Scorer != "oracle" && a.frames == nil {
		return badf("vlmrb: the %s scorer needs frames: pass frames= (num_envs, H, W, 3) uint8, e.g. env.render()", r.opts.Scorer)
	}
	if scoring && r.opts.Scorer == "oracle" && a.progress == nil {
		return badf("vlmrb: the oracle scorer reads privileged progress: pass progress= info[\"progress\"]")
	}
	if a.frames != nil {
		if a.h <= 0 || a.w <= 0 || len(a.frames) != n*a.h*a.w*3 {
			return badf("vlmrb: frames have %d bytes, want num_envs×H×W×3 = %d×%d×%d×3", len(a.frames), n, a.h, a.w)
		}
		if a.terminal != nil && len(a.terminal) != len(a.frames) {
			return badf("vlmrb: terminal_frames have %d bytes, want %d like frames", len(a.terminal), len(a.frames))
		}
	}
	// A loop step that stores nothing (every row a NEXT_STEP autoreset)
	// is no step for the Prioritizer either: robot-train's loop, whose
	// VecEnv resets in the same step, has no such step, and the lag counts
	// the steps that store transitions.
	anyValid := a.valid == nil
	for _, v := range a.valid {
		anyValid = anyValid || v != 0
	}
	if scoring && anyValid {
		if err := r.prio.Tick(context.Background()); err != nil {
			return err
		}
	}
	refs := unsafe.Slice((*replay.Ref)(unsafe.Pointer(&a.idx[0])), n)
	for i := range n {
		if a.valid != nil && a.valid[i] == 0 {
			refs[i] = replay.Ref{Slot: -1, Gen: math.MaxUint32} // index −1
			continue
		}
		if !r.started[i] || a.episode[i] != r.epi[i] {
			r.epi[i], r.step[i], r.started[i] = a.episode[i], 0, true
		}
		done := a.term[i] != 0 || a.trunc[i] != 0
		ref := r.buf.Add(replay.Transition{
			Obs: a.obs[i*od : (i+1)*od], Action: a.act[i*ad : (i+1)*ad], Reward: a.rew[i],
			NextObs: a.next[i*od : (i+1)*od], Terminated: a.term[i] != 0, Truncated: a.trunc[i] != 0,
			Env: int32(i), Episode: a.episode[i], Step: r.step[i]})
		refs[i] = ref
		r.step[i]++
		if !scoring {
			continue
		}
		st := vlmprio.Step{Episode: a.episode[i], Ref: ref, Done: done}
		if a.progress != nil && !math.IsNaN(a.progress[i]) {
			st.Progress, st.HasProgress = a.progress[i], true
		}
		st.Frame = r.frameOf(&r.img, a.frames, i, a.h, a.w)
		if a.term[i] != 0 && a.terminal != nil {
			f := r.frameOf(&r.term, a.terminal, i, a.h, a.w)
			st.Terminal = &f
			st.TerminalProgress = st.Progress
		}
		for _, c := range r.clipper.Push(i, st) {
			r.prio.Submit(c)
		}
	}
	return nil
}

// frameOf wraps row i of frames (H×W×3) as a frame.Frame in a scratch
// RGBA image (the Clipper clones what it keeps); without frames it is an
// image-less frame (oracle).
func (r *rbuf) frameOf(scratch **image.RGBA, frames []byte, i, h, w int) frame.Frame {
	r.seq++
	f := frame.Frame{Camera: render.TaskCamera, Seq: r.seq, Time: time.Unix(0, 0).Add(time.Duration(r.seq) * time.Millisecond)}
	if frames == nil {
		return f
	}
	if *scratch == nil || (*scratch).Rect.Dx() != w || (*scratch).Rect.Dy() != h {
		*scratch = image.NewRGBA(image.Rect(0, 0, w, h))
	}
	img := *scratch
	src := frames[i*h*w*3 : (i+1)*h*w*3]
	for p := 0; p < h*w; p++ {
		img.Pix[4*p], img.Pix[4*p+1], img.Pix[4*p+2], img.Pix[4*p+3] = src[3*p], src[3*p+1], src[3*p+2], 255
	}
	f.Image = img
	return f
}

// Sample draws len(weights) transitions into the caller's float32 arrays
// and their indices (a replay.Ref as slot | gen<<32) into idx. ok is false
// while nothing is sampleable.
func (r *rbuf) Sample(obs, act, rew, next, term, trunc, weights []float32, idx []int64) (bool, error) {
	if err := r.lock(); err != nil {
		return false, err
	}
	defer r.mu.Unlock()
	n, od, ad := len(weights), r.opts.ObsDim, r.opts.ActDim
	if n == 0 {
		return false, badf("vlmrb: batch size must be at least 1")
	}
	if err := errors.Join(checkLen("obs", len(obs), n*od), checkLen("actions", len(act), n*ad),
		checkLen("rewards", len(rew), n), checkLen("next_obs", len(next), n*od),
		checkLen("terminated", len(term), n), checkLen("truncated", len(trunc), n), checkLen("indices", len(idx), n)); err != nil {
		return false, err
	}
	r.batch = replay.Batch{ObsDim: od, ActDim: ad, Obs: obs, Actions: act, Rewards: rew, NextObs: next,
		Terminated: term, Truncated: trunc, Weights: weights,
		Refs: unsafe.Slice((*replay.Ref)(unsafe.Pointer(&idx[0])), n)}
	ok := r.smp.Sample(&r.batch, r.rng)
	r.batch = replay.Batch{} // keep no reference to the caller's memory
	if ok {
		r.samples++
		r.drawn += int64(n)
		if r.vlm != nil {
			r.prioK += int64(r.vlm.LastPrioritized())
		}
	}
	return ok, nil
}

// Update hands the learner's per-sample signal (|TD error|) back for idx.
func (r *rbuf) Update(idx []int64, vals []float64) (int, error) {
	if err := r.lock(); err != nil {
		return 0, err
	}
	defer r.mu.Unlock()
	if len(idx) != len(vals) {
		return 0, badf("vlmrb: %d indices and %d TD errors; pass one per index", len(idx), len(vals))
	}
	if len(idx) == 0 {
		return 0, nil
	}
	refs := unsafe.Slice((*replay.Ref)(unsafe.Pointer(&idx[0])), len(idx))
	for _, ref := range refs {
		if ref.Slot < 0 || int(ref.Slot) >= r.opts.Capacity {
			return 0, badf("vlmrb: index %d (slot %d) is not one sample() returned", int64(ref.Gen)<<32|int64(uint32(ref.Slot)), ref.Slot)
		}
	}
	return r.smp.UpdatePriorities(refs, vals), nil
}

// Scores reads the VLM score of each index (NaN when unscored or stale).
func (r *rbuf) Scores(idx []int64, out []float64) error {
	if err := r.lock(); err != nil {
		return err
	}
	defer r.mu.Unlock()
	if r.vlm == nil {
		return badf("vlmrb: scores exist only with sampler=\"vlmrb\"")
	}
	if err := checkLen("scores buffer", len(out), len(idx)); err != nil || len(idx) == 0 {
		return err
	}
	refs := unsafe.Slice((*replay.Ref)(unsafe.Pointer(&idx[0])), len(idx))
	for i, ref := range refs {
		out[i] = math.NaN()
		if ref.Slot < 0 || int(ref.Slot) >= r.opts.Capacity {
			continue
		}
		if s, scored, ok := r.vlm.Score(ref); ok && scored {
			out[i] = s
		}
	}
	return nil
}

// Metrics is the buffer's, the sampler's and the scoring pipeline's
// counters, with robot-train's names where it logs the same thing.
func (r *rbuf) Metrics() (map[string]any, error) {
	if err := r.lock(); err != nil {
		return nil, err
	}
	defer r.mu.Unlock()
	st := r.stats()
	m := map[string]any{
		"len": r.buf.Len(), "sampleable": r.buf.Sampleable(), "adds": r.buf.Adds(),
		"samples": r.samples, "drawn": r.drawn, "prioritized_draws": r.prioK,
		"stale": st.Stale, "rejected": st.Rejected, "applied": st.Applied, "scored_slots": st.Scored,
	}
	if r.vlm != nil {
		m["lambda"], m["beta"] = r.vlm.Lambda(), r.vlm.Beta()
	}
	if r.prio != nil {
		pm := r.prio.Metrics()
		cs := r.clipper.Stats()
		m["scoring"] = map[string]any{
			"queue_depth": pm.QueueDepth, "submitted": pm.Submitted, "dropped": pm.Dropped,
			"scored": pm.Scored, "failed": pm.Failed, "written": pm.Written, "stale": pm.Stale,
			"score_sum": pm.ScoreSum, "score_hist": pm.ScoreHist, "waited_s": pm.Waited.Seconds(),
			"latency_p50_s": pm.LatencyP50.Seconds(), "latency_p95_s": pm.LatencyP95.Seconds(),
			"prompt_tokens": pm.PromptTokens, "completion_tokens": pm.CompletionTokens,
		}
		m["clipper"] = cs
	}
	return m, nil
}

// Close stops the scorer workers (scores not yet written are dropped and
// counted) and frees the buffer.
func (r *rbuf) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	if r.prio != nil {
		r.prio.Close()
		r.cancel()
	}
	return nil
}

// errNotSampleable is what Python sees when sample() finds nothing.
var errNotSampleable = fmt.Errorf("vlmrb: the replay buffer holds no sampleable transition yet; add some before sample()")

// Tick ends one loop step without adding (Prioritizer.Tick): under lag,
// the scores due are written back.
func (r *rbuf) Tick() error {
	if err := r.lock(); err != nil {
		return err
	}
	defer r.mu.Unlock()
	if r.prio == nil {
		return nil
	}
	return r.prio.Tick(context.Background())
}
