package vlmreward

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/vlmrb/vlmrb/nn"
)

// ModelConfig configures the ERL-VLM reward model (papers.md §2.5).
type ModelConfig struct {
	CNN       CNNConfig
	Ensemble  int      // members (3)
	Classes   int      // rating classes n, 2–5
	K         float64  // softmax temperature k (30)
	Loss      LossKind // LossMAE (ERL-VLM) or LossCE
	Weighted  bool     // class-weighted loss (true)
	Batch     int      // training batch (512 for the CNN)
	LR        float64  // Adam step (3e-4)
	MaxEpochs int      // reward epochs per update (10)
	StopAcc   float64  // early stop when mean accuracy > StopAcc (0.97)
	Seed      uint64
}

// DefaultModelConfig returns the reference hyperparameters for n classes.
func DefaultModelConfig(n int) ModelConfig {
	return ModelConfig{CNN: DefaultCNNConfig(), Ensemble: 3, Classes: n, K: 30, Loss: LossMAE, Weighted: true,
		Batch: 512, LR: 3e-4, MaxEpochs: 10, StopAcc: 0.97, Seed: 1}
}

// Model is an ensemble of reward CNNs; its reward is the members' mean.
// A Model is for one goroutine at a time.
type Model struct {
	Cfg     ModelConfig
	Members []*CNN
	opt     []*nn.Adam
	rng     *rand.Rand
	Updates int64 // gradient steps taken (per member)
}

// TrainStats summarises one Train call.
type TrainStats struct {
	Epochs   int
	Loss     float64 // mean batch loss of the last epoch (summed over members)
	Accuracy float64 // mean accuracy of the last epoch, averaged over members
}

// NewModel builds an untrained ensemble.
func NewModel(cfg ModelConfig) (*Model, error) {
	if cfg.Ensemble <= 0 || cfg.Classes < 2 || cfg.Classes > 5 || cfg.Batch <= 0 || cfg.LR <= 0 || cfg.K <= 0 {
		return nil, fmt.Errorf("vlmreward: bad model config (ensemble %d, classes %d, batch %d, lr %g, k %g)",
			cfg.Ensemble, cfg.Classes, cfg.Batch, cfg.LR, cfg.K)
	}
	if cfg.Ensemble > MaxEnsemble {
		return nil, fmt.Errorf("vlmreward: ensemble of %d members (at most %d)", cfg.Ensemble, MaxEnsemble)
	}
	if _, err := cnnParams(cfg.CNN); err != nil {
		return nil, err
	}
	m := &Model{Cfg: cfg, rng: rand.New(rand.NewPCG(cfg.Seed, 0x7e3a))}
	for i := 0; i < cfg.Ensemble; i++ {
		c, err := NewCNN(cfg.CNN, m.rng)
		if err != nil {
			return nil, err
		}
		m.Members = append(m.Members, c)
		m.opt = append(m.opt, nn.NewAdam(len(c.Params), cfg.LR))
	}
	return m, nil
}

// InputLen is the uint8 length of one image (3·Size·Size).
func (m *Model) InputLen() int { return m.Members[0].InputLen() }

// Train fits the ensemble to the dataset for up to MaxEpochs epochs,
// stopping early once the mean accuracy of an epoch exceeds StopAcc. Each
// member draws its own stratified batch order; one Adam per member (Adam is
// element-wise, so this equals one Adam over all parameters).
func (m *Model) Train(d *Dataset) (TrainStats, error) {
	var st TrainStats
	N := d.Len()
	if N == 0 {
		return st, errors.New("vlmreward: Train on an empty dataset")
	}
	if d.Classes() != m.Cfg.Classes || d.Dim() != m.InputLen() {
		return st, fmt.Errorf("vlmreward: dataset (%d classes, dim %d) does not match model (%d, %d)",
			d.Classes(), d.Dim(), m.Cfg.Classes, m.InputLen())
	}
	var w []float64
	if m.Cfg.Weighted {
		w = ClassWeights(d.Counts())
	}
	labels := d.Labels()
	dim := d.Dim()
	for ep := 0; ep < max(1, m.Cfg.MaxEpochs); ep++ {
		orders := make([][][]int, len(m.Members))
		for k := range m.Members {
			orders[k] = StratifiedBatches(labels, m.Cfg.Classes, m.Cfg.Batch, m.rng)
		}
		var lossSum float64
		var correct, seen int
		for bi := range orders[0] {
			for k, net := range m.Members {
				idx := orders[k][bi]
				imgs := make([]uint8, 0, len(idx)*dim)
				ys := make([]int, len(idx))
				for j, i := range idx {
					imgs = append(imgs, d.Image(i)...)
					ys[j] = labels[i]
				}
				out := net.Forward(imgs, len(idx))
				r := make([]float64, len(idx))
				for j, v := range out {
					r[j] = float64(v)
				}
				g := make([]float64, len(idx))
				loss, c := RatingLoss(r, ys, m.Cfg.Classes, m.Cfg.K, w, m.Cfg.Loss, g)
				dy := make([]float32, len(idx))
				for j, v := range g {
					dy[j] = float32(v)
				}
				net.Backward(dy)
				if norm := m.opt[k].Step(net.Params, net.Grads); math.IsNaN(norm) || math.IsInf(norm, 0) {
					return st, fmt.Errorf("vlmreward: reward model diverged (gradient norm %v)", norm)
				}
				lossSum += loss
				correct += c
				seen += len(idx)
			}
			m.Updates++
		}
		st.Epochs = ep + 1
		st.Loss = lossSum / float64(len(orders[0]))
		st.Accuracy = float64(correct) / float64(seen)
		if st.Accuracy > m.Cfg.StopAcc {
			break
		}
	}
	return st, nil
}

// predictChunk bounds the batch Predict feeds the CNNs at once.
const predictChunk = 256

// Predict writes the ensemble-mean reward (in (−1,1)) of n images
// (concatenated uint8 CHW) into dst (len n).
func (m *Model) Predict(dst []float32, imgs []uint8, n int) {
	dim := m.InputLen()
	if len(imgs) != n*dim || len(dst) < n {
		panic("vlmreward: Model.Predict: wrong lengths")
	}
	inv := 1 / float32(len(m.Members))
	for s := 0; s < n; s += predictChunk {
		e := min(n, s+predictChunk)
		clear(dst[s:e])
		for _, net := range m.Members {
			out := net.Forward(imgs[s*dim:e*dim], e-s)
			for j, v := range out {
				dst[s+j] += v * inv
			}
		}
	}
}
