package train

import (
	"math"

	"github.com/vlmrb/vlmrb/replay"
)

// AERConfig configures replay aer (Attentive Experience Replay, the `aer:`
// section): each batch of k is the k transitions nearest the agent's
// current state among ⌈λk⌉ uniform draws, λ falling linearly from lambda0
// to 1 over the run's updates.
type AERConfig struct {
	Lambda0 float64 `yaml:"lambda0"` // initial candidate factor λ ≥ 1
}

// EROConfig configures replay ero (Experience Replay Optimization, the
// `ero:` section): a logistic replay policy over reward, |TD error| and age
// keeps candidates by Bernoulli draws and learns by REINFORCE on the change
// of the return from one training episode to the next.
type EROConfig struct {
	Candidates int     `yaml:"candidates"` // uniform candidates per batch row offered to the replay policy
	LR         float64 `yaml:"lr"`         // replay-policy step size
}

// DefaultAERConfig and DefaultEROConfig are the replay package's defaults.
func DefaultAERConfig() AERConfig { return AERConfig{Lambda0: replay.DefaultAERConfig().Lambda0} }

// DefaultEROConfig returns replay.DefaultEROConfig's candidates and step size.
func DefaultEROConfig() EROConfig {
	d := replay.DefaultEROConfig()
	return EROConfig{Candidates: d.Candidates, LR: d.LR}
}

// validateBaselines checks the aer and ero sections when they are used.
func (c *Config) validateBaselines(add func(error)) {
	switch c.Replay {
	case "aer":
		if !(c.AER.Lambda0 >= 1 && c.AER.Lambda0 <= 1024) {
			add(badf("aer.lambda0 must be in [1, 1024] (got %g)", c.AER.Lambda0))
		}
	case "ero":
		if c.ERO.Candidates < 1 || c.ERO.Candidates > 256 {
			add(badf("ero.candidates must be in [1, 256] (got %d)", c.ERO.Candidates))
		}
		if !(c.ERO.LR > 0) {
			add(badf("ero.lr must be > 0 (got %g)", c.ERO.LR))
		}
	}
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

// episodeReturn trains the replay policy on the change of the training
// return since the previous episode (nothing at the first).
func (e *eroSampler) episodeReturn(ret float64) {
	if e.have {
		e.Reward(ret - e.prev)
	}
	e.prev, e.have = ret, true
}

// newBaselineSampler builds replay aer or ero over buf; totalUpdates is the
// length of AER's λ annealing (one Sample per update).
func newBaselineSampler(cfg *Config, buf *replay.Buffer, totalUpdates int64) (replay.Sampler, error) {
	if cfg.Replay == "aer" {
		s, err := replay.NewAER(buf, replay.AERConfig{Lambda0: cfg.AER.Lambda0, LambdaSteps: totalUpdates})
		if err != nil {
			return nil, &ConfigError{Msg: err.Error()}
		}
		return s, nil
	}
	s, err := replay.NewERO(buf, replay.EROConfig{Candidates: cfg.ERO.Candidates, LR: cfg.ERO.LR})
	if err != nil {
		return nil, &ConfigError{Msg: err.Error()}
	}
	return &eroSampler{ERO: s}, nil
}

// attend gives AER the state the agent is in now (env k's current
// observation, k cycling over the envs); other samplers ignore it.
func attend(s replay.Sampler, obs [][]float64, k int64) {
	if a, ok := s.(*replay.AER); ok && len(obs) > 0 {
		a.SetQuery(obs[int(k%int64(len(obs)))])
	}
}

// eroMetrics adds ERO's replay-policy updates and mean keep probability to
// a log row (replay/ero_updates, replay/ero_keep_mean); other samplers add
// nothing.
func eroMetrics(s replay.Sampler, v map[string]float64) {
	e, ok := s.(*eroSampler)
	if !ok {
		return
	}
	st := e.Stats()
	v["replay/ero_updates"] = float64(st.Updates)
	if !math.IsNaN(st.KeepMean) {
		v["replay/ero_keep_mean"] = st.KeepMean
	}
}

// afterEpisode hands ERO the return of a finished training episode (not a
// demonstration's); other samplers ignore it.
func afterEpisode(s replay.Sampler, ret float64) {
	if e, ok := s.(*eroSampler); ok {
		e.episodeReturn(ret)
	}
}
