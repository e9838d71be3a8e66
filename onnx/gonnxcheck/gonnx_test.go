package gonnxcheck

import (
	"math"
	"testing"

	"github.com/advancedclimatesystems/gonnx"
	"gorgonia.org/tensor"

	"github.com/vlmrb/vlmrb/onnx/onnxfixture"
)

// TestGonnxMatchesVLMRB runs each exported policy on 1,000 random
// observations in one batch and checks the outputs against vlmrb's.
func TestGonnxMatchesVLMRB(t *testing.T) {
	cases, err := onnxfixture.Cases()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			b, err := c.Model.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			m, err := gonnx.NewModelFromBytes(b)
			if err != nil {
				t.Fatalf("gonnx cannot load the model: %v", err)
			}
			obs := append([]float32(nil), c.Obs...)
			out, err := m.Run(gonnx.Tensors{c.Input: tensor.New(tensor.WithShape(c.N, c.ObsDim), tensor.WithBacking(obs))})
			if err != nil {
				t.Fatalf("gonnx cannot run the model: %v", err)
			}
			y, ok := out[c.Output]
			if !ok {
				t.Fatalf("gonnx gave no output %q", c.Output)
			}
			if s := y.Shape(); len(s) != 2 || s[0] != c.N || s[1] != c.OutDim {
				t.Fatalf("output shape %v, want [%d %d]", s, c.N, c.OutDim)
			}
			got, ok := y.Data().([]float32)
			if !ok {
				t.Fatalf("output of %T, want []float32", y.Data())
			}
			d := 0.0
			for i, v := range got {
				d = max(d, math.Abs(float64(v)-float64(c.Want[i])))
			}
			t.Logf("%s: gonnx v1.1.0 vs vlmrb on %d observations: max |difference| = %.3g", c.Name, c.N, d)
			if d > 1e-5 {
				t.Fatalf("max |difference| %g > 1e-5", d)
			}
		})
	}
}
