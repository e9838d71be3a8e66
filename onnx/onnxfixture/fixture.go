package onnxfixture

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/vlmrb/vlmrb/dqn"
	"github.com/vlmrb/vlmrb/internal/atomicfile"
	"github.com/vlmrb/vlmrb/onnx"
	"github.com/vlmrb/vlmrb/onnx/policy"
	"github.com/vlmrb/vlmrb/sac"
	"github.com/vlmrb/vlmrb/tasks"
	"github.com/vlmrb/vlmrb/tasks/grid"
)

// N is the number of random observations per case.
const N = 1000

// Case is one exported model with observations and vlmrb's outputs.
type Case struct {
	Name   string      `json:"name"`
	Model  *onnx.Model `json:"-"`
	Input  string      `json:"input"`
	Output string      `json:"output"`
	N      int         `json:"n"`
	ObsDim int         `json:"obs_dim"`
	OutDim int         `json:"out_dim"`
	Obs    []float32   `json:"-"` // N×ObsDim
	Want   []float32   `json:"-"` // N×OutDim, vlmrb's forward pass
}

// Cases returns the SAC and DQN cases, the same on every call.
func Cases() ([]Case, error) {
	s, err := sacCase()
	if err != nil {
		return nil, err
	}
	d, err := dqnCase()
	if err != nil {
		return nil, err
	}
	return []Case{s, d}, nil
}

func sacCase() (Case, error) {
	env, err := tasks.Make("reach", tasks.Options{})
	if err != nil {
		return Case{}, err
	}
	spec := env.Spec()
	_ = env.Close()
	cfg := sac.DefaultConfig()
	cfg.Seed = 1
	a, err := sac.New(cfg, spec.ObsDim, spec.ActDim) // 256×256, as trained
	if err != nil {
		return Case{}, err
	}
	defer a.Close()
	m, err := policy.SAC(a, spec, policy.Info{Task: "reach", Run: "fixture"})
	if err != nil {
		return Case{}, err
	}
	rng := rand.New(rand.NewPCG(1, 33))
	obs := make([]float32, N*spec.ObsDim)
	for i := range obs {
		obs[i] = float32(rng.NormFloat64() * 2)
	}
	want := make([]float32, N*spec.ActDim)
	a.ActBatch(want, obs, N, true)
	return Case{Name: "sac_actor", Model: m, Input: policy.InputName, Output: policy.ActionName,
		N: N, ObsDim: spec.ObsDim, OutDim: spec.ActDim, Obs: obs, Want: want}, nil
}

func dqnCase() (Case, error) {
	env, err := grid.Make("doorkey-8x8", grid.Options{})
	if err != nil {
		return Case{}, err
	}
	spec, card := env.Spec(), env.Cardinalities()
	cfg := dqn.DefaultConfig()
	cfg.Seed, cfg.Categorical = 1, card
	a, err := dqn.New(cfg, spec.ObsDim, spec.Discrete)
	if err != nil {
		return Case{}, err
	}
	m, err := policy.DQN(a, spec, policy.Info{Task: "doorkey-8x8", Run: "fixture"})
	if err != nil {
		return Case{}, err
	}
	rng := rand.New(rand.NewPCG(2, 33))
	O, nA := spec.ObsDim, spec.Discrete
	obs := make([]float32, N*O)
	want := make([]float32, N*nA)
	one, q := make([]float64, O), make([]float64, nA)
	for i := range N {
		for j, c := range card {
			v := float32(rng.IntN(c))
			if i >= N*3/4 && rng.IntN(4) == 0 { // the last quarter: some off-grid values
				v = float32(rng.Float64()*float64(c+4) - 2)
			}
			obs[i*O+j], one[j] = v, float64(v)
		}
		a.QValues(q, one)
		for k, v := range q {
			want[i*nA+k] = float32(v)
		}
	}
	return Case{Name: "dqn_q", Model: m, Input: policy.InputName, Output: policy.QName,
		N: N, ObsDim: O, OutDim: nA, Obs: obs, Want: want}, nil
}

// Write writes each case to dir as NAME.onnx, NAME.obs.f32 and
// NAME.want.f32 (little-endian float32) and lists them in cases.json.
func Write(dir string) error {
	cs, err := Cases()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, c := range cs {
		if err := c.Model.WriteFile(filepath.Join(dir, c.Name+".onnx")); err != nil {
			return err
		}
		for suffix, v := range map[string][]float32{".obs.f32": c.Obs, ".want.f32": c.Want} {
			if err := atomicfile.WriteBytes(filepath.Join(dir, c.Name+suffix), f32bytes(v)); err != nil {
				return err
			}
		}
	}
	b, err := json.MarshalIndent(cs, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteBytes(filepath.Join(dir, "cases.json"), b); err != nil {
		return fmt.Errorf("onnxfixture: %w", err)
	}
	return nil
}

func f32bytes(v []float32) []byte {
	b := make([]byte, 0, 4*len(v))
	for _, f := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
	}
	return b
}
