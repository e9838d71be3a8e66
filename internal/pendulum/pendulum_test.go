package pendulum

import (
	"math"
	"testing"
)

func TestStepMatchesGymnasiumFormula(t *testing.T) {
	// One step from θ = 1 rad, θ̇ = 0.5 rad/s with u = 1.5 N·m, by hand:
	// cost = 1 + 0.1·0.25 + 0.001·2.25 = 1.02725
	// θ̇′ = 0.5 + (15·sin 1 + 3·1.5)·0.05, θ′ = 1 + θ̇′·0.05
	e := Env{Theta: 1, ThetaDot: 0.5}
	obs := make([]float64, 3)
	r, trunc := e.Step(1.5, obs)
	wantThdot := 0.5 + (15*math.Sin(1)+4.5)*0.05
	if math.Abs(r+1.02725) > 1e-12 || trunc {
		t.Fatalf("reward %v truncated %v, want -1.02725 false", r, trunc)
	}
	if math.Abs(e.ThetaDot-wantThdot) > 1e-12 || math.Abs(e.Theta-(1+wantThdot*0.05)) > 1e-12 {
		t.Fatalf("state %v %v", e.Theta, e.ThetaDot)
	}
	if obs[0] != math.Cos(e.Theta) || obs[1] != math.Sin(e.Theta) || obs[2] != e.ThetaDot {
		t.Fatalf("obs %v", obs)
	}
}

func TestClipsTorqueAndSpeed(t *testing.T) {
	e := Env{Theta: math.Pi / 2, ThetaDot: 7.9}
	obs := make([]float64, 3)
	r, _ := e.Step(100, obs)
	if e.ThetaDot != MaxSpeed {
		t.Fatalf("speed %v not clipped to %v", e.ThetaDot, MaxSpeed)
	}
	want := -(math.Pi*math.Pi/4 + 0.1*7.9*7.9 + 0.001*4)
	if math.Abs(r-want) > 1e-12 {
		t.Fatalf("reward %v, want %v (torque clipped to 2)", r, want)
	}
}

func TestAngleNormalize(t *testing.T) {
	for _, c := range []struct{ in, want float64 }{{0, 0}, {math.Pi, -math.Pi}, {3 * math.Pi / 2, -math.Pi / 2}, {-3 * math.Pi / 2, math.Pi / 2}, {7, 7 - 2*math.Pi}} {
		if got := angleNormalize(c.in); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("angleNormalize(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestTruncatesAt200AndResetIsReproducible(t *testing.T) {
	var e Env
	obs := make([]float64, 3)
	o1 := append([]float64(nil), e.Reset(7, obs)...)
	if e.Theta < -math.Pi || e.Theta > math.Pi || math.Abs(e.ThetaDot) > 1 {
		t.Fatalf("reset state %v %v outside Gymnasium's ranges", e.Theta, e.ThetaDot)
	}
	for i := 1; i <= MaxSteps; i++ {
		if _, tr := e.Step(0, obs); tr != (i == MaxSteps) {
			t.Fatalf("step %d truncated=%v", i, tr)
		}
	}
	o2 := e.Reset(7, obs)
	for i := range o1 {
		if o1[i] != o2[i] {
			t.Fatalf("Reset(7) not reproducible: %v vs %v", o1, o2)
		}
	}
}
