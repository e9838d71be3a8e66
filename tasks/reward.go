package tasks

import "math"

// Reward building blocks ported from MetaWorld's metaworld/utils/reward_utils.py
// (itself from dm_control's rewards.tolerance with the "long_tail" sigmoid).

// longTailScale makes the long-tail sigmoid equal valueAtMargin = 0.1 at one
// margin outside the bounds: sqrt(1/0.1 − 1) = 3.
var longTailScale = math.Sqrt(1/0.1 - 1)

// tolerance returns 1 when lo ≤ x ≤ hi, and otherwise a long-tail sigmoid
// of the distance outside the bounds in units of margin: 1/((3d)²+1), which
// is 0.1 at d = 1. With margin 0 it is a hard 0/1 indicator.
func tolerance(x, lo, hi, margin float64) float64 {
	if lo <= x && x <= hi {
		return 1
	}
	if margin <= 0 {
		return 0
	}
	var d float64
	if x < lo {
		d = (lo - x) / margin
	} else {
		d = (x - hi) / margin
	}
	d *= longTailScale
	return 1 / (d*d + 1)
}

// hamacher is the Hamacher product a·b/(a+b−a·b) of two values in [0,1], a
// fuzzy AND (0 when both are 0).
func hamacher(a, b float64) float64 {
	den := a + b - a*b
	if den <= 0 {
		return 0
	}
	return a * b / den
}
