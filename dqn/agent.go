package dqn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/vlmrb/vlmrb/nn"
	"github.com/vlmrb/vlmrb/replay"
)

// Agent is a Double DQN learner: an online Q network, its target copy,
// an Adam optimiser and a seeded random generator.
type Agent struct {
	cfg      Config
	obsDim   int
	nActions int
	inDim    int   // network input width after one-hot expansion
	catOff   []int // input offset of each observation element
	pcg      *rand.PCG
	rng      *rand.Rand

	q, qt qnet        // online and target networks
	opt   [2]*nn.Adam // for q.first and q.rest

	updates int64
	last    Metrics

	ws  workspace
	inf inference
}

// workspace is Update's per-batch scratch, sized by grow.
type workspace struct {
	n                    int
	x, xn                sparseRows // encoded obs and next obs
	qTape, qnTape, tTape *qtape     // online on s, online on s′, target on s′ (and on s for ReLo)
	y, td, relo          []float32  // targets, |δ|, ReLo scores (n)
	dy                   []float32  // n×nActions gradient of the loss w.r.t. the online outputs
	act                  []int      // n action indices
}

type inference struct {
	tape *qtape
	x    sparseRows
}

// New returns an agent for observations of obsDim values and nActions
// discrete actions. Zero numeric fields of cfg take DefaultConfig's
// values; an invalid cfg is an error.
func New(cfg Config, obsDim, nActions int) (*Agent, error) {
	c, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if _, err := c.netParams(obsDim, nActions); err != nil {
		return nil, err
	}
	a := &Agent{cfg: c, obsDim: obsDim, nActions: nActions, catOff: make([]int, obsDim)}
	for j := range obsDim {
		a.catOff[j] = a.inDim
		if len(c.Categorical) > 0 && c.Categorical[j] > 0 {
			a.inDim += c.Categorical[j]
		} else {
			a.inDim++
		}
	}
	a.pcg = rand.NewPCG(c.Seed, 0xd9e0_d9e0_d9e0_d9e0)
	a.rng = rand.New(a.pcg)
	a.q = newQnet(a.inDim, c.Hidden, nActions, a.rng)
	a.qt = a.q.clone()
	// one global gradient clip over both parts is applied in Update, so
	// the optimisers themselves do not clip
	a.opt = [2]*nn.Adam{nn.NewAdam(len(a.q.first.Params), c.LR), nn.NewAdam(len(a.q.rest.Params), c.LR)}
	return a, nil
}

// MaxDim bounds obsDim and nActions (checked by New and Unmarshal before
// anything is allocated).
const MaxDim = 1 << 16

// inDim is the encoded input width for obsDim observation elements.
func (c Config) inDim(obsDim int) int {
	if len(c.Categorical) == 0 {
		return obsDim
	}
	n := 0
	for _, w := range c.Categorical {
		n += max(w, 1) // 0: a pass-through element
	}
	return n
}

// netParams checks the Q network's shape against MaxDim and nn's bounds
// and returns its parameter count (both parts).
func (c Config) netParams(obsDim, nActions int) (int, error) {
	if obsDim < 1 || obsDim > MaxDim || nActions < 2 || nActions > MaxDim {
		return 0, fmt.Errorf("dqn: obsDim %d must be in 1..%d and nActions %d in 2..%d", obsDim, MaxDim, nActions, MaxDim)
	}
	if len(c.Categorical) != 0 && len(c.Categorical) != obsDim {
		return 0, fmt.Errorf("dqn: Categorical has %d widths for %d observation elements", len(c.Categorical), obsDim)
	}
	first, err := nn.CheckSizes([]int{c.inDim(obsDim), c.Hidden[0]})
	if err != nil {
		return 0, fmt.Errorf("dqn: input layer: %w", err)
	}
	rest, err := nn.CheckSizes(append(append([]int(nil), c.Hidden...), nActions))
	if err != nil {
		return 0, fmt.Errorf("dqn: Q network: %w", err)
	}
	return first + rest, nil
}

// Config returns the agent's configuration with defaults filled in.
func (a *Agent) Config() Config {
	c := a.cfg
	c.Hidden = append([]int(nil), c.Hidden...)
	c.Categorical = append([]int(nil), c.Categorical...)
	return c
}

// ObsDim returns the observation width.
func (a *Agent) ObsDim() int { return a.obsDim }

// NumActions returns the number of discrete actions.
func (a *Agent) NumActions() int { return a.nActions }

// InputDim returns the network input width after one-hot expansion.
func (a *Agent) InputDim() int { return a.inDim }

// Updates returns the number of Update calls completed.
func (a *Agent) Updates() int64 { return a.updates }

// LastMetrics returns the metrics of the last Update.
func (a *Agent) LastMetrics() Metrics { return a.last }

// TDErrors returns |δ_i| = |Q(s,a) − y| per sample of the last Update,
// before the gradient step. Owned by the agent; overwritten by the next
// Update.
func (a *Agent) TDErrors() []float32 { return a.ws.td[:a.ws.n] }

