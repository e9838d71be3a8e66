package train

import (
	"context"
	"errors"
	"fmt"
	"image"
	"math"
	"math/rand/v2"
	"time"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/internal/redact"
	"github.com/vlmrb/vlmrb/render"
	"github.com/vlmrb/vlmrb/replay"
	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/sim/articulated"
	"github.com/vlmrb/vlmrb/tasks"
	"github.com/vlmrb/vlmrb/vlmreward"
)

// rewardWindow is how many recent transitions the reward/progress_spearman
// diagnostic ranks.
const rewardWindow = 2000

// maxPendingChunks bounds VLM-RM's queue of frames waiting for an
// embedding server that keeps failing, in flushes; older frames are
// dropped (they keep no reward) so memory stays bounded.
const maxPendingChunks = 50

// rewardShaper is a run's VLM reward (reward erlvlm or vlmrm). After every
// env step it renders each env's s_{t+1} — the final state when the step
// ended the episode, copied before the VecEnv's auto-reset — and hands it
// to ERL-VLM's Learner or queues it for VLM-RM's embedder. Sampled batches
// get the learned rewards (apply) before the SAC update; rows whose reward
// is not known yet are weighted 0.
type rewardShaper struct {
	NopHook
	cfg   *rundir.Config
	envs  []*tasks.Env // the training envs (their states are rendered)
	cam   *render.SimCamera
	imgs  []*image.RGBA
	final []*articulated.Data // per env: the poses (Xpos, Xquat, Time) VecEnv.OnEpisodeEnd copies on env i's worker

	learner *vlmreward.Learner // erlvlm
	rater   vlmreward.Rater

	vrm     *vlmreward.VLMRM // vlmrm
	emb     *vlmreward.HTTPEmbedder
	table   *vlmreward.RewardTable
	pending vlmreward.Pending
	pendP   []float64 // progress of each pending frame
	flushes int
	failed  int // embedding flushes that failed
	lastErr error
	vlm     *vlmOutage // the run's VLM failure record (outage.go)

	ent *stateEntropy // erlvlm with pretrain entropy: the reward before the first fit

	// startStep is the env step SAC updates start from: with pretrain none
	// the step of the first reward fit (no reward exists before it).
	startStep int64
	fitted    bool  // the first fit just happened: reset critics, catch up
	catchup   int64 // extra updates granted at the first fit
	lastStep  int64 // last step Update was given (schedule bookkeeping)
	renderT   time.Duration

	recR, recP []float64 // recent (r̂, progress) pairs, ring of rewardWindow
	recNext    int
}

// defaultClasses is ERL-VLM's number of rating classes per task
// (papers.md §2.5: sweep-into 2, drawer-open 3; 3 elsewhere).
func defaultClasses(task string) int {
	if task == "sweep-into" {
		return 2
	}
	return 3
}

// rewardSetup is what the learned reward takes from the run: its config
// and task, the training envs and their VecEnv (whose episode ends it
// watches), the replay buffer's capacity, the run's VLM failure record and
// its warnings.
type rewardSetup struct {
	cfg    *rundir.Config
	meta   tasks.Meta
	envs   []*tasks.Env
	vec    *control.VecEnv
	replay *replay.Buffer // its capacity; the state-entropy reward reads its observations
	vlm    *vlmOutage
	warnf  func(string, ...any)
}

