package sac

import (
	"math"
	"testing"

	"github.com/vlmrb/vlmrb/replay"
)

// AlphaMin is a floor the tuned α never crosses: with the entropy far above
// the target, tuning lowers α every step until it meets the floor, then
// stays there.
func TestAlphaMinFloorsTunedAlpha(t *testing.T) {
	const floor = 0.5
	a := smallAgent(t, 22, func(c *Config) { c.AlphaMin = floor; c.QLR = 0.05 })
	b := randomBatch(32, 3, 2, 25)
	for u := 0; u < 400; u++ {
		if _, err := a.Update(b); err != nil {
			t.Fatal(err)
		}
		if al := a.Alpha(); al < floor*(1-1e-6) {
			t.Fatalf("update %d: α = %g below the floor %g", u, al, floor)
		}
	}
	if al := a.Alpha(); math.Abs(al-floor) > 1e-4 {
		t.Fatalf("α = %g after 400 updates with the entropy above target, want the floor %g", al, floor)
	}
	// without the floor the same run goes below it
	free := smallAgent(t, 22, func(c *Config) { c.QLR = 0.05 })
	for u := 0; u < 400; u++ {
		if _, err := free.Update(b); err != nil {
			t.Fatal(err)
		}
	}
	if free.Alpha() >= floor {
		t.Fatalf("without a floor α = %g, expected it below %g", free.Alpha(), floor)
	}
}

// With every reward 0 and no terminals, the fixed point of the critic
// target is Q = 0 without the entropy term, and Q = γ·E[−α log π]/(1−γ)
// with it (the soft value of the entropy bonus). With a fixed α = 1 and
// γ = 0.5 that is about the policy's entropy: far from 0.
func TestNoEntropyBackupKeepsQOnRewardScale(t *testing.T) {
	run := func(noBackup bool) (q, ent float64) {
		a := smallAgent(t, 5, func(c *Config) {
			c.Autotune, c.Alpha, c.Gamma, c.Tau = false, 1, 0.5, 0.1
			c.NoEntropyBackup = noBackup
			c.QLR, c.PolicyLR = 3e-3, 1e-12 // the actor stays (almost) as initialised
		})
		b := randomBatch(64, 3, 2, 9)
		zeroRewards(b)
		var m Metrics
		var err error
		for u := 0; u < 1500; u++ {
			if m, err = a.Update(b); err != nil {
				t.Fatal(err)
			}
		}
		return 0.5 * (m.QF1Value + m.QF2Value), m.Entropy
	}
	q0, _ := run(true)
	q1, ent := run(false)
	want := 0.5 * ent / (1 - 0.5) // γ·H/(1−γ)
	t.Logf("Q without backup %.4f, with backup %.4f (entropy %.3f → soft fixed point %.3f)", q0, q1, ent, want)
	if math.Abs(q0) > 0.05 {
		t.Errorf("without the entropy backup Q = %.4f, want ≈ 0 (all rewards are 0)", q0)
	}
	if math.Abs(q1-want) > 0.25*math.Abs(want)+0.05 {
		t.Errorf("with the entropy backup Q = %.4f, want ≈ γH/(1−γ) = %.4f", q1, want)
	}
}

func zeroRewards(b *replay.Batch) {
	for i := range b.Rewards {
		b.Rewards[i] = 0
		b.Terminated[i] = 0
	}
}
