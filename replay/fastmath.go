package replay

import "math"

// powPos returns x^a for x ≥ 0 as exp(a·ln x), with table-driven kernels
// instead of math.Pow (which loops over the exponent's bits): priorities
// p^α on every write-back and importance weights on every sample use it.
//
// ln x: x = m·2^e, m ∈ [1, 2); the top seven mantissa bits pick c_k with
// 1/c_k tabulated, z = m·(1/c_k) − 1 ∈ (−2⁻⁷, 2⁻⁷), and ln(1+z) is a degree-5
// series (error below 2⁻⁴²/6 ≈ 4e-14). e^y: y = (64k' + j)·ln2/64 + r with
// |r| ≤ ln2/128, 2^(j/64) tabulated and e^r a degree-5 Taylor polynomial
// (error below 0.0055⁶/720 ≈ 4e-17). For normal positive x and |a·ln x| <
// 700 the relative error is below 1e-12 (TestPowPos); zero, subnormal,
// infinite and NaN inputs, and results outside that range, go to math.Pow.
func powPos(x, a float64) float64 {
	bits := math.Float64bits(x)
	e := int(bits>>52&0x7ff) - 1023
	if e == -1023 || e == 1024 || bits>>63 != 0 { // zero/subnormal, Inf/NaN, negative
		return math.Pow(x, a)
	}
	k := bits >> (52 - lnTabBits) & (1<<lnTabBits - 1)
	m := math.Float64frombits(bits&(1<<52-1) | 1023<<52)
	z := m*lnInv[k] - 1
	z2 := z * z // Estrin's scheme: a shorter dependency chain than Horner's
	lnz := (z + z2*(-1.0/2+z*(1.0/3))) + (z2*z2)*(-1.0/4+z*(1.0/5))
	y := a * ((float64(e)*ln2Hi + lnNegInv[k]) + (float64(e)*ln2Lo + lnz))
	if !(y > -700 && y < 700) {
		return math.Pow(x, a)
	}
	// round y·64/ln2 to the nearest integer with the 1.5·2⁵² shifter
	const shifter = 0x1.8p52
	nf := (y*(expTabN/math.Ln2) + shifter) - shifter
	n := int64(nf)
	r := (y - nf*(ln2Hi/expTabN)) - nf*(ln2Lo/expTabN)
	r2 := r * r
	p := (1 + r) + (r2*(1.0/2+r*(1.0/6)) + (r2*r2)*(1.0/24+r*(1.0/120)))
	scale := math.Float64frombits(uint64(n>>expTabBits+1023) << 52)
	return p * expTab[n&(expTabN-1)] * scale
}

const (
	lnTabBits  = 7
	expTabBits = 6
	expTabN    = 1 << expTabBits
	// ln 2 split so that e·ln2Hi is exact for |e| < 2¹¹.
	ln2Hi = 6.93147180369123816490e-01
	ln2Lo = 1.90821492927058770002e-10
)

var (
	lnInv    [1 << lnTabBits]float64 // 1/c_k, c_k the centre of mantissa bucket k
	lnNegInv [1 << lnTabBits]float64 // −ln(lnInv[k]) = ln(1/lnInv[k])
	expTab   [expTabN]float64        // 2^(j/64)
)

func init() {
	for k := range lnInv {
		c := 1 + (float64(k)+0.5)/(1<<lnTabBits)
		lnInv[k] = 1 / c
		lnNegInv[k] = -math.Log(lnInv[k])
	}
	for j := range expTab {
		expTab[j] = math.Exp2(float64(j) / expTabN)
	}
}

