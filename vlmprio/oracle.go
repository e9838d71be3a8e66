package vlmprio

import (
	"context"
	"errors"
	"math"
)

// OracleScorer scores a clip from the privileged task progress that
// simulated clips carry (Clip.Progress, in [0,1] per frame). It is an upper
// bound for ablations, not something a real robot has.
//
// With P = max_k P_k and G = clamp((P_last − P_first)/GainScale, 0, 1),
//
//	Score = max(P, (MaxWeight·P + GainWeight·G)/(MaxWeight + GainWeight)):
//
// a clip scores high when it shows a late stage of the task anywhere in it
// (holding a success counts fully, like VLM-RB's "goal satisfaction
// anywhere in the clip") or makes clear progress within it.
type OracleScorer struct {
	MaxWeight  float64 // weight of the highest progress reached (default 0.5)
	GainWeight float64 // weight of the progress made within the clip (default 0.5)
	GainScale  float64 // progress gain that counts as full credit (default 0.1)
}

// Score implements Scorer. Clips without Progress give a KindInput error.
func (o OracleScorer) Score(ctx context.Context, c *Clip) (Score, error) {
	if err := ctx.Err(); err != nil {
		return Score{}, &ScoreError{Kind: KindCanceled, Err: err}
	}
	if c == nil || len(c.Progress) == 0 {
		return Score{}, &ScoreError{Kind: KindInput, Err: errors.New("oracle scorer needs Clip.Progress (privileged progress, simulation only)")}
	}
	wm, wg, gs := o.MaxWeight, o.GainWeight, o.GainScale
	if wm <= 0 && wg <= 0 {
		wm, wg = 0.5, 0.5
	}
	if gs <= 0 {
		gs = 0.1
	}
	n := len(c.Progress) - c.Padded
	if n <= 0 {
		n = len(c.Progress)
	}
	p := c.Progress[:n]
	hi := math.Inf(-1)
	for _, v := range p {
		if math.IsNaN(v) {
			return Score{}, &ScoreError{Kind: KindInput, Err: errors.New("clip progress contains NaN")}
		}
		hi = max(hi, v)
	}
	gain := clamp01((p[n-1] - p[0]) / gs)
	v := max(clamp01(hi), (max(wm, 0)*clamp01(hi)+max(wg, 0)*gain)/(max(wm, 0)+max(wg, 0)))
	return Score{Value: v, Method: "oracle"}, nil
}

func clamp01(x float64) float64 {
	switch {
	case x < 0 || math.IsNaN(x):
		return 0
	case x > 1:
		return 1
	}
	return x
}