func newRewardShaper(ctx context.Context, su rewardSetup) (*rewardShaper, error) {
	cfg := su.cfg
	m := &cfg.RM
	s := &rewardShaper{vlm: su.vlm, cfg: cfg, envs: su.envs}
	var err error
	if s.cam, err = rundir.NewSimCameraWith(cfg.VLM.Backend, m.Camera, cfg.VLM.Theme, m.FrameSize, m.FrameSize, su.envs[0], cfg.VLM.CameraOptions()); err != nil {
		return nil, fmt.Errorf("reward frames: %w", err)
	}
	for range cfg.NumEnvs {
		s.imgs = append(s.imgs, image.NewRGBA(image.Rect(0, 0, m.FrameSize, m.FrameSize)))
		s.final = append(s.final, &articulated.Data{})
	}
	su.vec.OnEpisodeEnd = func(i int) { copyPoses(s.final[i], su.envs[i].Data()) }

	switch cfg.Reward {
	case "erlvlm":
		n := m.Classes
		if n == 0 {
			n = defaultClasses(cfg.Task)
		}
		switch m.Rater {
		case "oracle":
			if s.rater, err = vlmreward.NewOracleRater(n, m.LabelNoise, cfg.Seed); err != nil {
				return nil, &rundir.ConfigError{Msg: err.Error()}
			}
		case "openai":
			if s.rater, err = vlmreward.NewOpenAIRater(vlmreward.OpenAIRaterConfig{
				BaseURL: cfg.VLM.BaseURL, Model: cfg.VLM.Model, APIKey: cfg.VLM.APIKey,
				Classes: n, TwoStage: m.TwoStage, Timeout: time.Duration(cfg.VLM.Timeout * float64(time.Second)),
			}); err != nil {
				return nil, &rundir.ConfigError{Msg: err.Error()}
			}
			s.rater = outageRater{s.rater, su.vlm}
		}
		lc := vlmreward.DefaultLearnerConfig(n, su.meta.Description)
		lc.Model.CNN.Size = m.CNNSize
		lc.Model.Ensemble, lc.Model.Batch, lc.Model.LR, lc.Model.MaxEpochs = m.Ensemble, m.Batch, m.LR, m.Epochs
		lc.Model.Seed = cfg.Seed
		if m.Loss == "ce" {
			lc.Model.Loss = vlmreward.LossCE
		}
		lc.Schedule = vlmreward.Schedule{First: m.First, Every: m.Every, PerSession: m.PerSession, Budget: m.Budget}
		lc.DatasetCap = m.Budget
		lc.Episodes, lc.PerEpisode, lc.Workers = m.Episodes, m.PerEpisode, m.Workers
		lc.Standardize = m.Standardize
		lc.Seed = cfg.Seed
		if s.learner, err = vlmreward.NewLearner(lc, s.rater, su.replay.Cap()); err != nil {
			return nil, &rundir.ConfigError{Msg: fmt.Sprintf("reward_model (cnn_size %d, classes %d): %v", m.CNNSize, n, err)}
		}
		s.table = s.learner.Relabel.Table
		if m.Pretrain == "entropy" {
			s.ent = newStateEntropy(su.replay, m.EntropyK)
		}
	case "vlmrm":
		key, withheld := rundir.EmbedKey(cfg)
		if withheld {
			su.warnf("not sending OPENAI_API_KEY to the embedding server %s (it is for %s); set %s for it", redact.URL(m.EmbedBaseURL), redact.URL(cfg.VLM.BaseURL), rundir.EmbedKeyEnv)
		}
		if s.emb, err = vlmreward.NewHTTPEmbedder(m.EmbedBaseURL, m.EmbedModel, key); err != nil {
			return nil, &rundir.ConfigError{Msg: err.Error()}
		}
		if s.vrm, err = vlmreward.NewVLMRMFromPrompts(ctx, s.emb, m.Goal, m.Baseline, m.Alpha); err != nil {
			return nil, fmt.Errorf("VLM-RM prompts: %w", err)
		}
		s.table = vlmreward.NewRewardTable(su.replay.Cap())
	}
	return s, nil
}

func (s *rewardShaper) describe() string {
	m := &s.cfg.RM
	cam := fmt.Sprintf("%s camera %dx%d, %s", m.Camera, m.FrameSize, m.FrameSize, s.cam.Describe())
	if s.learner != nil {
		return fmt.Sprintf("ERL-VLM: %s rater, %d classes, %s loss, %s", m.Rater, s.rater.Classes(), m.Loss, cam)
	}
	return fmt.Sprintf("VLM-RM: %s (%s), α %g, %s", redact.URL(m.EmbedBaseURL), m.EmbedModel, m.Alpha, cam)
}

// ready reports whether the learned reward exists: ERL-VLM has none
// before its first fit.
func (s *rewardShaper) ready() bool { return s.learner == nil || s.learner.Trained() }

// canTrain reports whether SAC may update now: on the learned reward, or
// before the first fit on the state-entropy reward when pre-training.
func (s *rewardShaper) canTrain() bool { return s.ready() || s.ent != nil }

