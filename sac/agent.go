package sac

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/vlmrb/vlmrb/nn"
	"github.com/vlmrb/vlmrb/replay"
)

// halfLog2Pi is ½·log(2π), the Gaussian log-density constant.
var halfLog2Pi = 0.5 * math.Log(2*math.Pi)

// squashEps keeps log(1 − tanh(u)² + ε) finite where tanh saturates
// (CleanRL's 1e-6).
const squashEps = 1e-6

// Agent is a SAC learner: an actor, twin critics and their targets, three
// optimisers, α and a seeded random generator.
type Agent struct {
	cfg            Config
	obsDim, actDim int
	pcg            *rand.PCG
	rng            *rand.Rand

	actor    *nn.MLP
	q, qt    [2]*nn.MLP
	actorOpt *nn.Adam
	qOpt     [2]*nn.Adam
	alphaOpt *nn.Adam
	logAlpha []float32 // one parameter, log α
	alphaGrd []float32
	tgtEnt   float64
	// logAlphaMin is log Config.AlphaMin (−Inf without a floor)
	logAlphaMin float32

	updates int64   // Update calls completed
	last    Metrics // metrics of the last Update

	ws    workspace
	inf   inference
	work  *worker
	pool  *nn.Pool // GEMM helper for the actor's serial work when Threads = 2; nil otherwise
	fault bool     // set by a critic phase that met a non-finite gradient
}

// workspace is the per-batch scratch of Update, sized by grow.
type workspace struct {
	n                int
	piTape, pi2Tape  *nn.Tape    // actor on obs and on next obs
	qTape, qtTape    [2]*nn.Tape // online and target critics
	xq, xqn, xpi     []float32   // critic inputs n×(O+A): (o,a), (o′,a′), (o,π(o))
	eps, eps2        []float32   // n×A standard normal noise
	a2, logp2        []float32   // next actions n×A, their log-probs n
	pi, logp         []float32   // actor-step actions n×A, log-probs n
	lsT, std         []float32   // tanh of the raw log σ head and σ, n×A
	y                []float32   // critic targets n
	qv               [2][]float32
	dq               [2][]float32 // gradient of a loss w.r.t. each critic's outputs, n
	dA               [2][]float32 // gradient w.r.t. the action inputs, n×A
	dyPi             []float32    // gradient w.r.t. the actor outputs, n×2A
	td, relo         []float32    // per-sample outputs
	reloT            [2][]float32
	qNorm            [2]float64
	actorNow, qStepK bool
	b                *replay.Batch // the batch of the running Update
}

type inference struct {
	tape     *nn.Tape
	obs, eps []float32
	act      []float32
}

// New returns an agent for observations of obsDim values and actions of
// actDim values in [−1, 1]. Zero numeric fields of cfg take DefaultConfig's
// values; an invalid cfg is an error.
func New(cfg Config, obsDim, actDim int) (*Agent, error) {
	c, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if _, _, err := c.netParams(obsDim, actDim); err != nil {
		return nil, err
	}
	a := &Agent{cfg: c, obsDim: obsDim, actDim: actDim}
	a.pcg = rand.NewPCG(c.Seed, 0x5ac0_5ac0_5ac0_5ac0)
	a.rng = rand.New(a.pcg)

	// networks, in CleanRL's construction order: actor, qf1, qf2, targets as copies
	a.actor = nn.NewMLP(sizes(obsDim, c.Hidden, 2*actDim), nn.ReLU, a.rng)
	for k := range a.q {
		a.q[k] = nn.NewMLP(sizes(obsDim+actDim, c.Hidden, 1), nn.ReLU, a.rng)
	}
	for k := range a.qt {
		a.qt[k] = a.q[k].Clone()
	}
	a.actorOpt = nn.NewAdam(len(a.actor.Params), c.PolicyLR)
	for k := range a.qOpt {
		a.qOpt[k] = nn.NewAdam(len(a.q[k].Params), c.QLR)
	}
	a.alphaOpt = nn.NewAdam(1, c.QLR)
	for _, o := range []*nn.Adam{a.actorOpt, a.qOpt[0], a.qOpt[1]} {
		o.MaxGradNorm = c.MaxGradNorm
	}
	a.logAlpha, a.alphaGrd = []float32{0}, []float32{0}
	if !c.Autotune {
		a.logAlpha[0] = float32(math.Log(c.Alpha))
	}
	if c.AlphaMin > 0 {
		a.logAlphaMin = float32(math.Log(c.AlphaMin))
		a.logAlpha[0] = max(a.logAlpha[0], a.logAlphaMin)
	} else {
		a.logAlphaMin = float32(math.Inf(-1))
	}
	a.tgtEnt = c.TargetEntropy
	if a.tgtEnt == 0 {
		a.tgtEnt = -float64(actDim)
	}
	a.startWorker()
	return a, nil
}

// MaxDim bounds obsDim and actDim (checked by New and Unmarshal before
// anything is allocated).
const MaxDim = 1 << 16

