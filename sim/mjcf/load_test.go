package mjcf_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/vlmrb/vlmrb/sim/mjcf"
)

// sampleDir is where Debian's libmujoco-samples installs MuJoCo's models.
const sampleDir = "/usr/share/mujoco/model"

func TestLoadSamples(t *testing.T) {
	if _, err := os.Stat(sampleDir); err != nil {
		t.Skip("libmujoco-samples is not installed")
	}
	files, _ := filepath.Glob(filepath.Join(sampleDir, "*", "*.xml"))
	for _, f := range files {
		m, err := mjcf.Load(f, mjcf.Options{})
		if err != nil {
			t.Logf("%s: refused: %v", f, err)
			continue
		}
		t.Logf("%s: %d bodies, %d sim bodies, %d joints, %d actuators, %d warnings", f, len(m.Bodies), len(m.Sim.Bodies), len(m.Joints), len(m.Actuators), len(m.Warnings))
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