// updatePlan is what the reward asks of SAC's update schedule at this
// step: ok false while SAC may not update (canTrain), else the env step
// updates count from (startStep) and the catch-up updates granted so far.
// The first call after the first fit reports refit (PEBBLE: the reward
// just changed under the agent) and grants catchup more updates.
func (s *rewardShaper) updatePlan(catchup int) (start, extra int64, refit, ok bool) {
	if !s.canTrain() {
		return 0, 0, false, false
	}
	if s.fitted {
		s.fitted, refit = false, true
		s.catchup += int64(catchup)
	}
	return s.startStep, s.catchup, refit, true
}

// schedule returns the update schedule's state that a checkpoint keeps.
func (s *rewardShaper) schedule() (start, catchup int64) { return s.startStep, s.catchup }

// restoreSchedule sets the update schedule's state from a checkpoint.
func (s *rewardShaper) restoreSchedule(start, catchup int64) { s.startStep, s.catchup = start, catchup }

// OnStep renders the stored transition's s_{t+1} (the env's state, or its
// final state when the step ended the episode) and hands it on with its
// privileged progress (NaN when the task reports none).
func (s *rewardShaper) OnStep(e StepEvent) error {
	p, ok := e.Info["progress"]
	if !ok {
		p = math.NaN()
	}
	return s.observe(e.Env, e.Ref, e.Transition.Episode, e.Done, p)
}

// observe renders env i's s_{t+1} for the transition stored at ref and
// hands it on; progress is the privileged progress of s_{t+1}.
func (s *rewardShaper) observe(i int, ref replay.Ref, episode int64, done bool, progress float64) error {
	t0 := time.Now()
	e := s.envs[i]
	st := e.Data()
	if done {
		st = s.final[i]
	}
	if err := s.cam.RenderState(e.Model(), st, s.imgs[i]); err != nil {
		return fmt.Errorf("render reward frame: %w", err)
	}
	s.renderT += time.Since(t0)
	if s.learner != nil {
		s.learner.Observe(ref, int32(i), episode, s.imgs[i], progress)
		if v, ok := s.table.Get(ref); ok {
			s.record(float64(v), progress)
		}
		return nil
	}
	s.table.Clear(ref)
	s.pending.Add(ref, cloneRGBA(s.imgs[i]))
	s.pendP = append(s.pendP, progress)
	return nil
}

func cloneRGBA(src *image.RGBA) *image.RGBA {
	dst := image.NewRGBA(src.Rect)
	copy(dst.Pix, src.Pix)
	return dst
}

// record keeps (r̂, progress) for the rank-correlation diagnostic.
func (s *rewardShaper) record(rew, progress float64) {
	if math.IsNaN(progress) {
		return
	}
	if len(s.recR) < rewardWindow {
		s.recR, s.recP = append(s.recR, rew), append(s.recP, progress)
		return
	}
	s.recR[s.recNext], s.recP[s.recNext] = rew, progress
	s.recNext = (s.recNext + 1) % rewardWindow
}

// afterStep runs what the step count calls for: ERL-VLM rating sessions
// (the schedule's steps between the last call and step), VLM-RM flushes of
// a full rollout chunk.
func (s *rewardShaper) afterStep(ctx context.Context, step int64) error {
	if s.learner != nil {
		sched := s.learner.Cfg.Schedule
		for k := s.lastStep + 1; k <= step; k++ {
			if sched.Queries(k, s.learner.Stats.Queries) == 0 {
				continue
			}
			was := s.learner.Trained()
			if _, err := s.learner.Update(ctx, k); err != nil {
				if errors.Is(err, vlmreward.ErrAllRatingsFailed) {
					continue // the outage record warned; the next session tries again
				}
				return fmt.Errorf("reward model session at step %d: %w", k, err)
			}
			if !was && s.learner.Trained() {
				s.fitted = true
				if s.ent == nil {
					s.startStep = step
				}
			}
		}
		s.lastStep = step
		return nil
	}
	if s.pending.Len() >= s.cfg.RM.EmbedBatch {
		return s.flush(ctx)
	}
	return nil
}

