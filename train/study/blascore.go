package study

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/vlmrb/vlmrb/internal/atomicfile"
	"github.com/vlmrb/vlmrb/internal/platform"
	"github.com/vlmrb/vlmrb/internal/safefile"
	"golang.org/x/sys/cpu"
)

// BLASCoreFile holds the OpenBLAS kernel a study's runs are pinned to.
// OpenBLAS picks its GEMM kernel from the CPU unless OPENBLAS_CORETYPE
// forces one, and kernels sum in different orders, so the same config and
// seed give different runs on different CPU models. The runner therefore
// freezes one kernel when a study first runs and sets OPENBLAS_CORETYPE to
// it for every child, on every machine and in every later session; each
// attempt records it too (study-attempts.jsonl), and each run's
// platform.json names the kernel OpenBLAS actually used.
const BLASCoreFile = "study-blas.json"

// DefaultBLASCore is the kernel a study is pinned to when neither its file
// (blas_core) nor the environment (OPENBLAS_CORETYPE) names one: the AVX2
// kernel, which every x86-64 CPU since 2013 runs and on which the
// committed studies ran.
const DefaultBLASCore = "Haswell"

type blasPin struct {
	Core   string    `json:"openblas_coretype"` // "" : not pinned
	From   string    `json:"from"`              // what chose it
	Frozen time.Time `json:"frozen"`
	CPU    string    `json:"cpu"` // the machine that froze it
}

// pinBLASCore loads dir's pin or, on a study's first run, freezes one (and
// writes it when write is set): the study file's blas_core ("none": no
// pin), else OPENBLAS_CORETYPE of the study process, else DefaultBLASCore
// where the CPU runs it, else no pin. It returns an error when the pinned
// kernel needs instructions this CPU lacks: the runs would not start, or
// not reproduce the study's other runs.
func (s *Spec) pinBLASCore(dir string, write bool) (string, error) {
	path := filepath.Join(dir, BLASCoreFile)
	var pin blasPin
	if b, err := readBounded(path, 1<<16); err == nil {
		if err := json.Unmarshal(b, &pin); err != nil {
			return "", fmt.Errorf("study: %s: %w (it records the study's BLAS kernel; restore it, or delete it to pin the kernel anew)", path, err)
		}
	} else if !os.IsNotExist(err) {
		return "", fmt.Errorf("study: %w", err)
	} else {
		pin = newPin(s.BLASCore, os.Getenv("OPENBLAS_CORETYPE"))
		if write {
			b, _ := json.MarshalIndent(pin, "", "  ")
			if err := atomicfile.WriteBytes(path, append(b, '\n')); err != nil {
				return "", fmt.Errorf("study: %w", err)
			}
		}
	}
	if s.BLASCore != "" && !strings.EqualFold(s.BLASCore, "none") && !strings.EqualFold(s.BLASCore, pin.Core) {
		return "", fmt.Errorf("study: the study file pins blas_core %s but %s froze %q when the study began; runs of one study must share a kernel (start a new study directory for another)", s.BLASCore, path, pin.Core)
	}
	if pin.Core != "" && !cpuRuns(pin.Core) {
		return "", fmt.Errorf("study: the study's runs are pinned to the OpenBLAS kernel %s (%s), which this CPU (%s) cannot run; resume it on a CPU that can, so that its runs stay comparable", pin.Core, path, platform.CPUModel())
	}
	return pin.Core, nil
}

func newPin(fromSpec, fromEnv string) blasPin {
	p := blasPin{Frozen: time.Now().UTC(), CPU: platform.CPUModel()}
	switch {
	case strings.EqualFold(fromSpec, "none"):
		p.From = "study file: blas_core none (runs reproduce only on the same CPU model)"
	case fromSpec != "":
		p.Core, p.From = fromSpec, "study file: blas_core"
	case fromEnv != "":
		p.Core, p.From = fromEnv, "OPENBLAS_CORETYPE of the first study run"
	case cpuRuns(DefaultBLASCore):
		p.Core, p.From = DefaultBLASCore, "default"
	default:
		p.From = "none: this CPU cannot run the default kernel " + DefaultBLASCore + " (runs reproduce only on the same CPU model)"
	}
	return p
}

// cpuRuns reports whether this CPU has the instructions of an OpenBLAS
// x86 kernel; kernels it knows no requirement of are assumed to run.
func cpuRuns(core string) bool {
	c := strings.ToLower(core)
	avx512 := []string{"skylakex", "cooperlake", "sapphirerapids"}
	avx2 := []string{"haswell", "zen"}
	switch {
	case slices.Contains(avx512, c):
		return runtime.GOARCH == "amd64" && cpu.X86.HasAVX512F
	case slices.Contains(avx2, c):
		return runtime.GOARCH == "amd64" && cpu.X86.HasAVX2 && cpu.X86.HasFMA
	}
	return true
}

// withBLASCore is env with OPENBLAS_CORETYPE set to core (any earlier
// value dropped); env unchanged when core is "".
func withBLASCore(env []string, core string) []string {
	if core == "" {
		return env
	}
	out := slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, "OPENBLAS_CORETYPE=") })
	return append(out, "OPENBLAS_CORETYPE="+core)
}

// readBounded reads path (a regular file, through internal/safefile),
// refusing files over limit bytes counted as read.
func readBounded(path string, limit int64) ([]byte, error) {
	return safefile.ReadFile(path, limit)
}
