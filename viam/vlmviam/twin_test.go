package vlmviam

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/golang/geo/r3"
	"go.viam.com/rdk/components/arm"
	"go.viam.com/rdk/logging"
	"go.viam.com/rdk/referenceframe"
	"go.viam.com/rdk/spatialmath"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/vlmrb/vlmrb/sim/articulated"
)

const arm6 = "testdata/arm6.xml"

// randomInputs draws joint values uniformly within the limits (hinges
// within ±π where wider).
func randomInputs(rng *rand.Rand, tw *Twin) []float64 {
	q := make([]float64, len(tw.Joints))
	for i, l := range tw.Frame.DoF() {
		lo, hi := l.Min, l.Max
		if !tw.Joints[i].slide {
			lo, hi = math.Max(lo, -math.Pi), math.Min(hi, math.Pi)
		}
		q[i] = lo + rng.Float64()*(hi-lo)
	}
	return q
}

// quatAngle is the rotation angle (rad) between two unit quaternions.
func quatAngle(a, b [4]float64) float64 {
	r := qmul(a, qconj(b))
	return 2 * math.Atan2(math.Sqrt(r[1]*r[1]+r[2]*r[2]+r[3]*r[3]), math.Abs(r[0]))
}

func poseQuat(p spatialmath.Pose) [4]float64 {
	q := p.Orientation().Quaternion()
	return [4]float64{q.Real, q.Imag, q.Jmag, q.Kmag}
}

// TestTwinFKMatchesMJCF: Viam's forward kinematics of the ModelFrame built
// from the MJCF chain agrees with the articulated engine's (MuJoCo's
// mj_kinematics) at 200 random joint configurations, for the site, a body
// and the default end effector: ≤ 1e-6 m and ≤ 1e-6 rad.
func TestTwinFKMatchesMJCF(t *testing.T) {
	for _, ee := range []string{"attachment_site", "wrist_3_link", ""} {
		tw, err := LoadTwin(arm6, ee)
		if err != nil {
			t.Fatal(err)
		}
		if mc := tw.Frame.ModelConfig(); mc == nil || mc.OriginalFile == nil || mc.OriginalFile.Extension != "json" {
			t.Fatalf("%q: the model frame carries no JSON file for GetKinematics", ee)
		}
		if got := len(tw.Frame.DoF()); got != 6 {
			t.Fatalf("%q: model frame has %d DoF, want 6", ee, got)
		}
		m := tw.Art.Model
		d := articulated.NewData(m)
		rng := rand.New(rand.NewPCG(7, 11))
		worstP, worstR := 0.0, 0.0
		for range 200 {
			q := randomInputs(rng, tw)
			tw.SetInputs(d, q)
			articulated.Forward(m, d)
			p, qq := tw.EEPose(d)
			vp, err := fkPose(tw.Frame, copyInputs(q))
			if err != nil {
				t.Fatal(err)
			}
			pt := vp.Point()
			e := math.Sqrt(sq(pt.X/1000-p[0]) + sq(pt.Y/1000-p[1]) + sq(pt.Z/1000-p[2]))
			worstP = math.Max(worstP, e)
			worstR = math.Max(worstR, quatAngle(poseQuat(vp), qq))
		}
		t.Logf("end effector %q: worst FK difference %.3g m, %.3g rad over 200 configurations", ee, worstP, worstR)
		if worstP > 1e-6 || worstR > 1e-6 {
			t.Fatalf("end effector %q: Viam FK differs from MJCF FK by %.3g m, %.3g rad", ee, worstP, worstR)
		}
	}
}

