package platform

import (
	"encoding/json"

	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/vlmrb/vlmrb/nn"
)

func TestCPUModel(t *testing.T) {
	x86 := "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Platinum 8480C\nflags\t\t: fpu\n\nprocessor\t: 1\nmodel name\t: other\n"
	if got := cpuModel(strings.NewReader(x86)); got != "Intel(R) Xeon(R) Platinum 8480C" {
		t.Errorf("x86 cpuinfo: %q", got)
	}
	arm := "processor\t: 0\nBogoMIPS\t: 108.00\n\nHardware\t: BCM2835\nModel\t\t: Raspberry Pi 4 Model B Rev 1.4\n"
	if got := cpuModel(strings.NewReader(arm)); got != "BCM2835" {
		t.Errorf("ARM cpuinfo: %q", got)
	}
	if got := cpuModel(strings.NewReader("")); got != "" {
		t.Errorf("empty cpuinfo: %q", got)
	}
}

func TestDescribe(t *testing.T) {
	in := Describe(BLAS(nn.Library()))
	if in.Go != runtime.Version() || in.NumCPU != runtime.NumCPU() || in.Arch != runtime.GOARCH {
		t.Fatalf("Describe() = %+v", in)
	}
	if runtime.GOOS == "linux" && in.CPU == "" {
		t.Error("no CPU model read from /proc/cpuinfo on Linux")
	}
	if in.CoreTypeEnv != os.Getenv("OPENBLAS_CORETYPE") {
		t.Errorf("CoreTypeEnv %q", in.CoreTypeEnv)
	}
	k := in.Kernel()
	if !strings.HasPrefix(k, in.BLAS.Backend) || (in.BLAS.OpenBLASCore != "" && !strings.Contains(k, in.BLAS.OpenBLASCore)) {
		t.Errorf("Kernel() = %q for %+v", k, in.BLAS)
	}
}

// platform.json keeps its "blas" object: BLAS writes the same JSON as
// nn.BLASInfo, field for field.
func TestBLASJSONMatchesNN(t *testing.T) {
	for _, b := range []nn.BLASInfo{nn.Library(), {Backend: "openblas", OpenBLASCore: "Haswell", OpenBLASConfig: "OpenBLAS 0.3.21 DYNAMIC_ARCH", OpenBLASVersion: "0.3.21"}} {
		want, _ := json.Marshal(b)
		got, _ := json.Marshal(BLAS(b))
		if string(got) != string(want) {
			t.Errorf("platform.BLAS JSON %s, nn.BLASInfo JSON %s", got, want)
		}
	}
}
