package sac

import (
	"fmt"
	"math"
	"sync"

	"github.com/vlmrb/vlmrb/nn"

	"github.com/vlmrb/vlmrb/replay"
)

// Metrics are the scalars of one Update, named as CleanRL logs them.
type Metrics struct {
	QF1Loss, QF2Loss   float64 // weighted mean squared TD error of each critic
	QF1Value, QF2Value float64 // mean Q_k(s,a) over the batch
	ActorLoss          float64 // mean α·log π − min_k Q_k(s, π(s)) (last actor step)
	AlphaLoss          float64 // mean −α·(log π + target entropy) (last α step)
	Alpha              float64 // α after this Update
	Entropy            float64 // −mean log π(a|s) of the last actor step
	ActorUpdated       bool    // whether this Update ran actor steps (else actor metrics are from an earlier one)
}

// Map returns the metrics under CleanRL's keys (sac_continuous_action.py):
// losses/qf1_loss, losses/qf2_loss, losses/qf_loss, losses/qf1_values,
// losses/qf2_values, losses/actor_loss, losses/alpha_loss, losses/alpha (the
// α value, as in CleanRL), and charts/alpha (α again) and charts/entropy.
// It allocates; Range does not.
func (m Metrics) Map() map[string]float64 {
	out := make(map[string]float64, 10)
	m.Range(func(k string, v float64) { out[k] = v })
	return out
}

// Range calls f for every metric in a fixed order.
func (m Metrics) Range(f func(key string, v float64)) {
	f("losses/qf1_loss", m.QF1Loss)
	f("losses/qf2_loss", m.QF2Loss)
	f("losses/qf_loss", (m.QF1Loss+m.QF2Loss)/2)
	f("losses/qf1_values", m.QF1Value)
	f("losses/qf2_values", m.QF2Value)
	f("losses/actor_loss", m.ActorLoss)
	f("losses/alpha_loss", m.AlphaLoss)
	f("losses/alpha", m.Alpha) // the α value, as CleanRL logs it
	f("charts/alpha", m.Alpha)
	f("charts/entropy", m.Entropy)
}

// DivergedError reports a NaN or infinite loss or gradient. Update returns
// it before changing any weight of the network concerned; the agent should
// not be trained further (restore a checkpoint).
type DivergedError struct {
	Update int64   // index of the Update that met it (0-based)
	What   string  // "losses/qf1_loss", "losses/actor_loss", "grad/actor", ...
	Value  float64 // the offending value
}