// TestTwinZeroPose: at all-zero joints the site is where the UR5e-like
// link offsets put it by hand: x = a2 + a3 = 0.8172, y = 0.138 − 0.131 +
// 0.127 + 0.0996 = 0.2336, z = d1 − d5 = 0.1625 − 0.0997 = 0.0628 (m).
func TestTwinZeroPose(t *testing.T) {
	tw, err := LoadTwin(arm6, "attachment_site")
	if err != nil {
		t.Fatal(err)
	}
	p, err := fkPose(tw.Frame, make([]referenceframe.Input, 6))
	if err != nil {
		t.Fatal(err)
	}
	want := r3.Vector{X: 817.2, Y: 233.6, Z: 62.8}
	if d := p.Point().Sub(want).Norm(); d > 1e-6 {
		t.Fatalf("zero pose end %v mm, want %v", p.Point(), want)
	}
}

func newTestTwin(t *testing.T, c TwinConfig) *TwinArm {
	t.Helper()
	if c.Model == "" {
		c.Model = arm6
	}
	a, err := newTwinArm(arm.Named("arm").AsNamed(), &c, logging.NewTestLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close(context.Background()) })
	return a
}

// TestTwinMoveToJointPositions: the position actuators bring every joint
// to the target within the tolerance and the move returns; the end is
// then where the ModelFrame puts the target joints.
func TestTwinMoveToJointPositions(t *testing.T) {
	a := newTestTwin(t, TwinConfig{Keyframe: "home", EndEffector: "attachment_site", Speed: 10, ToleranceRad: 1e-4})
	ctx := context.Background()
	q0, err := a.JointPositions(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	home := []float64{-1.5708, -1.5708, 1.5708, -1.5708, -1.5708, 0}
	for i, v := range copyInputs(q0) {
		if math.Abs(v-home[i]) > 1e-12 {
			t.Fatalf("start joints %v, want the keyframe %v", q0, home)
		}
	}
	target := []float64{-1.2, -1.3, 1.9, -1.8, -1.4, 0.6}
	if err := a.MoveToJointPositions(ctx, copyInputs(target), nil); err != nil {
		t.Fatal(err)
	}
	q, _ := a.JointPositions(ctx, nil)
	for i, v := range copyInputs(q) {
		if math.Abs(v-target[i]) > 1e-4 {
			t.Fatalf("joint %d at %v after the move, want %v ± 1e-4", i, v, target[i])
		}
	}
	moving, _ := a.IsMoving(ctx)
	if moving {
		t.Fatal("IsMoving after the move returned")
	}
	end, _ := a.EndPosition(ctx, nil)
	want, _ := fkPose(a.ModelFrame(), copyInputs(target))
	// 1e-4 rad on joints ≤ 1 m from the end: ≤ 0.6 mm
	if d := end.Point().Sub(want.Point()).Norm(); d > 0.6 {
		t.Fatalf("end %v mm is %.3f mm from the target's FK %v", end.Point(), d, want.Point())
	}
	if err := a.MoveToJointPositions(ctx, copyInputs([]float64{0, 9, 0, 0, 0, 0}), nil); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("out-of-range target: %v, want InvalidArgument", err)
	}
	if err := a.MoveToJointPositions(ctx, copyInputs([]float64{0, 0}), nil); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("2 joints for 6: %v, want InvalidArgument", err)
	}
}

// TestTwinMoveToPosition: an absolute pose (the FK of other joints) is
// reached through IK on the ModelFrame, measured by the MJCF kinematics.
func TestTwinMoveToPosition(t *testing.T) {
	a := newTestTwin(t, TwinConfig{Keyframe: "home", EndEffector: "attachment_site", Speed: 10, ToleranceRad: 1e-5})
	ctx := context.Background()
	goal, err := fkPose(a.ModelFrame(), copyInputs([]float64{-1.3, -1.4, 1.6, -1.6, -1.5, 0.3}))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.MoveToPosition(ctx, goal, nil); err != nil {
		t.Fatal(err)
	}
	end, _ := a.EndPosition(ctx, nil)
	if d := end.Point().Sub(goal.Point()).Norm(); d > 0.2 {
		t.Fatalf("end %v is %.3f mm from the goal %v", end.Point(), d, goal.Point())
	}
	if r := quatAngle(poseQuat(end), poseQuat(goal)); r > 1e-3 {
		t.Fatalf("end orientation %.4f rad from the goal's", r)
	}
	far := spatialmath.NewPoseFromPoint(r3.Vector{X: 5000})
	if err := a.MoveToPosition(ctx, far, nil); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("unreachable pose: %v, want InvalidArgument", err)
	}
}

