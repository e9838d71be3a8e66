package nn

import "fmt"

// Upper bounds on a network, checked by every decoder before it allocates
// and by the agents' configs before they build one. They are far above
// anything this project trains (256×256 hidden layers, under 100k
// parameters) and keep a typo or a crafted file from asking for more
// memory than a machine has.
const (
	MaxWidth  = 1 << 14 // units in one layer (16384)
	MaxLayers = 64      // sizes of one MLP, input and output included
	MaxParams = 1 << 26 // parameters of one MLP (67M: 256 MiB of float32, as much again for its gradients)
)

// CheckSizes checks an MLP's layer sizes against MaxWidth, MaxLayers and
// MaxParams and returns its parameter count, computed without overflow.
func CheckSizes(sizes []int) (int, error) {
	if len(sizes) < 2 || len(sizes) > MaxLayers {
		return 0, fmt.Errorf("%w: an MLP has 2 to %d layer sizes, not %d", ErrFormat, MaxLayers, len(sizes))
	}
	n := 0
	for i, s := range sizes {
		if s < 1 || s > MaxWidth {
			return 0, fmt.Errorf("%w: layer width %d outside 1..%d (nn.MaxWidth)", ErrFormat, s, MaxWidth)
		}
		if i > 0 {
			n += sizes[i-1]*s + s // each term ≤ 2^28 + 2^14: no overflow
			if n > MaxParams {
				return 0, fmt.Errorf("%w: layer sizes %v give more than %d parameters (nn.MaxParams)", ErrFormat, sizes, MaxParams)
			}
		}
	}
	return n, nil
}
