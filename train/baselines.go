package train

import (
	"math"

	"github.com/vlmrb/vlmrb/replay"
	"github.com/vlmrb/vlmrb/rundir"
)

// The aer and ero sections of a config are replay.AERConfig (the
// candidate factor λ₀; its annealing length is the run's update count)
// and replay.EROConfig (candidates per batch row, the replay policy's
// step size): AER ranks ⌈λk⌉ uniform draws by similarity to the agent's
// current state, λ falling linearly to 1 over the run; ERO's logistic
// replay policy over reward, |TD error| and age keeps candidates by
// Bernoulli draws and learns by REINFORCE on the change of the return from
// one training episode to the next.

// aerSampler is replay.AER told the agent's current state before every
// Sample.
type aerSampler struct{ *replay.AER }

func (a *aerSampler) setQuery(obs []float64) { a.SetQuery(obs) }

// newAER builds replay aer over buf; totalUpdates is the length of its λ
// annealing (one Sample per update).
func newAER(cfg *rundir.Config, buf *replay.Buffer, totalUpdates int64) (*aerSampler, error) {
	ac := cfg.AER
	ac.LambdaSteps = totalUpdates
	s, err := replay.NewAER(buf, ac)
	if err != nil {
		return nil, err
	}
	return &aerSampler{s}, nil
}

// eroSampler is replay.ERO with the return of the previous training
// episode, so each episode's end hands the replay policy its replay reward
// r^r = r^c_π − r^c_π′ (Zha et al. 2019, Algorithm 1: the cumulative reward
// of the policy's latest episode against its previous one). Training
// episodes, not greedy evaluations: a sparse task's evaluations return 0
// until the agent has learned, which left the replay policy at its
// initial weights in every DoorKey run.
type eroSampler struct {
	*replay.ERO
	prev float64
	have bool
}

func newERO(cfg *rundir.Config, buf *replay.Buffer) (*eroSampler, error) {
	s, err := replay.NewERO(buf, cfg.ERO)
	if err != nil {
		return nil, err
	}
	return &eroSampler{ERO: s}, nil
}

// endEpisode trains the replay policy on the change of the training
// return since the previous episode (nothing at the first).
func (e *eroSampler) endEpisode(ret float64) {
	if e.have {
		e.Reward(ret - e.prev)
	}
	e.prev, e.have = ret, true
}

// metrics adds ERO's replay-policy updates and mean keep probability to a
// log row (replay/ero_updates, replay/ero_keep_mean).
func (e *eroSampler) metrics(v map[string]float64) {
	st := e.Stats()
	v["replay/ero_updates"] = float64(st.Updates)
	if !math.IsNaN(st.KeepMean) {
		v["replay/ero_keep_mean"] = st.KeepMean
	}
}

// saveState keeps the previous return in state.json (the replay policy
// itself is in replay.bin).
func (e *eroSampler) saveState(ls *loopState) {
	if e.have {
		prev := e.prev
		ls.EROPrev = &prev
	}
}

func (e *eroSampler) loadState(ls *loopState) {
	if ls.EROPrev != nil {
		e.prev, e.have = *ls.EROPrev, true
	}
}
