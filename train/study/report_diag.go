package study

import (
	"encoding/json"
	"math"
	"slices"
	"sort"

	"github.com/vlmrb/vlmrb/rundir"
)

// Diag is one diagnostic of an arm on a task: each done run is reduced to
// one number (Agg: "max" or "mean" of the key over its logged rows, "max2"
// the max over the second half of the run, "pre" and "post" the mean
// before and after the first reward entered the buffer, "first": the first
// step at which the study's metric is above 0, "firstpos" the first step
// at which the key is above 0, "lag" the steps from the first reward in
// the buffer to the metric's first value ≥ 0.5; +Inf when never), and
// Median, Min and Max are over the runs that have a value (Runs).
type Diag struct {
	Key    string `json:"key"`
	Agg    string `json:"agg"`
	Runs   int    `json:"runs"`
	Median Finite `json:"median"`
	Min    Finite `json:"min"`
	Max    Finite `json:"max"`
}

// Finite is a float64 that encodes to JSON as null when it is not finite
// (a "first" diagnostic of a run that never succeeded is +Inf).
type Finite float64

// MarshalJSON implements json.Marshaler.
func (f Finite) MarshalJSON() ([]byte, error) {
	if math.IsInf(float64(f), 0) || math.IsNaN(float64(f)) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(f))
}

// diagKeys are the diagnostics a report summarises when runs log them:
// value blow-ups (mean Q of the batches, SAC's α), what the prioritized
// branch draws against what the buffer holds, and the Fig. 3 check.
var diagKeys = []struct{ key, agg, label string }{
	{"", "first", "first success (step)"},
	{rewardKey, "firstpos", "first reward in buffer (step)"},
	{"", "lag", "first reward → success ≥ 0.5 (steps)"},
	{"losses/qf1_values", "max", "max mean Q"},
	{"losses/q_values", "max", "max mean Q (DQN)"},
	{"charts/alpha", "max2", "max α, 2nd half"},
	{"replay/prioritized_frac", "mean", "prioritized share"},
	{"replay/semantic_hit_rate_prioritized", "mean", "progress share, prioritized draws"},
	{"replay/semantic_buffer_frac", "mean", "progress share, buffer"},
	{"replay/reward_batch_frac", "mean", "reward share, batches"},
	{"replay/reward_buffer_frac", "mean", "reward share, buffer"},
	{"eval/score_dq_spearman", "mean", "score–ΔQ Spearman"},
	{"eval/score_dq_spearman", "pre", "score–ΔQ Spearman, no reward in buffer yet"},
	{"eval/score_dq_spearman", "post", "score–ΔQ Spearman, reward in buffer"},
}

// rewardKey marks the split of the "pre" and "post" aggregates: the first
// logged step at which the buffer holds a reward-bearing transition.
const rewardKey = "replay/reward_buffer_frac"

// runDiags reduces one run's rows to its diagnostics (NaN: not logged).
// "max2" is the max over the rows of the run's second half (steps), where
// a late rise of SAC's α marks a blow-up and its early decay does not.
// "pre" and "post" are means over the rows before and from the first row
// whose buffer holds a reward (rewardKey > 0): with a sparse reward the
// critic has nothing to learn a value from before that step.
func runDiags(rows []rundir.Row, steps, vals []float64) []float64 {
	out := make([]float64, len(diagKeys))
	half := 0.0
	if len(rows) > 0 {
		half = float64(rows[len(rows)-1].Step) / 2
	}
	rewarded := math.Inf(1)
	for _, row := range rows {
		if v, ok := row.Values[rewardKey]; ok && v > 0 {
			rewarded = float64(row.Step)
			break
		}
	}
	for k, dk := range diagKeys {
		out[k] = math.NaN()
		switch dk.agg {
		case "firstpos":
			if logs(rows, dk.key) {
				out[k] = rewarded
			}
			continue
		case "lag":
			// how long the replay takes to turn the first reward into a
			// policy: NaN when no reward was found, +Inf when never
			if math.IsInf(rewarded, 1) {
				continue
			}
			out[k] = math.Inf(1)
			for i, v := range vals {
				if v >= 0.5 && steps[i] >= rewarded {
					out[k] = steps[i] - rewarded
					break
				}
			}
			continue
		}
		if dk.agg == "first" {
			out[k] = math.Inf(1)
			for i, v := range vals {
				if v > 0 {
					out[k] = steps[i]
					break
				}
			}
			continue
		}
		n, acc := 0, 0.0
		for _, row := range rows {
			v, ok := row.Values[dk.key]
			step := float64(row.Step)
			if !ok || math.IsNaN(v) || (dk.agg == "max2" && step < half) ||
				(dk.agg == "pre" && step >= rewarded) || (dk.agg == "post" && step < rewarded) {
				continue
			}
			switch {
			case (dk.agg == "max" || dk.agg == "max2") && (n == 0 || v > acc):
				acc = v
			case dk.agg == "mean" || dk.agg == "pre" || dk.agg == "post":
				acc += v
			}
			n++
		}
		if n > 0 {
			if dk.agg == "mean" || dk.agg == "pre" || dk.agg == "post" {
				acc /= float64(n)
			}
			out[k] = acc
		}
	}
	return out
}

// logs reports whether any row logs key.
func logs(rows []rundir.Row, key string) bool {
	return slices.ContainsFunc(rows, func(r rundir.Row) bool { _, ok := r.Values[key]; return ok })
}

// armDiags summarises the runs' diagnostics key by key.
func armDiags(ds []*runData) []Diag {
	var out []Diag
	for k, dk := range diagKeys {
		var xs []float64
		for _, d := range ds {
			if v := d.diags[k]; !math.IsNaN(v) {
				xs = append(xs, v)
			}
		}
		if len(xs) == 0 {
			continue
		}
		sort.Float64s(xs)
		key := dk.key
		if key == "" {
			key = "metric"
		}
		out = append(out, Diag{Key: key, Agg: dk.agg, Runs: len(xs), Median: Finite(median(xs)), Min: Finite(xs[0]), Max: Finite(xs[len(xs)-1])})
	}
	return out
}
