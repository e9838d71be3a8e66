package train

import (
	"context"
	"image"
	"math"

	"github.com/vlmrb/vlmrb/frame"
	"github.com/vlmrb/vlmrb/nn"
	"github.com/vlmrb/vlmrb/render"
	"github.com/vlmrb/vlmrb/replay"
	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/tasks"
	"github.com/vlmrb/vlmrb/vlmprio"
	"github.com/vlmrb/vlmrb/vlmreward"
)

// replayDiag explains a replay result from the batches themselves: what
// share of the draws came from the prioritized branch, how many of them
// were semantically meaningful or reward-bearing compared with the
// buffer's own shares, and how old the prioritized draws were.
//
// A transition is *semantic* when the privileged oracle marks it as
// progress: the task's stage advanced, its progress rose by at least
// semanticGain in that one step, or the state after it is a success. The
// labels are privileged (simulation only) and never reach the sampler.
type replayDiag struct {
	semantic  []bool  // per slot
	rewarding []bool  // per slot: reward > 0
	demo      []bool  // per slot: a demonstration's transition (StepEvent.Demo)
	nDemo     int     // demonstration slots in the buffer
	demos     bool    // the run has stored a demonstration
	added     []int64 // per slot: the Add count when it was written (age)
	adds      int64
	nSem      int // semantic slots in the buffer
	nRew      int // rewarding slots in the buffer

	prevProg  []float64 // per env: progress after the previous step of the episode
	prevStage []float64
	fresh     []bool // per env: the next step starts an episode

	// since the last log row
	draws, prio, semHits, semPrio, rewHits, demoHits int64
	prioAge                                          float64
}

// semanticGain is the one-step progress gain that counts as meaningful
// (progress is in [0, 1]; expert episodes gain 0.005–0.05 per step).
const semanticGain = 0.005

func newReplayDiag(capacity, envs int) *replayDiag {
	d := &replayDiag{
		semantic: make([]bool, capacity), rewarding: make([]bool, capacity), added: make([]int64, capacity),
		demo:     make([]bool, capacity),
		prevProg: make([]float64, envs), prevStage: make([]float64, envs), fresh: make([]bool, envs),
	}
	for i := range d.fresh {
		d.fresh[i] = true
	}
	return d
}

// begin starts env i's episode at the state vals describes (the reset's
// info), so that its first transition is compared with that state rather
// than left unlabelled.
func (d *replayDiag) begin(i int, vals map[string]float64) {
	d.prevProg[i], d.prevStage[i], d.fresh[i] = vals["progress"], vals["stage"], false
}

// add records the labels of env i's transition stored at ref; vals is the
// info of the state after it.
func (d *replayDiag) add(ref replay.Ref, i int, reward float64, vals map[string]float64, done bool) {
	s := int(ref.Slot)
	if s < 0 || s >= len(d.semantic) {
		return
	}
	p, st := vals["progress"], vals["stage"]
	sem := vals["success"] != 0
	if !d.fresh[i] {
		sem = sem || st > d.prevStage[i] || p-d.prevProg[i] >= semanticGain
	}
	d.prevProg[i], d.prevStage[i], d.fresh[i] = p, st, done
	rew := reward > 0
	if d.semantic[s] {
		d.nSem--
	}
	if d.rewarding[s] {
		d.nRew--
	}
	d.semantic[s], d.rewarding[s] = sem, rew
	if sem {
		d.nSem++
	}
	if rew {
		d.nRew++
	}
	d.adds++
	d.added[s] = d.adds
}

// batch counts a sampled batch whose first k draws came from the
// prioritized branch (VLM-RB puts them first; 0 for other samplers).
func (d *replayDiag) batch(b *replay.Batch, k, bufLen int) {
	window := float64(min(d.adds, int64(bufLen)))
	for j, ref := range b.Refs {
		s := int(ref.Slot)
		if s < 0 || s >= len(d.semantic) {
			continue
		}
		d.draws++
		if d.semantic[s] {
			d.semHits++
		}
		if d.rewarding[s] { // the stored reward (a learned one may replace it in the batch)
			d.rewHits++
		}
		if d.demo[s] {
			d.demoHits++
		}
		if j < k {
			d.prio++
			if d.semantic[s] {
				d.semPrio++
			}
			if window > 0 {
				d.prioAge += float64(d.adds-d.added[s]) / window
			}
		}
	}
}

// OnStep implements Hook: it labels every stored transition.
func (d *replayDiag) OnStep(e StepEvent) error {
	d.add(e.Ref, e.Env, e.Transition.Reward, e.Info, e.Done)
	if s := int(e.Ref.Slot); s >= 0 && s < len(d.demo) {
		if d.demo[s] {
			d.nDemo--
		}
		if d.demo[s] = e.Demo; e.Demo {
			d.nDemo++
			d.demos = true
		}
	}
	return nil
}

// AfterUpdate implements Hook: it counts the update's batch.
func (d *replayDiag) AfterUpdate(e UpdateEvent) error {
	d.batch(e.Batch, e.Prioritized, e.BufferLen)
	return nil
}

// OnEval implements Hook.
func (d *replayDiag) OnEval(EvalEvent) error { return nil }

// OnCheckpoint implements Hook.
func (d *replayDiag) OnCheckpoint(CheckpointEvent) error { return nil }