// flush embeds the pending frames and writes their rewards. A failing
// server leaves them pending (unset, so never trained on) and is retried
// at the next chunk; past maxPendingChunks flushes the oldest frames are
// dropped (outage.go: training never stops for the VLM).
func (s *rewardShaper) flush(ctx context.Context) error {
	if s.emb == nil || s.pending.Len() == 0 {
		return nil
	}
	refs := append([]replay.Ref(nil), s.pending.Refs...)
	prog := s.pendP
	_, err := s.pending.Flush(ctx, s.emb, s.vrm, s.table, s.cfg.RM.EmbedBatch)
	s.flushes++
	done := len(refs) - s.pending.Len() // Flush keeps the unembedded tail
	for k := 0; k < done; k++ {
		if v, ok := s.table.Get(refs[k]); ok {
			s.record(float64(v), prog[k])
		}
	}
	s.pendP = append(s.pendP[:0], prog[done:]...)
	if err != nil && ctx.Err() == nil {
		s.failed++
		s.lastErr = err
		s.vlm.record("VLM-RM embedder", err)
		// keep the newest maxPendingChunks chunks: older frames stay
		// without a reward (weight 0 in every batch), memory stays bounded
		if drop := s.pending.Len() - maxPendingChunks*s.cfg.RM.EmbedBatch; drop > 0 {
			s.pending.Refs = append(s.pending.Refs[:0], s.pending.Refs[drop:]...)
			s.pending.Imgs = append(s.pending.Imgs[:0], s.pending.Imgs[drop:]...)
			s.pendP = append(s.pendP[:0], s.pendP[drop:]...)
		}
	}
	return nil
}

// apply writes the reward SAC trains on into a sampled batch: the learned
// one, or the state-entropy reward before the first fit.
func (s *rewardShaper) apply(b *replay.Batch, rng *rand.Rand) {
	if s.ready() {
		s.table.Apply(b)
		return
	}
	s.ent.apply(b, rng)
}

// metrics adds the reward/ group to a log row.
func (s *rewardShaper) metrics(v map[string]float64) {
	if len(s.recR) >= 10 {
		if rho := vlmreward.Spearman(s.recR, s.recP); !math.IsNaN(rho) {
			v["reward/progress_spearman"] = rho
		}
		v["reward/mean"] = mean(s.recR)
	}
	v["time/reward_render_s"] = s.renderT.Seconds()
	if s.ent != nil && !s.ready() && s.ent.n > 0 {
		v["reward/entropy_knn_mean"] = s.ent.mu
	}
	if l := s.learner; l != nil {
		v["reward/queries"] = float64(l.Stats.Queries)
		v["reward/rated"] = float64(l.Stats.Rated)
		v["reward/failed"] = float64(l.Stats.Failed)
		v["reward/fits"] = float64(l.Stats.Updates)
		v["reward/relabelled"] = float64(l.Stats.Relabelled)
		if n := l.Data.Len(); n > 0 {
			for c, k := range l.Data.Counts() {
				v[fmt.Sprintf("reward/label_frac_%d", c)] = float64(k) / float64(n)
			}
		}
		if l.Stats.Updates > 0 {
			v["reward/train_accuracy"] = l.Stats.Last.Accuracy
			v["reward/train_loss"] = l.Stats.Last.Loss
		}
		return
	}
	v["reward/pending"] = float64(s.pending.Len())
	v["reward/embed_calls"] = float64(s.emb.Calls())
	v["reward/embed_failures"] = float64(s.failed)
}

// marshal encodes the reward state for a checkpoint (VLM-RM flushes its
// queue first, so no computed reward is lost).
func (s *rewardShaper) marshal(ctx context.Context) ([]byte, error) {
	if s.learner != nil {
		return s.learner.MarshalBinary()
	}
	if err := s.flush(ctx); err != nil {
		return nil, err
	}
	return s.table.MarshalBinary()
}

// unmarshal restores what marshal wrote.
func (s *rewardShaper) unmarshal(b []byte) error {
	if s.learner != nil {
		return s.learner.UnmarshalBinary(b)
	}
	return s.table.UnmarshalBinary(b)
}

func (s *rewardShaper) close() {
	if s.cam != nil {
		_ = s.cam.Close()
	}
}

// copyPoses copies what a renderer reads of src (the bodies' frames and
// the time) into dst, which then draws as src did.
func copyPoses(dst, src *articulated.Data) {
	dst.Xpos = append(dst.Xpos[:0], src.Xpos...)
	dst.Xquat = append(dst.Xquat[:0], src.Xquat...)
	dst.Time = src.Time
}