func (e *DivergedError) Error() string {
	return fmt.Sprintf("sac: training diverged at update %d: %s = %v (lower the learning rates, set MaxGradNorm, or check rewards and observations for NaN/Inf)", e.Update, e.What, e.Value)
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// phases that run once per critic k (0 on the caller, 1 on the worker when
// Config.Threads is 2). Each touches only critic k's networks and buffers.
const (
	phaseActorFwd   = iota // k=0: actor on next obs (target); k=1: actor on obs (first actor step)
	phaseQFwd              // target critic on (o′,a′), online critic on (o,a)
	phaseCriticStep        // backward, Adam, ReLo target pass, Polyak
	phasePiQFwd            // online critic on (o, π(o))
	phasePiQBack           // gradient w.r.t. the action input only
)

func (a *Agent) phase(p, k int) {
	w := &a.ws
	n, A := w.n, a.actDim
	switch p {
	case phaseActorFwd:
		if k == 0 {
			out := a.actor.Forward(w.pi2Tape, w.b.NextObs, n)
			a.squash(out, w.eps2, n, w.a2, w.logp2, nil, nil)
			return
		}
		if w.actorNow {
			out := a.actor.Forward(w.piTape, w.b.Obs, n)
			a.squash(out, w.eps, n, w.pi, w.logp, w.lsT, w.std)
		}
	case phaseQFwd:
		copy(w.qv[k], a.q[k].Forward(w.qTape[k], w.xq, n))
		a.qt[k].Forward(w.qtTape[k], w.xqn, n)
	case phaseCriticStep:
		a.q[k].Backward(w.qTape[k], w.dq[k], nil, 0, true)
		if a.cfg.ReLo {
			// target loss per sample with the same y, before Polyak
			qt := a.qt[k].Forward(w.qtTape[k], w.xq, n)
			for i := 0; i < n; i++ {
				d := qt[i] - w.y[i]
				w.reloT[k][i] = d * d
			}
		}
		w.qNorm[k] = a.qOpt[k].Step(a.q[k].Params, a.q[k].Grads)
		if !finite(w.qNorm[k]) {
			return
		}
		if w.qStepK {
			a.qt[k].Polyak(a.q[k], float32(a.cfg.Tau))
		}
	case phasePiQFwd:
		a.q[k].Forward(w.qTape[k], w.xpi, n)
	case phasePiQBack:
		a.q[k].Backward(w.qTape[k], w.dq[k], w.dA[k][:n*A], a.obsDim, false)
	}
}

// worker runs phase(p, 1) on its own goroutine while the caller runs
// phase(p, 0). Channels of ints keep the hand-off allocation-free.
type worker struct {
	jobs chan int
	done chan struct{}
	once sync.Once
}

func (a *Agent) startWorker() {
	if a.cfg.Threads < 2 {
		return
	}
	w := &worker{jobs: make(chan int), done: make(chan struct{})}
	a.work = w
	a.pool = nn.NewPool()
	go func() {
		for p := range w.jobs {
			a.phase(p, 1)
			w.done <- struct{}{}
		}
	}()
}

// Close stops the helper goroutine of a Threads = 2 agent. The agent must
// not be used afterwards. It is a no-op for Threads = 1.
func (a *Agent) Close() {
	if a.work != nil {
		a.work.once.Do(func() {
			close(a.work.jobs)
			a.pool.Close()
		})
	}
}

// both runs phase p for critic 0 and critic 1, in parallel when a worker
// goroutine exists. The order of floating-point work inside each critic is
// the same either way, so results do not depend on Threads.
func (a *Agent) both(p int) {
	if a.work == nil {
		a.phase(p, 0)
		a.phase(p, 1)
		return
	}
	a.work.jobs <- p
	a.phase(p, 0)
	<-a.work.done
}

// Update runs one SAC gradient step on b, in CleanRL's order:
// target → critic loss and step → (every PolicyFrequency updates,
// PolicyFrequency times) actor step and α step → Polyak. The batch must
// match the agent's widths; b.Weights (importance weights) scale each
// sample's critic loss, and nil Weights mean 1.
//
// The Polyak update is done right after the critic step: the actor step
// never changes the critics, so the result is the same as CleanRL's order.
// The α step uses the log-probs of the actor step that precedes it
// (Stable-Baselines3 does the same; CleanRL draws a fresh sample).
func (a *Agent) Update(b *replay.Batch) (Metrics, error) {
	n := b.Len()
	O, A := a.obsDim, a.actDim
	if b.ObsDim != O || b.ActDim != A || n == 0 || len(b.Obs) < n*O || len(b.NextObs) < n*O || len(b.Actions) < n*A || len(b.Terminated) < n {
		panic(fmt.Sprintf("sac: batch of %d with obs %d act %d does not match agent obs %d act %d", n, b.ObsDim, b.ActDim, O, A))
	}
	weights := b.Weights
	if len(weights) == 0 {
		weights = nil
	} else if len(weights) < n {
		panic("sac: batch Weights shorter than the batch")
	}
	a.grow(n)
	w := &a.ws
	w.b = b
	defer func() { w.b = nil }()
	m := a.last
	m.ActorUpdated = false
	alpha := float32(math.Exp(float64(a.logAlpha[0])))
	w.actorNow = a.updates%int64(a.cfg.PolicyFrequency) == 0
	w.qStepK = a.updates%int64(a.cfg.TargetNetworkFrequency) == 0

	// noise for the target actions and for the first actor step, drawn in a fixed order
	for i := range w.eps2[:n*A] {
		w.eps2[i] = float32(a.rng.NormFloat64())
	}
	if w.actorNow {
		for i := range w.eps[:n*A] {
			w.eps[i] = float32(a.rng.NormFloat64())
		}
	}

	a.criticLoss(&m, weights, alpha)
	if !finite(m.QF1Loss) {
		return m, &DivergedError{a.updates, "losses/qf1_loss", m.QF1Loss}
	}
	if !finite(m.QF2Loss) {
		return m, &DivergedError{a.updates, "losses/qf2_loss", m.QF2Loss}
	}
	a.both(phaseCriticStep)
	for k, g := range w.qNorm {
		if !finite(g) {
			return m, &DivergedError{a.updates, fmt.Sprintf("grad/qf%d", k+1), g}
		}
	}
	if a.cfg.ReLo {
		for i := 0; i < n; i++ {
			w.relo[i] -= 0.5 * (w.reloT[0][i] + w.reloT[1][i])
		}
	}

	// actor and α: PolicyFrequency steps every PolicyFrequency updates
	if w.actorNow {
		for it := 0; it < a.cfg.PolicyFrequency; it++ {
			if it > 0 {
				for i := range w.eps[:n*A] {
					w.eps[i] = float32(a.rng.NormFloat64())
				}
				out := a.actor.Forward(w.piTape, b.Obs, n)
				a.squash(out, w.eps, n, w.pi, w.logp, w.lsT, w.std)
			}
			if err := a.actorStep(&m, alpha); err != nil {
				return m, err
			}
			alpha = float32(math.Exp(float64(a.logAlpha[0])))
		}
		m.ActorUpdated = true
	}
	m.Alpha = float64(alpha)
	a.updates++
	a.last = m
	return m, nil
}

// actorStep runs one actor step (loss mean α·log π − min_k Q_k(s, π(s)),
// critics frozen: only their input gradients are computed) and, with
// Autotune, one α step, using the actions already sampled into w.pi.
func (a *Agent) actorStep(m *Metrics, alpha float32) error {
	lp, err := a.actorGrad(m, alpha)
	if err != nil {
		return err
	}
	if g := a.actorOpt.Step(a.actor.Params, a.actor.Grads); !finite(g) {
		return &DivergedError{a.updates, "grad/actor", g}
	}

	// α: loss −α·(log π + H̄), gradient w.r.t. log α is the same expression
	if a.cfg.Autotune {
		g := -float64(alpha) * (lp + a.tgtEnt)
		m.AlphaLoss = g
		a.alphaGrd[0] = float32(g)
		if !finite(g) {
			return &DivergedError{a.updates, "losses/alpha_loss", g}
		}
		a.alphaOpt.Step(a.logAlpha, a.alphaGrd)
		a.logAlpha[0] = max(a.logAlpha[0], a.logAlphaMin)
	}
	return nil
}

// actorGrad computes the actor loss and leaves its gradient in
// a.actor.Grads; it returns the mean log-prob of the sampled actions.
func (a *Agent) actorGrad(m *Metrics, alpha float32) (float64, error) {
	w := &a.ws
	n, O, A := w.n, a.obsDim, a.actDim
	concat(w.xpi, w.b.Obs, w.pi, n, O, A)
	a.both(phasePiQFwd)
	q1, q2 := w.qTape[0].Out(), w.qTape[1].Out()
	invN := 1 / float32(n)
	var loss, lp float64
	for i := 0; i < n; i++ {
		qmin := q1[i]
		w.dq[0][i], w.dq[1][i] = -invN, 0
		if q2[i] < q1[i] {
			qmin = q2[i]
			w.dq[0][i], w.dq[1][i] = 0, -invN
		}
		loss += float64(alpha*w.logp[i] - qmin)
		lp += float64(w.logp[i])
	}
	m.ActorLoss = loss / float64(n)
	m.Entropy = -lp / float64(n)
	if !finite(m.ActorLoss) {
		return 0, &DivergedError{a.updates, "losses/actor_loss", m.ActorLoss}
	}
	a.both(phasePiQBack)

	// back through the squashing: a = tanh(μ + σε), log σ = lo + ½(hi−lo)(tanh(raw)+1)
	half := float32(0.5 * (a.cfg.LogStdMax - a.cfg.LogStdMin))
	aN := alpha * invN
	for i := 0; i < n; i++ {
		for j := 0; j < A; j++ {
			ij := i*A + j
			av := w.pi[ij]
			ga := w.dA[0][ij] + w.dA[1][ij] + aN*2*av/(1-av*av+squashEps)
			gu := ga * (1 - av*av)
			gls := gu*w.eps[ij]*w.std[ij] - aN
			t := w.lsT[ij]
			w.dyPi[i*2*A+j] = gu
			w.dyPi[i*2*A+A+j] = gls * half * (1 - t*t)
		}
	}
	a.actor.BackwardWith(a.pool, w.piTape, w.dyPi, nil, 0, true)
	return lp / float64(n), nil
}

// criticLoss computes the targets y, both critics' weighted losses, the
// gradients dq of those losses w.r.t. the critic outputs, |TD| and the
// online half of ReLo, from the noise already drawn into w.eps2 (and w.eps
// for the precomputed first actor pass).
func (a *Agent) criticLoss(m *Metrics, weights []float32, alpha float32) {
	w := &a.ws
	b := w.b
	n, O, A := w.n, a.obsDim, a.actDim
	// target: a′ ~ π(·|s′); y = r + γ(1 − terminated)(min_k Q̄_k(s′,a′) − α log π(a′|s′)),
	// without the α log π term under NoEntropyBackup
	a.both(phaseActorFwd)
	concat(w.xqn, b.NextObs, w.a2, n, O, A)
	concat(w.xq, b.Obs, b.Actions, n, O, A)
	a.both(phaseQFwd)
	qt1, qt2 := w.qtTape[0].Out(), w.qtTape[1].Out()
	gamma := float32(a.cfg.Gamma)
	backup := alpha
	if a.cfg.NoEntropyBackup {
		backup = 0
	}
	for i := 0; i < n; i++ {
		next := min(qt1[i], qt2[i]) - backup*w.logp2[i]
		w.y[i] = b.Rewards[i] + (1-b.Terminated[i])*gamma*next
	}

	// critic loss: weighted mean of (Q_k(s,a) − y)² for each critic
	var l1, l2, v1, v2 float64
	inv := 2 / float32(n)
	for i := 0; i < n; i++ {
		wi := float32(1)
		if weights != nil {
			wi = weights[i]
		}
		d1, d2 := w.qv[0][i]-w.y[i], w.qv[1][i]-w.y[i]
		l1 += float64(wi * d1 * d1)
		l2 += float64(wi * d2 * d2)
		v1 += float64(w.qv[0][i])
		v2 += float64(w.qv[1][i])
		w.dq[0][i], w.dq[1][i] = inv*wi*d1, inv*wi*d2
		w.td[i] = 0.5 * (abs32(d1) + abs32(d2))
		w.relo[i] = 0.5 * (d1*d1 + d2*d2)
	}
	m.QF1Loss, m.QF2Loss = l1/float64(n), l2/float64(n)
	m.QF1Value, m.QF2Value = v1/float64(n), v2/float64(n)
}

func abs32(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}