// netParams checks the networks' shapes for obsDim and actDim against
// MaxDim and nn's bounds and returns the actor's and one critic's
// parameter counts.
func (c Config) netParams(obsDim, actDim int) (actor, critic int, err error) {
	if obsDim < 1 || actDim < 1 || obsDim > MaxDim || actDim > MaxDim {
		return 0, 0, fmt.Errorf("sac: obsDim %d and actDim %d must be in 1..%d (sac.MaxDim)", obsDim, actDim, MaxDim)
	}
	if actor, err = nn.CheckSizes(sizes(obsDim, c.Hidden, 2*actDim)); err != nil {
		return 0, 0, fmt.Errorf("sac: actor: %w", err)
	}
	if critic, err = nn.CheckSizes(sizes(obsDim+actDim, c.Hidden, 1)); err != nil {
		return 0, 0, fmt.Errorf("sac: critic: %w", err)
	}
	return actor, critic, nil
}

func sizes(in int, hidden []int, out int) []int {
	s := append([]int{in}, hidden...)
	return append(s, out)
}

// Config returns the agent's configuration with defaults filled in.
func (a *Agent) Config() Config {
	c := a.cfg
	c.Hidden = append([]int(nil), c.Hidden...)
	return c
}

// ObsDim and ActDim return the observation and action widths.
func (a *Agent) ObsDim() int { return a.obsDim }

// ActDim returns the action width.
func (a *Agent) ActDim() int { return a.actDim }

// Updates returns the number of Update calls completed.
func (a *Agent) Updates() int64 { return a.updates }

// Alpha returns the current entropy coefficient α.
func (a *Agent) Alpha() float64 { return math.Exp(float64(a.logAlpha[0])) }

// Actor returns the actor network (obs → mean ‖ raw log σ). It is the
// agent's own; use Clone to keep a snapshot.
func (a *Agent) Actor() *nn.MLP { return a.actor }

// Critics returns the online and target critic networks.
func (a *Agent) Critics() (online, target [2]*nn.MLP) { return a.q, a.qt }

// LastMetrics returns the metrics of the last Update.
func (a *Agent) LastMetrics() Metrics { return a.last }

// TDErrors returns |δ| per sample of the last Update: the mean over the two
// critics of |Q_k(s,a) − y|, before the gradient step. The slice is owned by
// the agent and overwritten by the next Update; copy it to keep it.
func (a *Agent) TDErrors() []float32 { return a.ws.td[:a.ws.n] }

// ReLoScores returns ReLo's online-minus-target loss per sample of the last
// Update, ½Σ_k (Q_k(s,a) − y)² − ½Σ_k (Q̄_k(s,a) − y)² with the same target
// y, before the gradient step (Sujit et al. 2023). Samplers use
// ReLU(score) + ε as the priority. It is nil unless Config.ReLo is set;
// owned by the agent and overwritten by the next Update.
func (a *Agent) ReLoScores() []float32 {
	if !a.cfg.ReLo {
		return nil
	}
	return a.ws.relo[:a.ws.n]
}

// RandomAction fills dst (len ActDim) with uniform values in [−1, 1) from
// the agent's generator, for the training loop's first env steps (its learning_starts).
func (a *Agent) RandomAction(dst []float64) {
	for i := range dst[:a.actDim] {
		dst[i] = 2*a.rng.Float64() - 1
	}
}

// Act writes the action for one observation to dst (len ActDim):
// tanh(mean) when deterministic, else a sample of the tanh-squashed
// Gaussian. It does not allocate.
func (a *Agent) Act(dst, obs []float64, deterministic bool) {
	if len(obs) != a.obsDim || len(dst) < a.actDim {
		panic("sac: Act obs/dst length mismatch")
	}
	a.growInference(1)
	for i, v := range obs {
		a.inf.obs[i] = float32(v)
	}
	a.ActBatch(a.inf.act, a.inf.obs[:a.obsDim], 1, deterministic)
	for i := range dst[:a.actDim] {
		dst[i] = float64(a.inf.act[i])
	}
}

// ActNoise writes the stochastic action tanh(mean + σ·eps) for one
// observation to dst (len ActDim), with the caller's standard normal noise
// eps (len ActDim) instead of the agent's generator: Act(dst, obs, false)
// without advancing the training's random stream, so an evaluation of the
// stochastic policy leaves training unchanged. It does not allocate.
func (a *Agent) ActNoise(dst, obs, eps []float64) {
	if len(obs) != a.obsDim || len(dst) < a.actDim || len(eps) < a.actDim {
		panic("sac: ActNoise obs/dst/eps length mismatch")
	}
	a.growInference(1)
	for i, v := range obs {
		a.inf.obs[i] = float32(v)
	}
	out := a.actor.Forward(a.inf.tape, a.inf.obs[:a.obsDim], 1)
	e := a.inf.eps[:a.actDim]
	for i := range e {
		e[i] = float32(eps[i])
	}
	a.squash(out, e, 1, a.inf.act, nil, nil, nil)
	for i := range dst[:a.actDim] {
		dst[i] = float64(a.inf.act[i])
	}
}

