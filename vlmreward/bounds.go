package vlmreward

import "fmt"

// Upper bounds on a reward model, checked by NewModel and by
// UnmarshalModel before anything is allocated from a file's header
// (ERL-VLM's model: 3 members of a 3-layer CNN on 32 px, 21k parameters).
const (
	MaxEnsemble    = 64      // members
	MaxCNNSize     = 1024    // input side (px)
	MaxCNNLayers   = 16      // conv layers
	MaxCNNChannels = 4096    // channels of one conv layer
	MaxCNNParams   = 1 << 26 // parameters of one member
)

// cnnParams checks cfg against the bounds above and returns one member's
// parameter count, the same as NewCNN's.
func cnnParams(cfg CNNConfig) (int, error) {
	L := len(cfg.Channels)
	if cfg.Size <= 0 || cfg.Size > MaxCNNSize || L == 0 || L > MaxCNNLayers || len(cfg.Kernels) != L || len(cfg.Strides) != L {
		return 0, fmt.Errorf("vlmreward: bad CNN config %+v (side 1..%d px, 1..%d layers)", cfg, MaxCNNSize, MaxCNNLayers)
	}
	inC, h, total := 3, cfg.Size, 0
	for l := range L {
		c, k, s := cfg.Channels[l], cfg.Kernels[l], cfg.Strides[l]
		if c <= 0 || c > MaxCNNChannels || k <= 0 || s <= 0 || h < k {
			return 0, fmt.Errorf("vlmreward: CNN layer %d: %d channels (1..%d), kernel %d stride %d on %d px", l, c, MaxCNNChannels, k, s, h)
		}
		total += c*inC*k*k + c // each term ≤ 2^12·2^12·2^20: no overflow
		if total > MaxCNNParams {
			return 0, fmt.Errorf("vlmreward: CNN config %+v has more than %d parameters", cfg, MaxCNNParams)
		}
		inC, h = c, (h-k)/s+1
	}
	total += inC*h*h + 1
	if total > MaxCNNParams {
		return 0, fmt.Errorf("vlmreward: CNN config %+v has more than %d parameters", cfg, MaxCNNParams)
	}
	return total, nil
}
