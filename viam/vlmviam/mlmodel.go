package vlmviam

import (
	"context"
	"fmt"
	"sync"

	"go.viam.com/rdk/logging"
	"go.viam.com/rdk/ml"
	"go.viam.com/rdk/resource"
	"go.viam.com/rdk/services/mlmodel"
	"gorgonia.org/tensor"

	"github.com/vlmrb/vlmrb/tasks"
)

// MLModelModel is the policy-as-mlmodel model name.
var MLModelModel = resource.NewModel(Namespace, ModuleName, "policy")

// Tensor names of the mlmodel service.
const (
	TensorObservation = "observation" // float32 or float64, [39] or [N, 39]
	TensorAction      = "action"      // float32, [N, 4] in [−1, 1]
)

// MLModelConfig configures vlmrb:vlmrb:policy.
type MLModelConfig struct {
	// Checkpoint is a vlmrb run directory.
	Checkpoint string         `json:"checkpoint"`
	Attributes map[string]any `json:"-"`
}

// Validate checks the attributes.
func (c *MLModelConfig) Validate(path string) ([]string, []string, error) {
	if err := unknownKeys(c.Attributes, "checkpoint"); err != nil {
		return nil, nil, err
	}
	if c.Checkpoint == "" {
		return nil, nil, fmt.Errorf(`"checkpoint" is required: a vlmrb run directory (robot-train train --out DIR)`)
	}
	return nil, nil, nil
}

// MLModel serves a checkpoint's deterministic policy as a Viam mlmodel.
type MLModel struct {
	resource.Named
	mu  sync.Mutex
	pol *Policy
	dir string
}

// NewMLModel loads the configured checkpoint.
func NewMLModel(ctx context.Context, deps resource.Dependencies, conf resource.Config, logger logging.Logger) (mlmodel.Service, error) {
	m := &MLModel{Named: conf.ResourceName().AsNamed()}
	if err := m.Reconfigure(ctx, deps, conf); err != nil {
		return nil, err
	}
	return m, nil
}

// Reconfigure loads a new checkpoint when it changed.
func (m *MLModel) Reconfigure(_ context.Context, _ resource.Dependencies, conf resource.Config) error {
	c, err := resource.NativeConfig[*MLModelConfig](conf)
	if err != nil {
		return err
	}
	m.mu.Lock()
	same := m.pol != nil && m.dir == c.Checkpoint
	m.mu.Unlock()
	if same {
		return nil
	}
	pol, err := LoadPolicy(c.Checkpoint)
	if err != nil {
		return err
	}
	m.mu.Lock()
	old := m.pol
	m.pol, m.dir = pol, c.Checkpoint
	m.mu.Unlock()
	if old != nil {
		old.Close()
	}
	return nil
}

// Infer maps "observation" to "action".
func (m *MLModel) Infer(ctx context.Context, in ml.Tensors) (ml.Tensors, error) {
	t, ok := in[TensorObservation]
	if !ok || t == nil {
		return nil, fmt.Errorf("vlmrb mlmodel: input tensor %q is missing", TensorObservation)
	}
	shape := t.Shape()
	n := 1
	switch {
	case len(shape) == 1 && shape[0] == tasks.ObsDim:
	case len(shape) == 2 && shape[1] == tasks.ObsDim && shape[0] >= 1:
		n = shape[0]
	default:
		return nil, fmt.Errorf("vlmrb mlmodel: %q has shape %v; want [%d] or [N, %d]", TensorObservation, shape, tasks.ObsDim, tasks.ObsDim)
	}
	obs := make([]float64, n*tasks.ObsDim)
	switch d := t.Data().(type) {
	case []float32:
		for i, v := range d {
			obs[i] = float64(v)
		}
	case []float64:
		copy(obs, d)
	default:
		return nil, fmt.Errorf("vlmrb mlmodel: %q has type %v; send float32 or float64", TensorObservation, t.Dtype())
	}
	for _, v := range obs {
		if !finite(v) {
			return nil, fmt.Errorf("vlmrb mlmodel: %q contains NaN or Inf", TensorObservation)
		}
	}
	m.mu.Lock()
	pol := m.pol
	m.mu.Unlock()
	if pol == nil {
		return nil, ErrPolicyClosed
	}
	out := make([]float32, n*tasks.ActDim)
	a := make([]float64, tasks.ActDim)
	for i := range n {
		if err := pol.Act(obs[i*tasks.ObsDim:(i+1)*tasks.ObsDim], a); err != nil {
			return nil, err
		}
		for j, v := range a {
			out[i*tasks.ActDim+j] = float32(v)
		}
	}
	return ml.Tensors{TensorAction: tensor.New(tensor.WithShape(n, tasks.ActDim), tensor.WithBacking(out))}, nil
}

// Metadata names the tensors, their shapes and ranges.
func (m *MLModel) Metadata(context.Context) (mlmodel.MLMetadata, error) {
	m.mu.Lock()
	pol := m.pol
	m.mu.Unlock()
	if pol == nil {
		return mlmodel.MLMetadata{}, ErrPolicyClosed
	}
	return mlmodel.MLMetadata{
		ModelName:        "vlmrb-sac-" + pol.Task(),
		ModelType:        "robot_policy",
		ModelDescription: fmt.Sprintf("vlmrb SAC policy for task %q (checkpoint at env step %d): observation → end-effector delta action", pol.Task(), pol.Step()),
		Inputs: []mlmodel.TensorInfo{{Name: TensorObservation, DataType: "float32", Shape: []int{-1, tasks.ObsDim},
			Description: "the tasks' 39-D observation: hand xyz (m), gripper openness, two object poses (xyz, quaternion xyzw), the previous frame of those 18, goal xyz"}},
		Outputs: []mlmodel.TensorInfo{{Name: TensorAction, DataType: "float32", Shape: []int{-1, tasks.ActDim},
			Description: "end-effector delta (x, y, z: ×10 mm per step) and gripper (+1 closes), each in [−1, 1]",
			Extra:       map[string]any{"min": -1.0, "max": 1.0}}},
	}, nil
}

// DoCommand answers {"checkpoint": true}.
func (m *MLModel) DoCommand(_ context.Context, cmd map[string]any) (map[string]any, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := cmd["checkpoint"]; ok && m.pol != nil {
		return map[string]any{"checkpoint": m.pol.Dir, "step": float64(m.pol.Step()), "task": m.pol.Task()}, nil
	}
	return nil, fmt.Errorf("vlmrb mlmodel: unknown command; use {\"checkpoint\": true}")
}

// Close releases the policy.
func (m *MLModel) Close(context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.pol != nil {
		m.pol.Close()
		m.pol = nil
	}
	return nil
}