// ActBatch writes actions for n observations (obs n×ObsDim) to dst
// (n×ActDim). It does not allocate once it has seen a batch of n.
func (a *Agent) ActBatch(dst, obs []float32, n int, deterministic bool) {
	if len(obs) < n*a.obsDim || len(dst) < n*a.actDim {
		panic("sac: ActBatch obs/dst shorter than n rows")
	}
	a.growInference(n)
	out := a.actor.Forward(a.inf.tape, obs, n)
	A := a.actDim
	if deterministic {
		for i := 0; i < n; i++ {
			for j := 0; j < A; j++ {
				dst[i*A+j] = float32(math.Tanh(float64(out[i*2*A+j])))
			}
		}
		return
	}
	eps := a.inf.eps[:n*A]
	for i := range eps {
		eps[i] = float32(a.rng.NormFloat64())
	}
	a.squash(out, eps, n, dst, nil, nil, nil)
}

func (a *Agent) growInference(n int) {
	if a.inf.tape == nil {
		a.inf.tape = a.actor.NewTape(n)
	}
	if len(a.inf.eps) < n*a.actDim {
		a.inf.eps = make([]float32, n*a.actDim)
	}
	if a.inf.obs == nil {
		a.inf.obs = make([]float32, a.obsDim)
		a.inf.act = make([]float32, a.actDim)
	}
}

// squash maps actor outputs (n rows of mean ‖ raw log σ) and standard
// normal noise eps to actions act = tanh(mean + σ·eps) and, when logp is
// non-nil, their log-densities
//
//	log π(a|s) = Σ_j [−½ε_j² − log σ_j − ½log 2π − log(1 − a_j² + 1e-6)],
//
// with log σ = lo + ½(hi − lo)(tanh(raw) + 1) as in CleanRL. lsT and std,
// when non-nil, keep tanh(raw) and σ for the backward pass.
func (a *Agent) squash(out, eps []float32, n int, act, logp, lsT, std []float32) {
	A := a.actDim
	lo, hi := a.cfg.LogStdMin, a.cfg.LogStdMax
	for i := 0; i < n; i++ {
		row := out[i*2*A : (i+1)*2*A]
		lp := 0.0
		for j := 0; j < A; j++ {
			t := math.Tanh(float64(row[A+j]))
			ls := lo + 0.5*(hi-lo)*(t+1)
			s := math.Exp(ls)
			e := float64(eps[i*A+j])
			act32 := float32(math.Tanh(float64(row[j]) + s*e))
			act[i*A+j] = act32
			if logp != nil {
				av := float64(act32)
				lp += -0.5*e*e - ls - halfLog2Pi - math.Log(1-av*av+squashEps)
			}
			if lsT != nil {
				lsT[i*A+j] = float32(t)
				std[i*A+j] = float32(s)
			}
		}
		if logp != nil {
			logp[i] = float32(lp)
		}
	}
}

// grow sizes the Update workspace for batches of n.
func (a *Agent) grow(n int) {
	w := &a.ws
	if w.piTape != nil && cap(w.y) >= n {
		w.n = n
		return
	}
	O, A := a.obsDim, a.actDim
	f := func(k int) []float32 { return make([]float32, k) }
	w.piTape, w.pi2Tape = a.actor.NewTape(n), a.actor.NewTape(n)
	for k := 0; k < 2; k++ {
		w.qTape[k], w.qtTape[k] = a.q[k].NewTape(n), a.qt[k].NewTape(n)
		w.qv[k], w.dq[k], w.dA[k], w.reloT[k] = f(n), f(n), f(n*A), f(n)
	}
	w.xq, w.xqn, w.xpi = f(n*(O+A)), f(n*(O+A)), f(n*(O+A))
	w.eps, w.eps2 = f(n*A), f(n*A)
	w.a2, w.logp2, w.pi, w.logp = f(n*A), f(n), f(n*A), f(n)
	w.lsT, w.std, w.y, w.dyPi = f(n*A), f(n*A), f(n), f(n*2*A)
	w.td, w.relo = f(n), f(n)
	w.n = n
}

// concat writes rows [x_i ‖ u_i] of widths O and A into dst.
func concat(dst, x, u []float32, n, O, A int) {
	for i := 0; i < n; i++ {
		copy(dst[i*(O+A):], x[i*O:(i+1)*O])
		copy(dst[i*(O+A)+O:], u[i*A:(i+1)*A])
	}
}

// Policy adapts an Agent to control.Policy's Act(obs, dst) order without
// importing package control.
type Policy struct {
	Agent         *Agent
	Deterministic bool // tanh(mean) instead of a sample
}

// Act writes the agent's action for obs to dst.
func (p Policy) Act(obs, dst []float64) { p.Agent.Act(dst, obs, p.Deterministic) }

// ResetCritics re-draws both online critics from the agent's RNG (as New
// does), copies them into the targets and clears their optimiser state,
// keeping the actor and α. PEBBLE does this when the reward changes under
// the agent (after unsupervised pre-training, at the first learned-reward
// fit): values learned for the old reward would mislead the new one.
// Call it between Updates.
func (a *Agent) ResetCritics() {
	for k := range a.q {
		a.q[k].Init(a.rng)
		a.qt[k].CopyFrom(a.q[k])
		a.qOpt[k].Reset()
	}
}
