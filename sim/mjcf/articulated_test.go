package mjcf

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vlmrb/vlmrb/sim/articulated"
)

// What the articulated engine does not simulate is refused with the
// element, the attribute and the line; what it does is read.
func TestArticulatedRefusesWhatItDoesNotSimulate(t *testing.T) {
	body := func(inner string) string {
		return `<mujoco><option><flag contact="disable"/></option><worldbody><body><geom size="0.1"/>` + inner + `</body></worldbody></mujoco>`
	}
	cases := []struct{ name, xml, want string }{
		{"ball range", body(`<joint type="ball" range="10 40"/>`), "(0, angle)"},
		{"solreflimit", body(`<joint range="-1 1" solreflimit="0.02 -1"/>`), "solreflimit"},
		{"frictionloss", body(`<joint frictionloss="-0.1"/>`), `"frictionloss"`},
		{"tendon equality", `<mujoco><worldbody/><equality><tendon tendon1="a"/></equality></mujoco>`, "fixed tendon"},
		{"flex equality", `<mujoco><worldbody/><equality><flex flex="a"/></equality></mujoco>`, "only joint, tendon, connect and weld"},
		{"weld relpose", `<mujoco><option><flag contact="disable"/></option><worldbody><body name="a"><joint/><geom size="0.1"/></body></worldbody><equality><weld body1="a" relpose="0 0 0 1 0 0 0"/></equality></mujoco>`, "relpose"},
		{"spatial tendon without sites", `<mujoco><worldbody/><tendon><spatial name="t"/></tendon></mujoco>`, "two <site>s"},
		{"spatial tendon wrapping", `<mujoco><worldbody><site name="s"/><geom name="g" size="0.1"/></worldbody><tendon><spatial name="t"><site site="s"/><geom geom="g"/><site site="s"/></spatial></tendon></mujoco>`, "only <site>s"},
		{"contact pair", `<mujoco><worldbody><body><joint/><geom name="a" size="0.1"/></body></worldbody><contact><pair geom1="a" geom2="b"/></contact></mujoco>`, `"b" is not a named geom`},
		{"unknown cone", `<mujoco><option cone="round"/><worldbody/></mujoco>`, "cone"},
		{"muscle", body(`<joint name="j"/>`)[:len(body(`<joint name="j"/>`))-len(`</mujoco>`)] + `<actuator><muscle joint="j"/></actuator></mujoco>`, "only motor"},
		{"ball actuator", body(`<joint name="j" type="ball"/>`)[:len(body(`<joint name="j" type="ball"/>`))-len(`</mujoco>`)] + `<actuator><motor joint="j"/></actuator></mujoco>`, "hinge or slide"},
		{"muscle dynamics", body(`<joint name="j"/>`)[:len(body(`<joint name="j"/>`))-len(`</mujoco>`)] + `<actuator><general joint="j" dyntype="muscle"/></actuator></mujoco>`, "dyntype"},
		{"actdim", body(`<joint name="j"/>`)[:len(body(`<joint name="j"/>`))-len(`</mujoco>`)] + `<actuator><general joint="j" dyntype="filter" actdim="2"/></actuator></mujoco>`, "actdim"},
		{"activation with RK4", `<mujoco><option integrator="RK4"><flag contact="disable"/></option><worldbody><body><joint name="j"/><geom size="0.1"/></body></worldbody><actuator><general joint="j" dyntype="integrator"/></actuator></mujoco>`, "RK4"},
		{"key act", body(`<joint name="j"/>`)[:len(body(`<joint name="j"/>`))-len(`</mujoco>`)] + `<actuator><general joint="j" dyntype="filter"/></actuator><keyframe><key act="1 2"/></keyframe></mujoco>`, "act"},
		{"override flag", `<mujoco><option><flag override="enable"/></option><worldbody/></mujoco>`, "override"},
		{"key qpos", body(`<joint/>`)[:len(body(`<joint/>`))-len(`</mujoco>`)] + `<keyframe><key qpos="1 2"/></keyframe></mujoco>`, "qpos"},
		{"ls_tolerance", `<mujoco><option ls_tolerance="nan"/><worldbody/></mujoco>`, "ls_tolerance"},
		{"ccd_tolerance", `<mujoco><option ccd_tolerance="NaN"/><worldbody/></mujoco>`, "ccd_tolerance"},
		{"ccd_iterations", `<mujoco><option ccd_iterations="0"/><worldbody/></mujoco>`, "ccd_iterations"},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.xml), "", Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "line") {
			t.Errorf("%s: error %v, want one with %q and a line", c.name, err, c.want)
		}
	}
}