// powScaled sets dst[j] = (x[j]·s)^a with powPos's kernels inlined into one
// loop, so the batch's independent evaluations overlap instead of each
// waiting on a call; dst may be x. Inputs powPos hands to math.Pow go to
// powPos, so every result equals powPos's.
func powScaled(dst, x []float64, s, a float64) {
	x = x[:len(dst)]
	for j, xj := range x {
		v := xj * s
		bits := math.Float64bits(v)
		e := int(bits>>52&0x7ff) - 1023
		if e == -1023 || e == 1024 || bits>>63 != 0 {
			dst[j] = powPos(v, a)
			continue
		}
		k := bits >> (52 - lnTabBits) & (1<<lnTabBits - 1)
		m := math.Float64frombits(bits&(1<<52-1) | 1023<<52)
		z := m*lnInv[k] - 1
		z2 := z * z
		lnz := (z + z2*(-1.0/2+z*(1.0/3))) + (z2*z2)*(-1.0/4+z*(1.0/5))
		y := a * ((float64(e)*ln2Hi + lnNegInv[k]) + (float64(e)*ln2Lo + lnz))
		if !(y > -700 && y < 700) {
			dst[j] = powPos(v, a)
			continue
		}
		const shifter = 0x1.8p52
		nf := (y*(expTabN/math.Ln2) + shifter) - shifter
		n := int64(nf)
		r := (y - nf*(ln2Hi/expTabN)) - nf*(ln2Lo/expTabN)
		r2 := r * r
		p := (1 + r) + (r2*(1.0/2+r*(1.0/6)) + (r2*r2)*(1.0/24+r*(1.0/120)))
		scale := math.Float64frombits(uint64(n>>expTabBits+1023) << 52)
		dst[j] = p * expTab[n&(expTabN-1)] * scale
	}
}

// powScaled32 sets dst[j] = float32((x[j]·s)^a), for importance weights: as
// powScaled but with degree-3 series for ln(1+z) (|z| < 2⁻⁸, error below
// z⁴/4 ≈ 6e-11) and e^r (|r| ≤ ln2/128, error below r⁴/24 ≈ 4e-11), which
// keeps the result within about 2e-10 relative of x^a — far inside the
// float32 rounding (6e-8) it is stored with — for fewer operations. Inputs
// powPos hands to math.Pow go to powPos.
func powScaled32(dst []float32, x []float64, s, a float64) {
	x = x[:len(dst)]
	for j, xj := range x {
		v := xj * s
		bits := math.Float64bits(v)
		e := int(bits>>52&0x7ff) - 1023
		if e == -1023 || e == 1024 || bits>>63 != 0 {
			dst[j] = float32(powPos(v, a))
			continue
		}
		k := bits >> (52 - lnTabBits) & (1<<lnTabBits - 1)
		m := math.Float64frombits(bits&(1<<52-1) | 1023<<52)
		z := m*lnInv[k] - 1
		lnz := z + (z*z)*(-1.0/2+z*(1.0/3))
		y := a * ((float64(e)*ln2Hi + lnNegInv[k]) + (float64(e)*ln2Lo + lnz))
		if !(y > -700 && y < 700) {
			dst[j] = float32(powPos(v, a))
			continue
		}
		const shifter = 0x1.8p52
		nf := (y*(expTabN/math.Ln2) + shifter) - shifter
		n := int64(nf)
		r := (y - nf*(ln2Hi/expTabN)) - nf*(ln2Lo/expTabN)
		p := (1 + r) + (r*r)*(1.0/2+r*(1.0/6))
		scale := math.Float64frombits(uint64(n>>expTabBits+1023) << 52)
		dst[j] = float32(p * expTab[n&(expTabN-1)] * scale)
	}
}

// minPositive returns the smallest of x (non-empty; no NaN), with four
// independent compare chains instead of one dependent min per element.
func minPositive(x []float64) float64 {
	m := [4]float64{x[0], x[0], x[0], x[0]}
	j := 0
	for ; j+4 <= len(x); j += 4 {
		q := x[j : j+4 : j+4]
		for i, v := range q {
			if v < m[i] {
				m[i] = v
			}
		}
	}
	for ; j < len(x); j++ {
		if x[j] < m[0] {
			m[0] = x[j]
		}
	}
	return min(m[0], m[1], m[2], m[3])
}
