//go:build unix

package onnx

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/vlmrb/vlmrb/internal/safefile"
)

// addGraph is x [n] plus a chain of k Adds of the constant one; with fan,
// every chain value is read again by a second chain that sums them
// backwards, so all of them are alive at once.
func addGraph(n, k int, fan bool) *Model {
	m := &Model{IRVersion: 7, Opsets: []OpsetID{{Version: 13}}}
	g := &m.Graph
	one := make([]float32, n)
	for i := range one {
		one[i] = 1
	}
	g.Initializers = []*Tensor{NewFloat("one", one, int64(n))}
	g.Inputs = []ValueInfo{{Name: "x", Type: Float, Shape: []Dim{{Value: int64(n)}}}}
	prev := "x"
	for i := 0; i < k; i++ {
		out := "y" + string(rune('A'+i%26)) + string(rune('a'+i/26))
		g.Nodes = append(g.Nodes, Node{OpType: "Add", Inputs: []string{prev, "one"}, Outputs: []string{out}})
		prev = out
	}
	if fan {
		acc := prev
		for i := k - 2; i >= 0; i-- {
			out := "s" + g.Nodes[i].Outputs[0]
			g.Nodes = append(g.Nodes, Node{OpType: "Add", Inputs: []string{acc, g.Nodes[i].Outputs[0]}, Outputs: []string{out}})
			acc = out
		}
		prev = acc
	}
	g.Outputs = []ValueInfo{{Name: prev, Type: Float, Shape: []Dim{{Value: int64(n)}}}}
	return m
}

// TestRunFreesIntermediates: a chain of 40 Adds of 256 KiB values runs
// within a 1 MiB budget (each value is dropped once its reader has run,
// so at most two are alive), and gives x + 40; the same values all kept
// alive (10 of them, 2.5 MiB) are refused with the budget and the node.
func TestRunFreesIntermediates(t *testing.T) {
	const n = 1 << 16
	s, err := NewSession(addGraph(n, 40, false))
	if err != nil {
		t.Fatal(err)
	}
	s.maxLive = 1 << 20
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(i % 7)
	}
	out, err := s.Run(map[string]*Tensor{"x": NewFloat("x", x, n)})
	if err != nil {
		t.Fatal(err)
	}
	for _, y := range out {
		for i, v := range y.Float {
			if v != x[i]+40 {
				t.Fatalf("y[%d] = %g, want %g", i, v, x[i]+40)
			}
		}
	}
	s, err = NewSession(addGraph(n, 10, true))
	if err != nil {
		t.Fatal(err)
	}
	s.maxLive = 1 << 20
	_, err = s.Run(map[string]*Tensor{"x": NewFloat("x", x, n)})
	if err == nil || !strings.Contains(err.Error(), "MaxLiveBytes") || !strings.Contains(err.Error(), "node ") {
		t.Errorf("10 values of 256 KiB alive at once under a 1 MiB budget: %v, want the budget named", err)
	}
	// with the default budget the fan runs, and sums to 10x + (1+…+10)
	s.maxLive = MaxLiveBytes
	out, err = s.Run(map[string]*Tensor{"x": NewFloat("x", x, n)})
	if err != nil {
		t.Fatal(err)
	}
	for _, y := range out {
		if want := 10*x[3] + 55; y.Float[3] != want {
			t.Errorf("fan sum %g, want %g", y.Float[3], want)
		}
	}
}

// TestRunWorkBudget: a chain of 40 Adds of 64 Ki elements (2.6 M in all)
// is refused under a budget of 1 M elements produced, naming the node
// where it passed it (the 16th: 16 x 65,536 = 1,048,576 is not over).
func TestRunWorkBudget(t *testing.T) {
	const n = 1 << 16
	s, err := NewSession(addGraph(n, 40, false))
	if err != nil {
		t.Fatal(err)
	}
	s.maxWork = 1 << 20
	_, err = s.Run(map[string]*Tensor{"x": NewFloat("x", make([]float32, n), n)})
	if err == nil || !strings.Contains(err.Error(), "MaxRunElems") || !strings.Contains(err.Error(), "node 16 (Add)") {
		t.Errorf("%v, want the budget exceeded at node 16", err)
	}
}

func TestReadFileSpecial(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "m.onnx")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	for _, p := range []string{fifo, "/dev/zero", os.TempDir()} {
		if _, err := ReadFile(p); !errors.Is(err, safefile.ErrNotRegular) {
			t.Errorf("ReadFile(%s): %v, want ErrNotRegular", p, err)
		}
	}
}