// The line search's and the convex collider's bounds are MuJoCo's
// options: read, with MuJoCo's 0 (no tolerance, no line-search
// iteration past the Newton point) carried as a negative number.
func TestArticulatedReadsSolverAndCCDBounds(t *testing.T) {
	for _, c := range []struct {
		attrs   string
		lsTol   float64
		lsIter  int
		ccdTol  float64
		ccdIter int
	}{
		{``, 0.01, 50, 1e-6, 35},
		{`ls_tolerance="0.001" ls_iterations="20" ccd_tolerance="1e-8" ccd_iterations="10"`, 0.001, 20, 1e-8, 10},
		{`ls_tolerance="0" ls_iterations="0" ccd_tolerance="0"`, -1, -1, -1, 35},
		{`ls_tolerance="-0.1" ls_iterations="-3" ccd_tolerance="-1e-6"`, -1, -1, -1, 35},
	} {
		am, err := Parse([]byte(`<mujoco><option `+c.attrs+`/><worldbody/></mujoco>`), "", Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.attrs, err)
		}
		o := am.Model.Opt
		if o.LSTolerance != c.lsTol || o.LSIterations != c.lsIter || o.CCDTolerance != c.ccdTol || o.CCDIterations != c.ccdIter {
			t.Errorf("%s: ls %g %d ccd %g %d, want %g %d %g %d", c.attrs, o.LSTolerance, o.LSIterations,
				o.CCDTolerance, o.CCDIterations, c.lsTol, c.lsIter, c.ccdTol, c.ccdIter)
		}
	}
}

