package dqn

import (
	"fmt"
	"math"

	"github.com/vlmrb/vlmrb/replay"
)

// Metrics are the scalars of one Update, named as CleanRL's dqn.py logs
// them.
type Metrics struct {
	TDLoss   float64 // weighted mean Huber loss of δ
	QValues  float64 // mean Q_θ(s, a) of the taken actions
	Target   float64 // mean target y
	GradNorm float64 // gradient L2 norm before clipping
}

// Range calls f for every metric in a fixed order: losses/td_loss,
// losses/q_values, losses/target and losses/grad_norm.
func (m Metrics) Range(f func(key string, v float64)) {
	f("losses/td_loss", m.TDLoss)
	f("losses/q_values", m.QValues)
	f("losses/target", m.Target)
	f("losses/grad_norm", m.GradNorm)
}

// Map returns the metrics by key. It allocates; Range does not.
func (m Metrics) Map() map[string]float64 {
	out := make(map[string]float64, 4)
	m.Range(func(k string, v float64) { out[k] = v })
	return out
}

// DivergedError reports a NaN or infinite loss or gradient. Update returns
// it before changing any weight; restore a checkpoint.
type DivergedError struct {
	Update int64   // index of the Update that met it (0-based)
	What   string  // "losses/td_loss" or "grad/q"
	Value  float64 // the offending value
}

func (e *DivergedError) Error() string {
	return fmt.Sprintf("dqn: training diverged at update %d: %s = %v (lower the learning rate, keep MaxGradNorm on, or check rewards and observations for NaN/Inf)", e.Update, e.What, e.Value)
}

// huber is Huber_κ(d) = ½d² for |d| ≤ κ, else κ(|d| − ½κ), and its
// derivative clip(d, −κ, κ).
func huber(d, kappa float64) (loss, grad float64) {
	if ad := math.Abs(d); ad > kappa {
		return kappa * (ad - 0.5*kappa), math.Copysign(kappa, d)
	}
	return 0.5 * d * d, d
}

// Update runs one Double DQN gradient step on b (see the package comment
// for the equations). b.Actions holds one action index per transition;
// b.Weights (importance weights) scale each sample's loss, nil meaning 1.
// It panics when b does not fit the agent.
func (a *Agent) Update(b *replay.Batch) (Metrics, error) {
	n := a.checkBatch(b)
	a.grow(n)
	w := &a.ws
	A := a.nActions
	kappa := a.cfg.HuberDelta
	gammaN := math.Pow(a.cfg.Gamma, float64(a.cfg.NStep))
	var weights []float32
	if len(b.Weights) > 0 {
		weights = b.Weights[:n]
	}
	for i := range n {
		k := int(math.Round(float64(b.Actions[i])))
		if k < 0 || k >= A {
			panic(fmt.Sprintf("dqn: batch action %g is not an index in [0, %d)", b.Actions[i], A))
		}
		w.act[i] = k
	}

	// target: the online net picks a* on s′, the target net evaluates it
	a.encode(&w.xn, b.NextObs, n)
	qt := a.qt.forward(w.tTape, &w.xn, n)
	var qn []float32
	if a.cfg.Double {
		qn = a.q.forward(w.qnTape, &w.xn, n)
	}
	var m Metrics
	for i := range n {
		var next float32
		if a.cfg.Double {
			next = qt[i*A+argmax(qn[i*A:(i+1)*A])]
		} else {
			row := qt[i*A : (i+1)*A]
			next = row[argmax(row)]
		}
		y := float64(b.Rewards[i]) + gammaN*(1-float64(b.Terminated[i]))*float64(next)
		w.y[i] = float32(y)
		m.Target += y
	}

	// loss: weighted mean Huber of δ = Q(s,a) − y; dL/dQ(s,a) = w·clip(δ)/n
	a.encode(&w.x, b.Obs, n)
	q := a.q.forward(w.qTape, &w.x, n)
	clear(w.dy[:n*A])
	for i := range n {
		qa := float64(q[i*A+w.act[i]])
		d := qa - float64(w.y[i])
		l, g := huber(d, kappa)
		wi := 1.0
		if weights != nil {
			wi = float64(weights[i])
		}
		m.TDLoss += wi * l
		m.QValues += qa
		w.dy[i*A+w.act[i]] = float32(wi * g / float64(n))
		w.td[i] = float32(math.Abs(d))
		w.relo[i] = float32(l)
	}
	m.TDLoss /= float64(n)
	m.QValues /= float64(n)
	m.Target /= float64(n)
	if math.IsNaN(m.TDLoss) || math.IsInf(m.TDLoss, 0) {
		return m, &DivergedError{a.updates, "losses/td_loss", m.TDLoss}
	}

	// ReLo: the same loss of the target network on (s, a), before the step
	if a.cfg.ReLo {
		qs := a.qt.forward(w.tTape, &w.x, n)
		for i := range n {
			lt, _ := huber(float64(qs[i*A+w.act[i]])-float64(w.y[i]), kappa)
			w.relo[i] -= float32(lt)
		}
	}

	// gradient step, the global norm clipped to MaxGradNorm over both parts
	a.q.backward(w.qTape, w.dy)
	m.GradNorm = a.q.gradNorm()
	if math.IsNaN(m.GradNorm) || math.IsInf(m.GradNorm, 0) {
		return m, &DivergedError{a.updates, "grad/q", m.GradNorm}
	}
	if c := a.cfg.MaxGradNorm; c > 0 && m.GradNorm > c {
		a.q.scaleGrads(float32(c / (m.GradNorm + 1e-6))) // torch.nn.utils.clip_grad_norm_
	}
	a.opt[0].Step(a.q.first.Params, a.q.first.Grads)
	a.opt[1].Step(a.q.rest.Params, a.q.rest.Grads)

	// target network: every TargetFrequency updates, θ̄ ← τθ + (1−τ)θ̄
	a.updates++
	if a.updates%int64(a.cfg.TargetFrequency) == 0 {
		if a.cfg.Tau >= 1 {
			a.qt.copyFrom(a.q)
		} else {
			a.qt.polyak(a.q, float32(a.cfg.Tau))
		}
	}
	a.last = m
	return m, nil
}
