package sac

import (
	"math"
	"testing"
)

// ActNoise is tanh(mean + σ·ε) of the actor's outputs, computed by hand
// from the actor's forward pass, and leaves the agent's generator where it
// was: two agents of one seed draw the same random actions afterwards
// whether or not one of them evaluated its stochastic policy in between.
func TestActNoiseIsSquashedGaussianAndKeepsStream(t *testing.T) {
	a, b := smallAgent(t, 21, nil), smallAgent(t, 21, nil)
	obs := []float64{0.2, -0.4, 0.9}
	eps := []float64{0.7, -1.3}
	got := make([]float64, 2)
	a.ActNoise(got, obs, eps)

	out := a.actor.Forward(a.actor.NewTape(1), []float32{0.2, -0.4, 0.9}, 1)
	lo, hi := a.cfg.LogStdMin, a.cfg.LogStdMax
	for j := range 2 {
		ls := lo + 0.5*(hi-lo)*(math.Tanh(float64(out[2+j]))+1)
		want := math.Tanh(float64(out[j]) + math.Exp(ls)*eps[j])
		if math.Abs(got[j]-want) > 1e-6 {
			t.Errorf("action %d = %g, want tanh(μ + σε) = %g", j, got[j], want)
		}
	}
	// ε = 0 is the deterministic action
	det, zero := make([]float64, 2), make([]float64, 2)
	a.Act(det, obs, true)
	a.ActNoise(zero, obs, []float64{0, 0})
	for j := range det {
		if math.Abs(det[j]-zero[j]) > 1e-6 {
			t.Errorf("ActNoise with ε = 0: action %d = %g, want the deterministic %g", j, zero[j], det[j])
		}
	}
	ra, rb := make([]float64, 2), make([]float64, 2)
	a.RandomAction(ra)
	b.RandomAction(rb)
	if ra[0] != rb[0] || ra[1] != rb[1] {
		t.Errorf("ActNoise advanced the agent's generator: random action %v, want %v", ra, rb)
	}
}