func TestArticulatedReadsOptionsAndFlags(t *testing.T) {
	xml := `<mujoco><option timestep="0.005" gravity="0 0 -3" integrator="implicitfast">
	  <flag gravity="disable" contact="disable" spring="disable" eulerdamp="disable"/></option>
	  <worldbody><body gravcomp="0.5"><joint type="ball" armature="0.2" damping="0.3"/><geom size="0.1"/>
	  <body pos="0 0 0.2"><joint name="h" actuatorfrcrange="-1 1"/><geom size="0.05"/></body></body></worldbody>
	  <actuator><position joint="h" kp="10" kv="2"/></actuator></mujoco>`
	am, err := Parse([]byte(xml), "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := am.Model
	if m.Opt.Timestep != 0.005 || m.Opt.Gravity != [3]float64{0, 0, -3} || m.Opt.Integrator != articulated.ImplicitFast {
		t.Errorf("option %+v", m.Opt)
	}
	if want := articulated.DisableGravity | articulated.DisableContact | articulated.DisableSpring | articulated.DisableEulerDamp; m.Opt.Disable != want {
		t.Errorf("disable bits %b, want %b", m.Opt.Disable, want)
	}
	if m.NQ != 5 || m.NV != 4 || m.Bodies[1].Gravcomp != 0.5 || m.Joints[0].Armature != 0.2 {
		t.Errorf("nq %d nv %d gravcomp %g armature %g", m.NQ, m.NV, m.Bodies[1].Gravcomp, m.Joints[0].Armature)
	}
	// MuJoCo 3 compiles with autolimits: actuatorfrcrange limits
	if j := m.Joints[1]; !j.ActFrcLimited || j.ActFrcRange != [2]float64{-1, 1} {
		t.Errorf("actuatorfrcrange %v limited %v", j.ActFrcRange, j.ActFrcLimited)
	}
	if a := m.Actuators[0]; a.GainPrm[0] != 10 || a.BiasPrm != [3]float64{0, -10, -2} {
		t.Errorf("position actuator gain %v bias %v, want kp 10 and bias (0, -kp, -kv)", a.GainPrm, a.BiasPrm)
	}
}

// No input makes the articulated import or a few steps of the engine
// panic: bad input is an error, a bad state a counted warning.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`<mujoco><option><flag contact="disable"/></option><worldbody><body><joint range="-1 1"/><geom size=".1"/></body></worldbody></mujoco>`,
		`<mujoco><option><flag contact="disable"/></option><worldbody><body name="a"><joint type="ball" range="0 30"/><geom size=".1"/></body></worldbody><equality><weld body1="a"/></equality></mujoco>`,
		`<mujoco><option><flag contact="disable"/></option><worldbody><body name="a"><joint name="j" frictionloss="1"/><geom size=".1"/></body></worldbody><actuator><position joint="j" kp="10" kv="1"/></actuator></mujoco>`,
		// the seeds of the retired importer's FuzzParse: contacts on,
		// defaults, fromto, euler sequences, multi-joint bodies, keys
		`<mujoco><worldbody><body><joint/><geom size=".1"/></body></worldbody></mujoco>`,
		`<mujoco><default><default class="a"><geom size="1"/></default></default><worldbody><body childclass="a"><freejoint/><geom/></body></worldbody></mujoco>`,
		`<mujoco><worldbody><body><joint name="j" type="slide" range="0 1" limited="true"/><geom type="capsule" fromto="0 0 0 0 0 1" size=".1"/></body></worldbody><actuator><position joint="j" kp="10"/></actuator></mujoco>`,
		`<mujoco><compiler angle="radian" eulerseq="ZYX"/><worldbody><body euler="1 2 3"><joint axis="1 1 0"/><geom type="box" size="1 2 3"/></body></worldbody></mujoco>`,
		`<mujoco><worldbody><body pos="0 0 1"><freejoint/><geom size=".1"/><body pos="0 0 -.2"><joint name="a" axis="1 0 0" armature=".01" range="-1 1"/><joint name="b" axis="0 1 1" pos="0 0 .05"/><joint axis="0 0 1"/><geom type="capsule" fromto="0 0 0 0 0 -.3" size=".05"/></body></body></worldbody><actuator><motor joint="b" gear="20"/></actuator></mujoco>`,
		`<mujoco><worldbody><body pos="0 0 1"><joint/><joint type="slide"/><geom size=".1"/></body><body><freejoint/><geom size=".1"/></body></worldbody><keyframe><key name="k" qpos="1 .1 0 0 1 1 0 0 0"/></keyframe></mujoco>`,
	} {
		f.Add([]byte(s))
	}
	for _, name := range []string{"articulated/combined", "articulated/equality", "articulated/limits", "arm6"} {
		if data, err := os.ReadFile(filepath.Join("testdata", name+".xml")); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		am, err := Parse(data, "", Options{})
		if err != nil {
			return
		}
		d := articulated.NewData(am.Model)
		for k := range am.Model.Keys {
			if err := articulated.ResetKey(am.Model, d, k); err != nil {
				t.Fatal(err)
			}
		}
		for range 3 {
			articulated.Step(am.Model, d)
		}
	})
}

// BenchmarkArticulated steps each feature model from its keyframe
// (bench/articulated-speed.sh compares the same files with MuJoCo; ball
// and weld were the slowest against MuJoCo 2.2.2 before issue 46's
// speed work).
func BenchmarkArticulated(b *testing.B) {
	for _, name := range []string{"stiff_arm", "combined", "limits", "weld", "tendon", "ball", "implicit_spin"} {
		b.Run(name, func(b *testing.B) {
			am, err := Load(filepath.Join("testdata", "articulated", name+".xml"), Options{})
			if err != nil {
				b.Fatal(err)
			}
			m := am.Model
			d := articulated.NewData(m)
			reset := func() {
				if err := articulated.ResetKey(m, d, 0); err != nil {
					b.Fatal(err)
				}
			}
			reset()
			for b.Loop() {
				articulated.Step(m, d)
				if d.Time > 2 {
					reset()
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
		})
	}
}