// TestTwinStop: Stop during a long move ends it with Aborted, and the arm
// stays near where it was stopped (far from the target) instead of going on.
func TestTwinStop(t *testing.T) {
	// a tenth of real time, so the stop lands early in the swing
	a := newTestTwin(t, TwinConfig{Keyframe: "home", Speed: 0.1})
	ctx := context.Background()
	target := []float64{1.5, -0.5, 0.5, -1.0, 1.0, 2.5}
	errc := make(chan error, 1)
	go func() { errc <- a.MoveToJointPositions(ctx, copyInputs(target), nil) }()
	time.Sleep(150 * time.Millisecond)
	if moving, _ := a.IsMoving(ctx); !moving {
		t.Fatal("IsMoving false during a move")
	}
	if err := a.Stop(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; status.Code(err) != codes.Aborted {
		t.Fatalf("stopped move returned %v, want Aborted", err)
	}
	atStop, _ := a.JointPositions(ctx, nil)
	for t0 := time.Now(); ; time.Sleep(10 * time.Millisecond) {
		if moving, _ := a.IsMoving(ctx); !moving {
			break
		}
		if time.Since(t0) > 20*time.Second {
			t.Fatal("still moving 20 s after Stop")
		}
	}
	later, _ := a.JointPositions(ctx, nil)
	home := []float64{-1.5708, -1.5708, 1.5708, -1.5708, -1.5708, 0}
	for i := range target {
		drift := math.Abs(later[i] - atStop[i])
		left := math.Abs(target[i] - later[i])
		total := math.Abs(target[i] - home[i])
		// a joint stopped mid-swing coasts a little (ζ≈1 servo), never on to the target
		if drift > 0.1*total || left < 0.5*total {
			t.Fatalf("joint %d: %.3f rad after Stop (drift %.3f), %.3f of %.3f rad still to go; Stop did not halt it", i, later[i], drift, left, total)
		}
	}
	// a cancelled context ends a move the same way
	cctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if err := a.MoveToJointPositions(cctx, copyInputs(target), nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("move under a 100 ms context: %v", err)
	}
}

// TestTwinGeometries: boxes, spheres and capsules of the chain come back
// at their MJCF poses; the cylinder is skipped and said so; the floor
// (world body) is not the arm's.
func TestTwinGeometries(t *testing.T) {
	tw, err := LoadTwin(arm6, "attachment_site")
	if err != nil {
		t.Fatal(err)
	}
	d := articulated.NewData(tw.Art.Model)
	articulated.Forward(tw.Art.Model, d)
	gs, err := tw.Geometries(d)
	if err != nil {
		t.Fatal(err)
	}
	if len(gs) != 6 || len(tw.Skipped) != 1 || !strings.Contains(tw.Skipped[0], "cylinder") {
		t.Fatalf("%d geometries, skipped %v; want 6 and the cylinder skipped", len(gs), tw.Skipped)
	}
	// the upper arm capsule: from the shoulder (0, 138, 162.5) mm along
	// world x (the link turned 90° about y) for 425 mm, radius 50
	var found bool
	for _, g := range gs {
		p := g.Pose().Point()
		if p.Sub(r3.Vector{X: 212.5, Y: 138, Z: 162.5}).Norm() < 1e-6 {
			found = true
			cfg, _ := spatialmath.NewGeometryConfig(g)
			if cfg.Type != "capsule" || math.Abs(cfg.R-50) > 1e-9 || math.Abs(cfg.L-525) > 1e-9 {
				t.Fatalf("upper arm geometry %+v, want a capsule r 50 L 525 mm", cfg)
			}
			z := spatialmath.Compose(g.Pose(), spatialmath.NewPoseFromPoint(r3.Vector{Z: 1})).Point().Sub(p)
			if math.Abs(math.Abs(z.X)-1) > 1e-9 {
				t.Fatalf("upper arm capsule axis %v, want along world x", z)
			}
		}
	}
	if !found {
		t.Fatalf("no geometry at the upper arm's midpoint (212.5, 138, 162.5) mm: %v", gs)
	}
}

// TestTwinBadModels: each wrong model is an InvalidArgument naming the problem.
func TestTwinBadModels(t *testing.T) {
	dir := t.TempDir()
	mk := func(joint, act string) string {
		return `<mujoco><option><flag contact="disable"/></option><worldbody><body name="l1">` +
			`<inertial pos="0 0 0" mass="1" diaginertia="0.1 0.1 0.1"/>` + joint +
			`</body></worldbody><actuator>` + act + `</actuator></mujoco>`
	}
	cases := []struct{ name, xml, cfg, want string }{
		{"missing", "", "", "cannot load"},
		{"motor", mk(`<joint name="j" axis="0 0 1"/>`, `<motor joint="j"/>`), "", "not a position actuator"},
		{"noact", mk(`<joint name="j" axis="0 0 1"/>`, ``), "", "has no actuator"},
		{"ball", mk(`<joint name="j" type="ball"/>`, ``), "", "ball joint"},
		{"gear", mk(`<joint name="j" axis="0 0 1"/>`, `<position joint="j" kp="10" gear="2"/>`), "", "gear 1"},
		{"key", mk(`<joint name="j" axis="0 0 1"/>`, `<position joint="j" kp="10"/>`), "nokey", "no keyframe"},
		{"ee", mk(`<joint name="j" axis="0 0 1"/>`, `<position joint="j" kp="10"/>`), "ee:nosuch", "neither a site nor a body"},
	}
	for _, c := range cases {
		path := filepath.Join(dir, c.name+".xml")
		if c.xml != "" {
			if err := os.WriteFile(path, []byte(c.xml), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		cfg := &TwinConfig{Model: path}
		if ee, ok := strings.CutPrefix(c.cfg, "ee:"); ok {
			cfg.EndEffector = ee
		} else {
			cfg.Keyframe = c.cfg
		}
		_, err := newTwinArm(arm.Named("arm").AsNamed(), cfg, logging.NewTestLogger(t))
		if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%s: %v; want InvalidArgument with %q", c.name, err, c.want)
		}
	}
	// a joint beyond the end effector is not part of the arm
	if _, err := LoadTwin(arm6, "wrist_2_link"); status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "off the chain") {
		t.Fatalf("end effector before the last joint: %v", err)
	}
	// through viam-server's attribute conversion and the registered constructor
	if _, err := mkConf[*TwinConfig](t, arm.API, TwinArmModel, "a", map[string]any{"modle": arm6}); err == nil || !strings.Contains(err.Error(), `unknown attribute "modle"`) {
		t.Fatalf("unknown key: %v", err)
	}
	conf := mustConf[*TwinConfig](t, arm.API, TwinArmModel, "a", map[string]any{"model": arm6, "keyframe": "home", "speed": 2.5})
	a, err := NewTwinArm(context.Background(), nil, conf, logging.NewTestLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	if q, _ := a.JointPositions(context.Background(), nil); len(q) != 6 || math.Abs(q[1]+1.5708) > 1e-12 {
		t.Fatalf("registered constructor: joints %v, want the home keyframe", q)
	}
	a.Close(context.Background())
	if _, _, err := (&TwinConfig{}).Validate("x"); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("empty model: %v", err)
	}
}

// BenchmarkTwinStep steps the 6-joint arm and reports simulated seconds
// per wall second (how much faster than real time the twin can run).
func BenchmarkTwinStep(b *testing.B) {
	tw, err := LoadTwin(arm6, "attachment_site")
	if err != nil {
		b.Fatal(err)
	}
	m := tw.Art.Model
	d := articulated.NewData(m)
	for i, j := range tw.Joints {
		d.Ctrl[j.act] = 0.3 * float64(i)
	}
	b.ResetTimer()
	t0 := time.Now()
	for b.Loop() {
		articulated.Step(m, d)
	}
	el := time.Since(t0).Seconds()
	b.ReportMetric(float64(b.N)*m.Opt.Timestep/el, "sim_s/wall_s")
	b.ReportMetric(el/float64(b.N)*1e6, "us/step")
}

// chainXML exercises what arm6 does not: joint anchors off the body
// origin, a slide joint with a ref, tilted axes, two joints on one body
// and rotated body frames.
const chainXML = `<mujoco model="chain"><compiler angle="radian"/><option><flag contact="disable"/></option>
<worldbody><body name="a" pos="0.1 -0.2 0.3" quat="0.9 0.1 -0.3 0.2">
  <inertial pos="0 0 0" mass="1" diaginertia="0.01 0.01 0.01"/>
  <joint name="h1" axis="0.3 0.4 0.866" pos="0.05 0.02 -0.03" range="-2 2"/>
  <body name="b" pos="0 0.25 0.1" euler="0.4 -0.2 1.1">
    <inertial pos="0 0 0" mass="1" diaginertia="0.01 0.01 0.01"/>
    <joint name="s1" type="slide" axis="1 1 0" ref="0.05" range="-0.2 0.3"/>
    <joint name="h2" axis="0 1 0" pos="0.1 0 0" range="-1.5 1.5"/>
    <body name="c" pos="0.2 0 0.05">
      <inertial pos="0 0 0" mass="1" diaginertia="0.01 0.01 0.01"/>
      <joint name="h3" axis="1 0 0" ref="0.3" range="-1 1.5"/>
      <site name="tip" pos="0.03 0.04 0.1" euler="0.1 0.2 0.3"/>
    </body></body></body></worldbody>
<actuator><position joint="h1" kp="10"/><position joint="s1" kp="10"/><position joint="h2" kp="10"/><position joint="h3" kp="10"/></actuator></mujoco>`

// TestTwinFKAnchorsSlidesRefs: on chainXML, Viam's FK of the ModelFrame
// matches the MJCF kinematics (≤ 1e-6 m, 1e-6 rad) at 200 random
// configurations, slides in mm and inputs measured from each joint's ref.
func TestTwinFKAnchorsSlidesRefs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "chain.xml")
	if err := os.WriteFile(path, []byte(chainXML), 0o644); err != nil {
		t.Fatal(err)
	}
	tw, err := LoadTwin(path, "tip")
	if err != nil {
		t.Fatal(err)
	}
	lim := tw.Frame.DoF()
	if len(lim) != 4 || math.Abs(lim[1].Min-(-250)) > 1e-9 || math.Abs(lim[1].Max-250) > 1e-9 {
		t.Fatalf("limits %v; want 4 joints, the slide's in mm from its ref: [-250, 250]", lim)
	}
	m := tw.Art.Model
	d := articulated.NewData(m)
	rng := rand.New(rand.NewPCG(3, 5))
	worstP, worstR := 0.0, 0.0
	for range 200 {
		q := randomInputs(rng, tw)
		tw.SetInputs(d, q)
		articulated.Forward(m, d)
		p, qq := tw.EEPose(d)
		vp, err := fkPose(tw.Frame, copyInputs(q))
		if err != nil {
			t.Fatal(err)
		}
		pt := vp.Point()
		worstP = math.Max(worstP, math.Sqrt(sq(pt.X/1000-p[0])+sq(pt.Y/1000-p[1])+sq(pt.Z/1000-p[2])))
		worstR = math.Max(worstR, quatAngle(poseQuat(vp), qq))
	}
	t.Logf("worst FK difference %.3g m, %.3g rad over 200 configurations", worstP, worstR)
	if worstP > 1e-6 || worstR > 1e-6 {
		t.Fatalf("Viam FK differs from MJCF FK by %.3g m, %.3g rad", worstP, worstR)
	}
}