// metrics adds the replay/ group to a log row and starts a new window.
func (d *replayDiag) metrics(v map[string]float64, bufLen int) {
	if bufLen > 0 {
		v["replay/semantic_buffer_frac"] = float64(d.nSem) / float64(bufLen)
		v["replay/reward_buffer_frac"] = float64(d.nRew) / float64(bufLen)
	}
	if d.draws > 0 {
		v["replay/semantic_hit_rate"] = float64(d.semHits) / float64(d.draws)
		v["replay/reward_batch_frac"] = float64(d.rewHits) / float64(d.draws)
		v["replay/prioritized_frac"] = float64(d.prio) / float64(d.draws)
	}
	if d.demos { // demonstrations (demos N or demos_path): their share of the buffer and of the draws
		if bufLen > 0 {
			v["replay/demo_buffer_frac"] = float64(d.nDemo) / float64(bufLen)
		}
		if d.draws > 0 {
			v["replay/demo_batch_frac"] = float64(d.demoHits) / float64(d.draws)
		}
	}
	if d.prio > 0 {
		v["replay/semantic_hit_rate_prioritized"] = float64(d.semPrio) / float64(d.prio)
		// mean age of prioritized draws as a fraction of the buffer's span:
		// 0.5 for draws spread like uniform ones, near 0 for the newest only
		v["replay/prioritized_age_frac"] = d.prioAge / float64(d.prio)
	}
	d.draws, d.prio, d.semHits, d.semPrio, d.rewHits, d.demoHits, d.prioAge = 0, 0, 0, 0, 0, 0, 0
}

// scoreValueCorrelation is the paper's Fig. 3 check along one scripted
// expert episode: the Spearman correlation between the score of the clip
// (o_i … o_{i+L−1}) of transition i (the frames of the states the actions
// are taken in, as in training) and the critic's temporal value
// difference over it, ΔQ = Q(i+L) − Q(i) (the paper's ΔQ(t; L) =
// Q(t + L/2) − Q(t − L/2) at the clip's centre t = i + L/2), with Q the
// smaller of the two online critics at the expert's action. Clips start
// every stride steps. NaN when the episode is shorter than L + 1 steps or
// either series is constant, or when the scorer's frames come from the
// run's own cameras (the caller checks: there is no simulated expert to film).
func scoreValueCorrelation(ctx context.Context, f fig3Setup, seed uint64, stride int) (float64, error) {
	reward, err := tasks.ParseRewardMode(f.cfg.EnvReward())
	if err != nil {
		return math.NaN(), err
	}
	env, err := tasks.Make(f.cfg.Task, f.cfg.TaskOptions(reward))
	if err != nil {
		return math.NaN(), err
	}
	obs, _ := env.Reset(seed)
	pol := env.Expert()
	A := env.Spec().ActDim
	act := make([]float64, A)
	var xs []float32
	var frames []frame.Frame
	var prog []float64
	w, h := f.cfg.VLM.Width, f.cfg.VLM.Height
	for t := 0; ; t++ {
		// o_t, the state the action is taken in (the training frame rule)
		p, _ := env.Progress()
		prog = append(prog, p)
		fr := frame.Frame{Camera: f.cfg.VLM.Camera, Seq: uint64(t)}
		if f.cam != nil {
			img := image.NewRGBA(image.Rect(0, 0, w, h))
			if err := f.cam.Render(env, img); err != nil {
				return math.NaN(), err
			}
			fr.Image = img
		}
		frames = append(frames, fr)
		pol.Act(obs, act)
		for _, v := range obs {
			xs = append(xs, float32(v))
		}
		for _, v := range act {
			xs = append(xs, float32(v))
		}
		next, _, term, trunc, _, err := env.Step(act)
		if err != nil {
			return math.NaN(), err
		}
		obs = next
		if term || trunc {
			break
		}
	}
	T := len(prog)
	L := f.cfg.VLM.Clip.Length
	if T < L+1 {
		return math.NaN(), nil
	}
	q := make([]float64, T)
	var qs [2][]float32
	for k := range f.critics {
		tape := f.critics[k].NewTape(T)
		qs[k] = append([]float32(nil), f.critics[k].Forward(tape, xs, T)...)
	}
	for t := range q {
		q[t] = float64(min(qs[0][t], qs[1][t]))
	}
	var scores, dq []float64
	for i := 0; i+L < T; i += max(1, stride) {
		c := &vlmprio.Clip{Frames: frames[i : i+L], Start: i, End: i + L, Progress: prog[i : i+L],
			Task: f.meta.Description, Family: f.meta.Family}
		sc, err := f.scorer.Score(ctx, c)
		if err != nil {
			continue // an unscorable clip (e.g. nothing visible) is left out
		}
		scores = append(scores, sc.Value)
		dq = append(dq, q[i+L]-q[i])
	}
	return vlmreward.Spearman(scores, dq), nil
}

// fig3Setup is what the Fig. 3 check reads of a run: its config and task,
// the scorer's camera (nil: image-less frames), the scorer and the online
// critics.
type fig3Setup struct {
	cfg     *rundir.Config
	meta    tasks.Meta
	cam     *render.SimCamera
	scorer  vlmprio.Scorer
	critics [2]*nn.MLP
}
