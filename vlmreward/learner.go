package vlmreward

import (
	"context"
	"errors"
	"fmt"
	"image"
	"math/rand/v2"

	"github.com/vlmrb/vlmrb/replay"
)

// LearnerConfig configures a Learner (ERL-VLM's reward-learning loop).
type LearnerConfig struct {
	Model      ModelConfig
	Schedule   Schedule
	DatasetCap int    // rating-dataset ring capacity (10,000)
	Task       string // instruction for the rater's prompt
	Workers    int    // concurrent rater calls (5)
	// Episodes is how many recent episodes queries are drawn from (100);
	// PerEpisode is how many frames per episode are kept as candidates
	// (reservoir sampling, default 4).
	Episodes, PerEpisode int
	// Standardize rescales the learned rewards to zero mean and unit
	// standard deviation over the buffer (see Relabeler.Standardize).
	Standardize bool
	Seed        uint64
}

// DefaultLearnerConfig returns the reference settings for n classes.
func DefaultLearnerConfig(n int, task string) LearnerConfig {
	return LearnerConfig{Model: DefaultModelConfig(n), Schedule: DefaultSchedule(), DatasetCap: 10000, Task: task,
		Workers: 5, Episodes: 100, PerEpisode: 4, Seed: 1}
}

type candidate struct {
	img      *image.RGBA
	progress float64
}

type episodeKey struct {
	env int32
	ep  int64
}

type episodeRes struct {
	key  episodeKey
	seen int
	c    []candidate
}

// LearnerStats counts a Learner's work.
type LearnerStats struct {
	Queries, Rated, Failed int // ratings asked, stored, dropped
	Updates                int // reward-model fits
	Relabelled             int // slots relabelled by the last update
	Last                   TrainStats
}

// Learner ties the pieces of ERL-VLM together for a training loop: Observe
// every transition's next-state frame, call Update at every env step (it
// does nothing unless the Schedule says a session is due), and Apply the
// learned rewards to every sampled batch. Before the first fit every
// reward is unset, so Apply zeroes every weight: train SAC on r̂ only after
// the first session (the reference pre-trains without reward). A Learner is
// for one goroutine at a time (the rater may be called concurrently).
type Learner struct {
	Cfg     LearnerConfig
	Model   *Model
	Data    *Dataset
	Relabel *Relabeler
	Rater   Rater
	Stats   LearnerStats
	eps     []*episodeRes
	rng     *rand.Rand
	trained bool
	scratch []uint8
}

// NewLearner builds a learner for a replay buffer of replayCap slots.
func NewLearner(cfg LearnerConfig, r Rater, replayCap int) (*Learner, error) {
	if r == nil || r.Classes() != cfg.Model.Classes {
		return nil, errors.New("vlmreward: learner needs a rater with the model's class count")
	}
	m, err := NewModel(cfg.Model)
	if err != nil {
		return nil, err
	}
	d, err := NewDataset(max(1, cfg.DatasetCap), m.InputLen(), cfg.Model.Classes)
	if err != nil {
		return nil, err
	}
	cfg.Episodes = max(1, cfg.Episodes)
	cfg.PerEpisode = max(1, cfg.PerEpisode)
	rl := NewRelabeler(replayCap, cfg.Model.CNN.Size)
	rl.Standardize = cfg.Standardize
	return &Learner{Cfg: cfg, Model: m, Data: d, Relabel: rl, Rater: r,
		rng: rand.New(rand.NewPCG(cfg.Seed, 0x1ea7))}, nil
}

// Observe records the frame of s_{t+1} for the transition stored at ref
// (env, episode identify the episode; progress is privileged progress or
// NaN). The downscaled frame is kept for relabelling; once a model exists
// the transition gets its reward now. The image is cloned only when it is
// kept as a query candidate.
func (l *Learner) Observe(ref replay.Ref, env int32, episode int64, img *image.RGBA, progress float64) {
	l.scratch = Downscale(l.scratch[:0], img, l.Model.Cfg.CNN.Size)
	var m *Model
	if l.trained {
		m = l.Model
	}
	l.Relabel.Put(ref, l.scratch, m)

	key := episodeKey{env, episode}
	var res *episodeRes
	for i := len(l.eps) - 1; i >= 0 && i >= len(l.eps)-64; i-- {
		if l.eps[i].key == key {
			res = l.eps[i]
			break
		}
	}
	if res == nil {
		res = &episodeRes{key: key}
		l.eps = append(l.eps, res)
		if len(l.eps) > l.Cfg.Episodes {
			l.eps = l.eps[len(l.eps)-l.Cfg.Episodes:]
		}
	}
	res.seen++
	if len(res.c) < l.Cfg.PerEpisode {
		res.c = append(res.c, candidate{cloneRGBA(img), progress})
	} else if j := l.rng.IntN(res.seen); j < l.Cfg.PerEpisode {
		res.c[j] = candidate{cloneRGBA(img), progress}
	}
}

func cloneRGBA(src *image.RGBA) *image.RGBA {
	dst := image.NewRGBA(src.Rect)
	copy(dst.Pix, src.Pix)
	return dst
}

// ErrAllRatingsFailed is wrapped by Update's error when every rating of a
// session failed and the dataset is still empty: no model was trained, and
// the next session may succeed.
var ErrAllRatingsFailed = errors.New("every rating failed")

// Update runs a reward session when the schedule has one at step: it draws
// the queries from the recent episodes' candidates, rates them (failures
// dropped and counted), trains the model and relabels every stored slot.
// It reports whether a session ran.
func (l *Learner) Update(ctx context.Context, step int64) (bool, error) {
	want := l.Cfg.Schedule.Queries(step, l.Stats.Queries)
	if want == 0 {
		return false, nil
	}
	var pool []candidate
	for _, e := range l.eps {
		pool = append(pool, e.c...)
	}
	if len(pool) == 0 {
		return false, nil
	}
	l.rng.Shuffle(len(pool), func(a, b int) { pool[a], pool[b] = pool[b], pool[a] })
	want = min(want, len(pool))
	qs := make([]*Query, want)
	for i := range qs {
		qs[i] = &Query{Image: pool[i].img, Task: l.Cfg.Task, Progress: pool[i].progress}
	}
	labels := make([]int, want)
	st := RateAll(ctx, l.Rater, qs, labels, l.Cfg.Workers)
	l.Stats.Queries += want
	l.Stats.Rated += st.Rated
	l.Stats.Failed += st.Failed
	for i, y := range labels {
		if y >= 0 {
			l.scratch = Downscale(l.scratch[:0], qs[i].Image, l.Model.Cfg.CNN.Size)
			l.Data.Add(l.scratch, y)
		}
	}
	if l.Data.Len() == 0 {
		if st.FirstErr != nil {
			return true, fmt.Errorf("vlmreward: %w: %w", ErrAllRatingsFailed, st.FirstErr)
		}
		return true, nil
	}
	ts, err := l.Model.Train(l.Data)
	if err != nil {
		return true, err
	}
	l.trained = true
	l.Stats.Updates++
	l.Stats.Last = ts
	l.Stats.Relabelled = l.Relabel.Relabel(l.Model)
	return true, nil
}

// Trained reports whether the reward model has been fitted at least once.
func (l *Learner) Trained() bool { return l.trained }

// Apply writes r̂ into a sampled batch (see RewardTable.Apply) and returns
// the number of rows without a reward (weights zeroed).
func (l *Learner) Apply(b *replay.Batch) int { return l.Relabel.Table.Apply(b) }