// TestTwinCloseDuringMove: closing the arm ends a move in progress with an
// error (no panic), and calls after Close are FailedPrecondition.
func TestTwinCloseDuringMove(t *testing.T) {
	a := newTestTwin(t, TwinConfig{Keyframe: "home", Speed: 0.1})
	ctx := context.Background()
	errc := make(chan error, 1)
	go func() {
		errc <- a.MoveToJointPositions(ctx, copyInputs([]float64{1, -1, 1, -1, 1, 1}), nil)
	}()
	time.Sleep(50 * time.Millisecond)
	if err := a.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err == nil {
		t.Fatal("a move cut by Close returned no error")
	}
	if _, err := a.JointPositions(ctx, nil); status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("JointPositions after Close: %v", err)
	}
	if err := a.Close(ctx); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

// TestTwinServoAndReset: MoveToJointPositions with the servo extra sets
// the targets and returns while the arm is still on its way (a 0.5 rad
// swing takes the servo hundreds of ms; the call returns before the arm
// has covered a tenth of it), and the arm then arrives by itself;
// DoCommand reset places the arm at rest at the given joints with its
// servos holding them; a reset with the wrong number of joints, or one
// out of range, is InvalidArgument.
func TestTwinServoAndReset(t *testing.T) {
	a := newTestTwin(t, TwinConfig{Keyframe: "home", Speed: 1, ToleranceRad: 1e-3})
	ctx := context.Background()
	home := []float64{-1.5708, -1.5708, 1.5708, -1.5708, -1.5708, 0}
	target := slices.Clone(home)
	target[0] += 0.5
	if err := a.MoveToJointPositions(ctx, copyInputs(target), map[string]any{ServoExtra: true}); err != nil {
		t.Fatal(err)
	}
	q, _ := a.JointPositions(ctx, nil)
	if moved := copyInputs(q)[0] - home[0]; moved > 0.05 {
		t.Fatalf("the servo call returned after joint 0 moved %.3f of 0.5 rad; it should not wait", moved)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		q, _ = a.JointPositions(ctx, nil)
		if math.Abs(copyInputs(q)[0]-target[0]) < 1e-2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("joint 0 at %v 20 s after the servo target %v", copyInputs(q)[0], target[0])
		}
		time.Sleep(10 * time.Millisecond)
	}
	place := []float64{-1.0, -1.2, 1.4, -1.7, -1.5, 0.3}
	args := make([]any, len(place))
	for i, v := range place {
		args[i] = v
	}
	if _, err := a.DoCommand(ctx, map[string]any{"reset": map[string]any{"joints": args}}); err != nil {
		t.Fatal(err)
	}
	st, err := a.DoCommand(ctx, map[string]any{"state": true})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range st["joints"].([]any) {
		// placed exactly; the servos (ctrl = the placed joints) hold them,
		// so between the reset and this read the arm has barely moved
		if d := math.Abs(v.(float64) - place[i]); d > 1e-3 {
			t.Fatalf("joint %d at %v after the reset to %v", i, v, place[i])
		}
	}
	for _, bad := range []any{map[string]any{"joints": args[:2]}, map[string]any{"joints": []any{0.0, 9.0, 0.0, 0.0, 0.0, 0.0}}, "all"} {
		if _, err := a.DoCommand(ctx, map[string]any{"reset": bad}); status.Code(err) != codes.InvalidArgument {
			t.Fatalf("reset %v: %v, want InvalidArgument", bad, err)
		}
	}
}
