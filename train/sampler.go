package train

import (
	"github.com/vlmrb/vlmrb/replay"
	"github.com/vlmrb/vlmrb/rundir"
)

// The optional parts of a sampler, which the loop calls without knowing
// the sampler's type. A sampler implements those it needs.
type (
	// episodeEnder learns from the return of every finished training
	// episode (ERO's replay reward).
	episodeEnder interface{ endEpisode(ret float64) }
	// stateQuerier ranks candidates against the agent's current state
	// (AER), given before every Sample.
	stateQuerier interface{ setQuery(obs []float64) }
	// samplerMetrics adds the sampler's own replay/ values to a log row.
	samplerMetrics interface{ metrics(v map[string]float64) }
	// samplerState keeps loop state beyond replay.bin in the checkpoint's
	// state.json (ERO's previous return).
	samplerState interface {
		saveState(*loopState)
		loadState(*loopState)
	}
	// prioritizedCounter reports how many of the last batch's first draws
	// came from a prioritized branch (VLM-RB).
	prioritizedCounter interface{ LastPrioritized() int }
)

// sampler is the configured replay sampler with what the loop needs of
// it: its feedback kind, its optional parts (nil when it has none), and
// VLM-RB's sampler for the scorer's write-backs.
type sampler struct {
	replay.Sampler
	feedback rundir.Feedback // Config.Feedback, the one decision
	vlmrb    *replay.VLMRB   // the score sink of replay vlmrb (nil otherwise)

	ender   episodeEnder
	querier stateQuerier
	metrics samplerMetrics
	state   samplerState
	counter prioritizedCounter
}

// newSampler builds the configured replay sampler over buf. totalUpdates
// anneals PER's β; warmupSamples is VLM-RB's λ warm-up in Sample calls
// (one per update).
func newSampler(cfg *rundir.Config, buf *replay.Buffer, totalUpdates, warmupSamples int64) (sampler, error) {
	var err error
	s := sampler{feedback: cfg.Feedback()}
	switch cfg.Replay {
	case "uniform":
		s.Sampler = replay.NewUniform(buf)
	case "per", "relo":
		var p *replay.PER
		if p, err = newPER(cfg, buf, totalUpdates); err == nil {
			s.Sampler = p
		}
	case "vlmrb":
		if s.vlmrb, err = newVLMRB(cfg, buf, totalUpdates, warmupSamples); err == nil {
			s.Sampler, s.counter = s.vlmrb, s.vlmrb
		}
	case "aer":
		var a *aerSampler
		if a, err = newAER(cfg, buf, totalUpdates); err == nil {
			s.Sampler, s.querier = a, a
		}
	case "ero":
		var e *eroSampler
		if e, err = newERO(cfg, buf); err == nil {
			s.Sampler, s.ender, s.metrics, s.state = e, e, e, e
		}
	default:
		return s, rundir.ConfigErrorf("replay %q is not available (choose one of %v)", cfg.Replay, rundir.ReplayChoices)
	}
	if err != nil {
		return s, &rundir.ConfigError{Msg: err.Error()}
	}
	return s, nil
}

// newPER is replay per or relo from the buffer section's PER config. ReLo
// takes PER's buffer.per_* values too (α 0.6, β₀ 0.4, ε 1e-6 by default;
// the reference's DQN uses α 0.6 and ε 1e-5, its SAC
// replay.DefaultReLoConfig's α 0.5 and ε 1e-5).
func newPER(cfg *rundir.Config, buf *replay.Buffer, totalUpdates int64) (*replay.PER, error) {
	pc := cfg.Buffer.PER
	pc.BetaSteps = totalUpdates
	if cfg.Replay == "relo" {
		return replay.NewReLo(buf, pc)
	}
	return replay.NewPER(buf, pc)
}

// newVLMRB is replay vlmrb from the buffer section's VLM-RB config, with
// PER's per_beta0 as its importance exponent and the run's schedules.
func newVLMRB(cfg *rundir.Config, buf *replay.Buffer, totalUpdates, warmupSamples int64) (*replay.VLMRB, error) {
	vc := cfg.Buffer.VLMRB
	vc.Beta0, vc.BetaSteps = cfg.Buffer.PER.Beta0, totalUpdates
	vc.WarmupSteps = warmupSamples
	return replay.NewVLMRB(buf, vc)
}

// signal is the last update's per-sample signal this sampler takes back
// (nil: none).
func (s *sampler) signal(a interface {
	TDErrors() []float32
	ReLoScores() []float32
}) []float32 {
	switch s.feedback {
	case rundir.TDFeedback:
		return a.TDErrors()
	case rundir.ReLoFeedback:
		return a.ReLoScores()
	}
	return nil
}

// prioritized is how many of the last batch's first draws came from the
// prioritized branch (0 for samplers without one).
func (s *sampler) prioritized() int {
	if s.counter == nil {
		return 0
	}
	return s.counter.LastPrioritized()
}

// query gives a state querier the agent's current state: env k's
// observation, k cycling over the envs with the update count.
func (s *sampler) query(obs [][]float64, update int64) {
	if s.querier != nil && len(obs) > 0 {
		s.querier.setQuery(obs[int(update%int64(len(obs)))])
	}
}

// endEpisode hands a finished training episode's return to the sampler.
func (s *sampler) endEpisode(ret float64) {
	if s.ender != nil {
		s.ender.endEpisode(ret)
	}
}

// addMetrics adds the sampler's own values to a log row.
func (s *sampler) addMetrics(v map[string]float64) {
	if s.metrics != nil {
		s.metrics.metrics(v)
	}
}

// saveState and loadState carry the sampler's loop state through
// state.json.
func (s *sampler) saveState(ls *loopState) {
	if s.state != nil {
		s.state.saveState(ls)
	}
}

func (s *sampler) loadState(ls *loopState) {
	if s.state != nil {
		s.state.loadState(ls)
	}
}
