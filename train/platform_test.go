package train

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/vlmrb/vlmrb/nn"
	"github.com/vlmrb/vlmrb/rundir"
)

// Every session of a run (start, resume) appends the machine, build and
// BLAS kernel it ran on to platform.json.
func TestRunRecordsPlatform(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "run")
	c := tinyGridConfig(out, "uniform", "oracle")
	c.Steps, c.Eval.GIF = 800, false
	if _, err := Run(context.Background(), valid(t, c), Options{}); err != nil {
		t.Fatal(err)
	}
	c.Steps = 1200
	if _, err := Run(context.Background(), valid(t, c), Options{Resume: true}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(out, rundir.PlatformFile))
	if err != nil {
		t.Fatal(err)
	}
	var s []rundir.PlatformSession
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if len(s) != 2 || s[0].Step != 0 || s[1].Step != 800 {
		t.Fatalf("sessions %+v, want a start at step 0 and a resume at 800", s)
	}
	want, _ := nn.ResolveBackend(c.BLAS)
	for _, x := range s {
		if x.Go != runtime.Version() || x.BLAS.Backend != want || x.NumCPU != runtime.NumCPU() {
			t.Errorf("session %+v: want Go %s, backend %s", x, runtime.Version(), want)
		}
		if want == "openblas" && x.BLAS.OpenBLASCore == "" {
			t.Errorf("session on OpenBLAS names no core: %+v", x.BLAS)
		}
	}
}