// ReLoScores returns ReLo's per-sample online-minus-target loss of the last
// Update, Huber(Q_θ(s,a) − y) − Huber(Q_θ̄(s,a) − y) with the same y
// (Sujit et al. 2023, with DQN's loss); samplers use ReLU(score) + ε. Nil
// unless Config.ReLo; owned by the agent.
func (a *Agent) ReLoScores() []float32 {
	if !a.cfg.ReLo {
		return nil
	}
	return a.ws.relo[:a.ws.n]
}

// encode writes the network inputs of n observations (n×obsDim) as
// sparse rows: observation element j of sample i selects input row
// catOff[j] + code (value 1) when categorical, else row catOff[j] with the
// element's value.
func (a *Agent) encode(dst *sparseRows, obs []float32, n int) {
	cat := a.cfg.Categorical
	O := a.obsDim
	dst.grow(n, O)
	for i := range n {
		row := obs[i*O : (i+1)*O]
		for j, v := range row {
			k := i*O + j
			if len(cat) > 0 && cat[j] > 0 {
				c := min(max(int(math.Round(float64(v))), 0), cat[j]-1)
				dst.row[k], dst.val[k] = int32(a.catOff[j]+c), 1
			} else {
				dst.row[k], dst.val[k] = int32(a.catOff[j]), v
			}
		}
	}
}

// QValues writes Q_θ(obs, ·) (nActions values) into dst.
func (a *Agent) QValues(dst []float64, obs []float64) {
	if len(dst) < a.nActions {
		panic("dqn: QValues dst shorter than nActions")
	}
	for k, v := range a.forwardOne(obs) {
		dst[k] = float64(v)
	}
}

// Greedy returns argmax_a Q_θ(obs, a) (the lowest index among ties).
func (a *Agent) Greedy(obs []float64) int { return argmax(a.forwardOne(obs)) }

// forwardOne returns Q_θ(obs, ·), owned by the inference tape.
func (a *Agent) forwardOne(obs []float64) []float32 {
	if len(obs) != a.obsDim {
		panic("dqn: observation length mismatch")
	}
	if a.inf.tape == nil {
		a.inf.tape = a.q.newTape(1)
	}
	x := &a.inf.x
	x.grow(1, a.obsDim)
	cat := a.cfg.Categorical
	for j, v := range obs {
		if len(cat) > 0 && cat[j] > 0 {
			c := min(max(int(math.Round(v)), 0), cat[j]-1)
			x.row[j], x.val[j] = int32(a.catOff[j]+c), 1
		} else {
			x.row[j], x.val[j] = int32(a.catOff[j]), float32(v)
		}
	}
	return a.q.forward(a.inf.tape, x, 1)
}

// Act writes the ε-greedy action index for obs into dst[0]: uniform random
// with probability epsilon (from the agent's generator), else Greedy. It
// does not allocate.
func (a *Agent) Act(dst, obs []float64, epsilon float64) {
	if len(dst) < 1 {
		panic("dqn: Act dst is empty")
	}
	if epsilon > 0 && a.rng.Float64() < epsilon {
		dst[0] = float64(a.rng.IntN(a.nActions))
		return
	}
	dst[0] = float64(a.Greedy(obs))
}

// RandomAction returns a uniformly drawn action index from the agent's
// generator (for the steps before LearningStarts).
func (a *Agent) RandomAction() int { return a.rng.IntN(a.nActions) }

// Policy adapts an Agent to control.Policy's Act(obs, dst) order without
// importing package control: ε-greedy with Epsilon (0: greedy).
type Policy struct {
	Agent   *Agent
	Epsilon float64
}

// Act writes the agent's action index for obs into dst[0].
func (p Policy) Act(obs, dst []float64) { p.Agent.Act(dst, obs, p.Epsilon) }

func argmax(q []float32) int {
	best := 0
	for k := 1; k < len(q); k++ {
		if q[k] > q[best] {
			best = k
		}
	}
	return best
}

// grow sizes the Update workspace for batches of n.
func (a *Agent) grow(n int) {
	w := &a.ws
	if w.qTape != nil && cap(w.y) >= n {
		w.n = n
		return
	}
	f := func(k int) []float32 { return make([]float32, k) }
	w.qTape, w.qnTape, w.tTape = a.q.newTape(n), a.q.newTape(n), a.qt.newTape(n)
	w.y, w.td, w.relo = f(n), f(n), f(n)
	w.dy = f(n * a.nActions)
	w.act = make([]int, n)
	w.n = n
}

// checkBatch panics when b does not fit the agent (programmer misuse).
func (a *Agent) checkBatch(b *replay.Batch) int {
	n := b.Len()
	if b.ObsDim != a.obsDim || b.ActDim != 1 || n == 0 || len(b.Obs) < n*a.obsDim || len(b.NextObs) < n*a.obsDim || len(b.Actions) < n || len(b.Terminated) < n {
		panic(fmt.Sprintf("dqn: batch of %d with obs %d act %d does not match agent obs %d act 1", n, b.ObsDim, b.ActDim, a.obsDim))
	}
	if len(b.Weights) != 0 && len(b.Weights) < n {
		panic("dqn: batch Weights shorter than the batch")
	}
	return n
}
