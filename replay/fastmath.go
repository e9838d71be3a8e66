package replay

import "math"

// powPos returns x^a for x ≥ 0 as exp(a·ln x) with short polynomial kernels
// instead of math.Pow (which loops over the exponent's bits): priorities
// p^α on every write-back and importance weights on every sample use it.
// For normal positive x and finite results the relative error is below
// 1e-12 (TestPowPos); zero, subnormal, infinite and NaN inputs, and results
// outside the normal range, go to math.Pow.
func powPos(x, a float64) float64 {
	bits := math.Float64bits(x)
	e := int(bits>>52&0x7ff) - 1023
	if e == -1023 || e == 1024 || bits>>63 != 0 { // zero/subnormal, Inf/NaN, negative
		return math.Pow(x, a)
	}
	// x = m·2^e with m ∈ [√½, √2)
	m := math.Float64frombits(bits&(1<<52-1) | 1023<<52)
	if m > math.Sqrt2 {
		m *= 0.5
		e++
	}
	// ln m = 2·atanh(t), t = (m−1)/(m+1), |t| < 0.1716: the series to t¹³
	// leaves an error below 2·0.1716¹⁵/15 ≈ 5e-13.
	t := (m - 1) / (m + 1)
	t2 := t * t
	lnm := 2 * t * (1 + t2*(1.0/3+t2*(1.0/5+t2*(1.0/7+t2*(1.0/9+t2*(1.0/11+t2*(1.0/13)))))))
	y := a * (float64(e)*math.Ln2 + lnm)
	// e^y = 2^k·e^r, r = y − k·ln 2 ∈ [−0.347, 0.347]: Taylor to r¹¹
	// leaves an error below 0.347¹²/12! ≈ 6e-15.
	k := math.Floor(y*math.Log2E + 0.5)
	if !(k > -1020 && k < 1020) {
		return math.Pow(x, a)
	}
	const ln2Hi, ln2Lo = 6.93147180369123816490e-01, 1.90821492927058770002e-10
	r := (y - k*ln2Hi) - k*ln2Lo
	p := 1 + r*(1+r*(1.0/2+r*(1.0/6+r*(1.0/24+r*(1.0/120+r*(1.0/720+r*(1.0/5040+
		r*(1.0/40320+r*(1.0/362880+r*(1.0/3628800+r*(1.0/39916800)))))))))))
	return p * math.Float64frombits(uint64(int64(k)+1023)<<52)
}
