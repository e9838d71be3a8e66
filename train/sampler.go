package train

import (
	"github.com/vlmrb/vlmrb/replay"
)

// feedback is the per-sample signal a sampler takes back after each
// update, decided once when the sampler is built.
type feedback int

const (
	noFeedback   feedback = iota
	tdFeedback            // |TD error| (PER, ERO, VLM-RB with td_product)
	reloFeedback          // ReLo's reducible loss
)

// sampler is the configured replay sampler with what it needs from the
// learner: its feedback kind, and VLM-RB's concrete type for the scorer.
type sampler struct {
	replay.Sampler
	vlmrb    *replay.VLMRB // nil unless replay is vlmrb
	feedback feedback
}

// newSampler builds the configured replay sampler over buf. totalUpdates
// anneals PER's β; warmupSamples is VLM-RB's λ warm-up in Sample calls
// (one per update).
func newSampler(cfg *Config, buf *replay.Buffer, totalUpdates, warmupSamples int64) (sampler, error) {
	b := cfg.Buffer
	var (
		s   sampler
		err error
	)
	switch cfg.Replay {
	case "uniform":
		s.Sampler = replay.NewUniform(buf)
	case "per", "relo":
		// ReLo takes PER's buffer.per_* values too (α 0.6, β₀ 0.4, ε 1e-6
		// by default; the reference's DQN uses α 0.6 and ε 1e-5, its SAC
		// replay.DefaultReLoConfig's α 0.5 and ε 1e-5)
		pc := replay.DefaultPERConfig()
		pc.Alpha, pc.Beta0, pc.Eps = b.PERAlpha, b.PERBeta0, b.PEREps
		pc.BetaSteps = totalUpdates
		var p *replay.PER
		if cfg.Replay == "per" {
			p, err = replay.NewPER(buf, pc)
			s.feedback = tdFeedback
		} else {
			p, err = replay.NewReLo(buf, pc)
			s.feedback = reloFeedback
		}
		s.Sampler = p
	case "vlmrb":
		vc := replay.DefaultVLMRBConfig()
		vc.LambdaMax, vc.Default = b.LambdaMax, b.DefaultPrio
		vc.Threshold, vc.Floor, vc.Alpha = b.Threshold, b.ScoreFloor, b.VLMAlpha
		if b.ScoreMap == "raw" {
			vc.Mapping = replay.MapRaw
		}
		vc.UseTD, vc.ISWeights = b.TDProduct, b.ImportanceIS
		vc.Beta0, vc.BetaSteps = b.PERBeta0, totalUpdates
		vc.WarmupSteps = warmupSamples
		s.vlmrb, err = replay.NewVLMRB(buf, vc)
		s.Sampler = s.vlmrb
		if b.TDProduct {
			s.feedback = tdFeedback
		}
	case "aer", "ero":
		s.Sampler, err = newBaselineSampler(cfg, buf, totalUpdates)
		if err != nil {
			return s, err
		}
		if cfg.Replay == "ero" {
			s.feedback = tdFeedback
		}
	default:
		return s, badf("replay %q is not available (choose one of %v)", cfg.Replay, ReplayChoices)
	}
	if err != nil {
		return s, &ConfigError{Msg: err.Error()}
	}
	return s, nil
}

// prioritized is how many of the last batch's first draws came from the
// prioritized branch.
func (s *sampler) prioritized() int {
	if s.vlmrb == nil {
		return 0
	}
	return s.vlmrb.LastPrioritized()
}
