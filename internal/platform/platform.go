package platform

import (
	"bufio"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
)

// commit is the build's revision when the linker sets it
// (-ldflags "-X github.com/vlmrb/vlmrb/internal/platform.commit=REV", as
// `make build` and `make run` do); builds with VCS stamping report
// vcs.revision instead.
var commit = ""

// Info describes the machine, the build and the BLAS library.
type Info struct {
	CPU    string `json:"cpu"` // model name ("" where the OS does not say)
	NumCPU int    `json:"num_cpu"`
	OS     string `json:"os"`
	Arch   string `json:"arch"`
	Go     string `json:"go"`     // runtime.Version of the binary
	Commit string `json:"commit"` // revision the binary was built from ("" when neither VCS stamping nor the linker recorded it)
	// Modified is true when the build's work tree had uncommitted changes.
	Modified bool `json:"modified,omitempty"`
	// CoreTypeEnv is OPENBLAS_CORETYPE as this process saw it ("" when
	// unset: OpenBLAS then picks its kernel from the CPU).
	CoreTypeEnv string `json:"openblas_coretype_env"`
	BLAS        BLAS   `json:"blas"`
}

// BLAS describes the BLAS library networks use; nn.BLASInfo converts to it
// (platform.BLAS(nn.Library())), so this leaf package needs no nn import.
type BLAS struct {
	Backend         string `json:"backend"`
	OpenBLASCore    string `json:"openblas_core,omitempty"`
	OpenBLASConfig  string `json:"openblas_config,omitempty"`
	OpenBLASVersion string `json:"openblas_version,omitempty"`
}

// Describe returns the current process's Info with blas, the library in
// use: call it after the BLAS backend is selected, with
// platform.BLAS(nn.Library()).
func Describe(blas BLAS) Info {
	in := Info{
		NumCPU: runtime.NumCPU(), OS: runtime.GOOS, Arch: runtime.GOARCH, Go: runtime.Version(),
		CoreTypeEnv: os.Getenv("OPENBLAS_CORETYPE"), BLAS: blas, CPU: CPUModel(),
	}
	in.Commit = commit
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				in.Commit = s.Value
			case "vcs.modified":
				in.Modified = s.Value == "true"
			}
		}
	}
	return in
}

// CPUModel returns this machine's CPU model name ("" where the OS does
// not say).
func CPUModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	return cpuModel(f)
}

// cpuModel returns the first "model name" of a /proc/cpuinfo listing (x86),
// else its "Model" or "Hardware" line (ARM boards), else "".
func cpuModel(r io.Reader) string {
	var fallback string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch k {
		case "model name":
			return v
		case "Model", "Hardware":
			if fallback == "" {
				fallback = v
			}
		}
	}
	return fallback
}

// Kernel is a one-line summary of the BLAS arithmetic, e.g. "openblas
// (OpenBLAS 0.3.21, core Haswell, forced by OPENBLAS_CORETYPE)".
func (in Info) Kernel() string {
	b := in.BLAS
	if b.OpenBLASCore == "" {
		return b.Backend
	}
	s := b.Backend + " (OpenBLAS " + b.OpenBLASVersion + ", core " + b.OpenBLASCore
	if in.CoreTypeEnv != "" {
		s += ", forced by OPENBLAS_CORETYPE"
	} else {
		s += ", chosen by OpenBLAS from the CPU"
	}
	if b.Backend != "openblas" {
		s += "; not used by the gonum backend"
	}
	return s + ")"
}
