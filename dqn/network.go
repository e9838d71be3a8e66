package dqn

import "github.com/vlmrb/vlmrb/nn"

// QNetwork returns the online Q network as its two parts, for exporting
// it: first is the input layer (InputDim → Hidden[0]; ReLU follows it)
// over the one-hot encoding that Config.Categorical describes, rest the
// remaining layers (Hidden[0] → … → NumActions, ReLU between hidden
// layers, linear output). Q(s, ·) = rest(ReLU(first(x(s)))). The networks
// are the agent's own; do not modify them.
func (a *Agent) QNetwork() (first, rest *nn.MLP) { return a.q.first, a.q.rest }

// InputOffsets returns, per observation element, the first network input
// it feeds: element j one-hots into inputs [off[j], off[j]+Categorical[j])
// or, when it passes through, is input off[j].
func (a *Agent) InputOffsets() []int { return append([]int(nil), a.catOff...) }
