package mjcf_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vlmrb/vlmrb/sim"
	"github.com/vlmrb/vlmrb/sim/mjcf"
)

// sampleDir is where Debian's libmujoco-samples installs MuJoCo's models.
const sampleDir = "/usr/share/mujoco/model"

// TestLoadSamples: the sample models that use only the supported subset
// load; the others are refused naming what is unsupported.
func TestLoadSamples(t *testing.T) {
	if _, err := os.Stat(sampleDir); err != nil {
		t.Skip("libmujoco-samples is not installed")
	}
	for _, f := range []string{"humanoid/humanoid.xml", "humanoid/22_humanoids.xml", "humanoid100/humanoid_body.xml", "mug/mug.xml"} {
		if _, err := mjcf.Load(filepath.Join(sampleDir, f), mjcf.Options{}); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	for f, why := range map[string]string{"composite/cloth.xml": "<composite>", "tendon_arm/arm26.xml": "<tendon>",
		"slider_crank/slider_crank.xml": "transmission", "humanoid100/humanoid100.xml": "ellipsoid"} {
		_, err := mjcf.Load(filepath.Join(sampleDir, f), mjcf.Options{})
		if err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("%s: error %v, want it to name %s", f, err, why)
		}
	}
}

func TestLoadProjectModels(t *testing.T) {
	for _, f := range []string{"arm6.xml", "gripper.xml"} {
		m, err := mjcf.Load(filepath.Join("testdata", f), mjcf.Options{})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		t.Logf("%s: %d bodies %d sim bodies %d joints %d actuators; warnings %q", f, len(m.Bodies), len(m.Sim.Bodies), len(m.Joints), len(m.Actuators), m.Warnings)
		for _, b := range m.Bodies {
			t.Logf("  %s mass %.4f I %v pos %v", b.Name, b.Mass, b.Inertia, b.Pos)
		}
	}
}

// BenchmarkStepImported steps imported models with ctrl 0 (steps/s per
// model, wall clock, and steps/cpu-s, process CPU time: less sensitive to
// other load on a shared machine; the humanoid needs libmujoco-samples).
func BenchmarkStepImported(b *testing.B) {
	for _, f := range []string{"testdata/arm6.xml", "testdata/gripper.xml", filepath.Join(sampleDir, "humanoid", "humanoid.xml")} {
		m, err := mjcf.Load(f, mjcf.Options{})
		if err != nil {
			if os.IsNotExist(errors.Unwrap(err)) || strings.Contains(err.Error(), "no such file") {
				continue
			}
			b.Fatal(err)
		}
		b.Run(strings.TrimSuffix(filepath.Base(f), ".xml"), func(b *testing.B) {
			s := m.Sim.NewState()
			for i := 0; i < 200; i++ {
				sim.Step(m.Sim, s)
			}
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cpuSeconds()
			for i := 0; i < b.N; i++ {
				sim.Step(m.Sim, s)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
			if cpu := cpuSeconds() - cpu0; cpu > 0 {
				b.ReportMetric(float64(b.N)/cpu, "steps/cpu-s")
			}
		})
	}
}
