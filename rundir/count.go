package rundir

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParseCount reads a count the way people write one: an integer in Go
// syntax (30000, 30_000, 0x10), scientific notation that is a whole number
// (1e4, 2.5e5), or a number with a k, M or G suffix (100k, 1.5M: ×10³, ×10⁶,
// ×10⁹). It refuses fractions (1.5e0), values outside int64 and anything
// else, saying what it wanted.
func ParseCount(text string) (int64, error) {
	t := strings.TrimSpace(text)
	if v, err := strconv.ParseInt(t, 0, 64); err == nil {
		return v, nil
	}
	mult := 1.0
	if n := len(t); n > 1 {
		switch t[n-1] {
		case 'k', 'K':
			mult, t = 1e3, t[:n-1]
		case 'M':
			mult, t = 1e6, t[:n-1]
		case 'G':
			mult, t = 1e9, t[:n-1]
		}
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(t, "_", ""), 64)
	if err != nil || strings.ContainsAny(t, "xXpP") || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, fmt.Errorf("want a whole number such as 30000, 3e4 or 30k, got %q", text)
	}
	v := f * mult
	if v != math.Trunc(v) {
		return 0, fmt.Errorf("%q is %g, not a whole number", text, v)
	}
	if v >= math.MaxInt64 || v < math.MinInt64 {
		return 0, fmt.Errorf("%q is out of range", text)
	}
	return int64(v), nil
}

// EncodeYAML renders c as config.yaml holds it (without secrets): what
// `train --print-config` prints.
func (c *Config) EncodeYAML() ([]byte, error) { return c.encode() }
