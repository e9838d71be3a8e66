package nn

import (
	"os"
	"slices"
	"strings"
	"testing"
)

func TestOpenBLASVersionParse(t *testing.T) {
	for in, want := range map[string]string{
		"OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Haswell MAX_THREADS=64": "0.3.21",
		"OpenBLAS 0.3.26.dev ": "0.3.26.dev",
		"":                     "",
		"something else":       "",
	} {
		if got := openBLASVersion(in); got != want {
			t.Errorf("openBLASVersion(%q) = %q, want %q", in, got, want)
		}
	}
}

// Library names the selected backend and, with OpenBLAS compiled in, the
// kernel it runs: the one OPENBLAS_CORETYPE forces when that is set.
func TestLibraryReportsBackendAndCore(t *testing.T) {
	info := Library()
	if info.Backend != Backend() {
		t.Fatalf("Library().Backend %q, selected %q", info.Backend, Backend())
	}
	if !slices.Contains(Backends(), "openblas") {
		if info.OpenBLASCore != "" || info.OpenBLASConfig != "" {
			t.Fatalf("no OpenBLAS compiled in, yet %+v", info)
		}
		return
	}
	if info.OpenBLASCore == "" || info.OpenBLASVersion == "" {
		t.Fatalf("OpenBLAS compiled in but Library() = %+v", info)
	}
	if want := os.Getenv("OPENBLAS_CORETYPE"); want != "" && !strings.EqualFold(info.OpenBLASCore, want) {
		t.Errorf("OPENBLAS_CORETYPE=%s but OpenBLAS reports core %q", want, info.OpenBLASCore)
	}
}
