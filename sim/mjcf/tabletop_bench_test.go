package mjcf_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/vlmrb/vlmrb/sim/articulated"
	"github.com/vlmrb/vlmrb/sim/mjcf"
)

// tabletop drives testdata/tabletop.xml (the anchors' MuJoCo benchmark
// scene: mocap-welded hand, two servoed fingers, cube, drawer) through
// mjbench.c's scenarios on the articulated engine: idle (hovering), push
// (closed fingers sweep the cube at 0.1 m/s), lift (descend, grip, lift to
// 0.25 m); control every 5 steps, episodes of 250 control steps.
type tabletop struct {
	m                  *articulated.Model
	d                  *articulated.Data
	lf, rf, cube, hand int
}

func loadTabletop(tb testing.TB) *tabletop {
	tb.Helper()
	am, err := mjcf.Load(filepath.Join("testdata", "tabletop.xml"), mjcf.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	m := am.Model
	t := &tabletop{m: m, d: articulated.NewData(m), lf: -1, rf: -1, cube: -1, hand: -1}
	adr := map[string]*int{"lf": &t.lf, "rf": &t.rf, "cube_free": &t.cube, "hand_free": &t.hand}
	for j := range m.Joints {
		if p, ok := adr[m.Joints[j].Name]; ok {
			*p = m.QposAdr(j)
		}
	}
	if t.lf < 0 || t.rf < 0 || t.cube < 0 || t.hand < 0 || len(m.MocapBodies) != 1 || m.NU != 2 {
		tb.Fatalf("tabletop.xml: joints lf %d rf %d cube %d hand %d, %d mocap bodies, %d actuators", t.lf, t.rf, t.cube, t.hand, len(m.MocapBodies), m.NU)
	}
	return t
}

const (
	ttIdle = iota
	ttPush
	ttLift
)

func (t *tabletop) start(sc int) {
	m, d := t.m, t.d
	x, z, qf := 0.0, 0.2, 0.0
	if sc == ttPush {
		x, z, qf = -0.08, 0.08, 0.04
	}
	articulated.Reset(m, d)
	d.MocapPos[0] = [3]float64{x, 0, z}
	copy(d.Qpos[t.hand:], []float64{x, 0, z, 1, 0, 0, 0})
	d.Qpos[t.lf], d.Qpos[t.rf] = qf, qf
	d.Ctrl[0], d.Ctrl[1] = qf, qf
	copy(d.Qpos[t.cube:], []float64{0, 0, 0.025, 1, 0, 0, 0})
}

func (t *tabletop) control(sc, k int) {
	mp := &t.d.MocapPos[0]
	g := 0.0
	switch sc {
	case ttPush:
		mp[0], g = -0.08+0.001*float64(k), 0.04
	case ttLift:
		switch {
		case k < 50:
			mp[2] = 0.2 - (0.2-0.075)*float64(k+1)/50
		case k < 100:
			mp[2] = 0.075
			if k >= 60 {
				g = 0.04
			}
		case k < 200:
			mp[2], g = 0.075+(0.25-0.075)*float64(k-99)/100, 0.04
		default:
			mp[2], g = 0.25, 0.04
		}
	}
	t.d.Ctrl[0], t.d.Ctrl[1] = g, g
}

// The lift scenario lifts the cube and push moves it, as in MuJoCo
// (mjbench.c on MuJoCo 2.2.2 ends lift with the cube at 0.194 m and push
// with it 2.5 cm high, pushed along x).
func TestTabletopScenariosOnArticulated(t *testing.T) {
	tt := loadTabletop(t)
	for _, sc := range []int{ttPush, ttLift} {
		tt.start(sc)
		for k := range 250 {
			tt.control(sc, k)
			for range 5 {
				articulated.Step(tt.m, tt.d)
			}
		}
		if w := tt.d.Warnings.Total(); w != 0 {
			t.Errorf("scenario %d: %d warnings", sc, w)
		}
		x, z := tt.d.Qpos[tt.cube], tt.d.Qpos[tt.cube+2]
		switch sc {
		case ttPush:
			// the fingers start 8 cm behind the cube and travel 25 cm
			if x < 0.1 || z < 0.02 || z > 0.03 {
				t.Errorf("push: cube ends at x %.3f z %.3f, want pushed past x 0.1 m on the table", x, z)
			}
		case ttLift:
			if z < 0.15 {
				t.Errorf("lift: cube ends at z %.3f, want lifted towards 0.25 m", z)
			}
		}
	}
}

// BenchmarkTabletopStep is sim's BenchmarkStep on the articulated engine:
// one op is one 2-ms step of the scenario, including its control and
// episode resets. MuJoCo 2.2.2 on the same file: bench/mujoco tabletop.
func BenchmarkTabletopStep(b *testing.B) {
	for _, sc := range []struct {
		name string
		sc   int
	}{{"idle", ttIdle}, {"push", ttPush}, {"lift", ttLift}} {
		b.Run(sc.name, func(b *testing.B) {
			tt := loadTabletop(b)
			tt.start(sc.sc)
			for k := range 250 { // warm-up: sizes nothing, but fills caches
				tt.control(sc.sc, k)
				for range 5 {
					articulated.Step(tt.m, tt.d)
				}
			}
			tt.start(sc.sc)
			i, con := 0, 0
			b.ReportAllocs()
			start, cpu0 := time.Now(), cpuSeconds()
			for b.Loop() {
				k := i / 5
				if k == 250 {
					tt.start(sc.sc)
					i, k = 0, 0
				}
				if i%5 == 0 {
					tt.control(sc.sc, k)
				}
				articulated.Step(tt.m, tt.d)
				con += len(tt.d.Contacts)
				i++
			}
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "steps/s")
			if cpu := cpuSeconds() - cpu0; cpu > 0 {
				b.ReportMetric(float64(b.N)/cpu, "steps/cpu-s")
			}
			b.ReportMetric(float64(con)/float64(b.N), "contacts/step")
		})
	}
}
