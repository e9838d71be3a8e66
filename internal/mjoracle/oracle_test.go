package mjoracle

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

// TestRunFreeFall: MuJoCo's semi-implicit Euler drops a body on a slide
// joint from rest by exactly g·h²·n(n+1)/2 after n steps (v += -g h, then
// x += v h), and Run returns those lines at time 0 and every N steps.
func TestRunFreeFall(t *testing.T) {
	dir := Dir(t)
	xml := `<mujoco><option timestep="0.01" gravity="0 0 -9.81" integrator="Euler"/>
<worldbody><body><joint type="slide" axis="0 0 1"/><geom size=".1" mass="1" contype="0" conaffinity="0"/></body></worldbody></mujoco>`
	p := filepath.Join(t.TempDir(), "fall.xml")
	if err := os.WriteFile(p, []byte(xml), 0o644); err != nil {
		t.Fatal(err)
	}
	const h, g, every = 0.01, 9.81, 5
	lines := Run(t, dir, "--model", p, "--duration", "0.2", "--every", "5")
	if len(lines) != 20/every+1 {
		t.Fatalf("%d lines for 20 steps every %d; want %d", len(lines), every, 20/every+1)
	}
	for i, l := range lines {
		n := float64(i * every)
		want := -g * h * h * n * (n + 1) / 2
		if len(l.Qpos) != 1 || len(l.Qvel) != 1 || math.Abs(l.Time-n*h) > 1e-12 ||
			math.Abs(l.Qpos[0]-want) > 1e-12 || math.Abs(l.Qvel[0]+g*h*n) > 1e-12 {
			t.Errorf("line %d: %+v; want time %g, qpos [%g], qvel [%g]", i, l, n*h, want, -g*h*n)
		}
	}
}

// TestMaxDiff: the largest |Δqpos| (or |Δqvel|) and its time; a NaN wins.
func TestMaxDiff(t *testing.T) {
	a := []Line{{Time: 0, Qpos: []float64{1, 2}, Qvel: []float64{0}}, {Time: 1, Qpos: []float64{1, 5}, Qvel: []float64{3}}}
	b := []Line{{Time: 0, Qpos: []float64{1.5, 2}, Qvel: []float64{-1}}, {Time: 1, Qpos: []float64{1, 4}, Qvel: []float64{3}}}
	if d, at := MaxDiff(a, b, false); d != 1 || at != 1 {
		t.Errorf("qpos: %g at %g; want 1 at 1", d, at)
	}
	if d, at := MaxDiff(a, b, true); d != 1 || at != 0 {
		t.Errorf("qvel: %g at %g; want 1 at 0", d, at)
	}
	b[0].Qpos[1] = math.NaN()
	if d, at := MaxDiff(a, b, false); !math.IsNaN(d) || at != 0 {
		t.Errorf("with a NaN: %g at %g; want NaN at 0", d, at)
	}
}
