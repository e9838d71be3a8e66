package vlmviam

import (
	"context"
	"encoding/json"
	"fmt"
	commonpb "go.viam.com/api/common/v1"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/golang/geo/r3"
	"go.viam.com/rdk/components/arm"
	"go.viam.com/rdk/logging"
	"go.viam.com/rdk/referenceframe"
	"go.viam.com/rdk/resource"
	"go.viam.com/rdk/spatialmath"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/vlmrb/vlmrb/sim"
	"github.com/vlmrb/vlmrb/sim/articulated"
	"github.com/vlmrb/vlmrb/sim/mjcf"
)

// TwinArmModel is the digital twin of an MJCF arm on sim/articulated.
var TwinArmModel = resource.NewModel(Namespace, ModuleName, "mjcf-arm")

// TwinConfig configures the MJCF arm twin.
type TwinConfig struct {
	// Model is the MJCF file of the arm: hinge (or slide) joints in one
	// chain from the world to the end effector, one <position> actuator
	// (gear 1) per joint.
	Model string `json:"model"`
	// Keyframe names the <key> the arm starts in (qpos0 when empty).
	Keyframe string `json:"keyframe,omitempty"`
	// EndEffector is a site or body name (a site wins); default: the
	// last body of the chain.
	EndEffector string `json:"end_effector,omitempty"`
	// ToleranceRad is how close every joint must be (rad, or mm for
	// slides) for MoveToJointPositions to return; default 1e-3.
	ToleranceRad float64 `json:"tolerance_rad,omitempty"`
	// TimeoutS bounds a move (wall seconds); default 20.
	TimeoutS float64 `json:"timeout_s,omitempty"`
	// Speed is simulated seconds per wall second; default 1 (real time).
	Speed float64 `json:"speed,omitempty"`
	// Attributes collects unknown keys so Validate can reject them.
	Attributes map[string]any `json:"-"`
}

// Validate checks the attributes; the twin has no dependencies.
func (c *TwinConfig) Validate(path string) ([]string, []string, error) {
	if err := unknownKeys(c.Attributes, "model", "keyframe", "end_effector", "tolerance_rad", "timeout_s", "speed"); err != nil {
		return nil, nil, err
	}
	if c.Model == "" {
		return nil, nil, invalidArg(`mjcf-arm: "model" is empty; give the path of the arm's MJCF file (model.xml)`)
	}
	if !(c.ToleranceRad >= 0 && c.ToleranceRad <= 0.5) {
		return nil, nil, invalidArg(`mjcf-arm: "tolerance_rad" is %v; use 0 (default 1e-3) up to 0.5`, c.ToleranceRad)
	}
	if !(c.TimeoutS >= 0 && c.TimeoutS <= 3600) {
		return nil, nil, invalidArg(`mjcf-arm: "timeout_s" is %v; use 0 (default 20) up to 3600`, c.TimeoutS)
	}
	if !(c.Speed >= 0 && c.Speed <= 1000) {
		return nil, nil, invalidArg(`mjcf-arm: "speed" is %v; use 0 (default 1: real time) up to 1000`, c.Speed)
	}
	return nil, nil, nil
}

// twinJoint is one arm joint: its engine index, qpos address, MuJoCo
// ref (Viam's input is qpos − ref, so 0 is the MJCF pose), the actuator
// driving it and whether it slides (Viam input in mm).
type twinJoint struct {
	name        string
	jnt, qadr   int
	dadr, act   int
	ref         float64
	slide       bool
	lo, hi      float64 // Viam units
	hasLimits   bool
	ctrlLo      float64 // ctrlrange in qpos units
	ctrlHi      float64
	ctrlLimited bool
}

// Twin is the kinematic and dynamic state of an MJCF arm: the compiled
// model, the joints in chain order and the end effector (a frame on a body).
type Twin struct {
	Art    *mjcf.Model
	Joints []twinJoint
	EEBody int
	EEPos  [3]float64 // m, in the body frame
	EEQuat [4]float64 // w x y z
	EEName string
	Frame  referenceframe.Model
	// geoms are the box, sphere and capsule geoms of the chain's bodies
	// (local poses, m), Skipped what was left out and why.
	geoms   []twinGeom
	Skipped []string
}

type twinGeom struct {
	body  int
	label string
	kind  string
	pos   [3]float64
	quat  [4]float64
	size  [3]float64 // sim conventions: half extents, radius, half length
}

// LoadTwin reads an MJCF arm and builds its twin; every problem is an
// InvalidArgument error saying what to change.
func LoadTwin(path, endEffector string) (*Twin, error) {
	a, err := mjcf.Load(path, mjcf.Options{})
	if err != nil {
		return nil, invalidArg("mjcf-arm: cannot load %q for the articulated engine: %v", path, err)
	}
	m := a.Model
	t := &Twin{Art: a, EEQuat: [4]float64{1, 0, 0, 0}}
	// the end effector
	nb := len(m.Bodies)
	t.EEBody = nb - 1
	t.EEName = m.Bodies[nb-1].Name
	if endEffector != "" {
		if s, ok := a.Site(endEffector); ok {
			t.EEBody, t.EEPos, t.EEQuat, t.EEName = a.Sites[s].Body, a.Sites[s].Pos, a.Sites[s].Quat, endEffector
		} else if b := bodyIndex(m, endEffector); b > 0 {
			t.EEBody, t.EEName = b, endEffector
		} else {
			return nil, invalidArg("mjcf-arm: end_effector %q is neither a site nor a body of %s; name one of its sites or bodies", endEffector, path)
		}
	}
	if t.EEName == "" {
		t.EEName = "end_effector"
	}
	// the chain from the world to the end effector, root first
	var chain []int
	for b := t.EEBody; b > 0; b = m.Bodies[b].Parent {
		chain = append([]int{b}, chain...)
	}
	onChain := make(map[int]bool, len(chain))
	for _, b := range chain {
		onChain[b] = true
	}
	jointAct := map[int]int{}
	for i, act := range m.Actuators {
		name := act.Name
		if name == "" {
			name = fmt.Sprintf("#%d", i)
		}
		if act.Trn != articulated.TrnJoint {
			return nil, invalidArg("mjcf-arm: actuator %s drives a tendon; the twin needs one <position> actuator on each arm joint", name)
		}
		kp := act.GainPrm[0]
		if act.GainType != articulated.GainFixed || act.BiasType != articulated.BiasAffine || kp <= 0 || act.BiasPrm[0] != 0 || act.BiasPrm[1] != -kp || act.Gear != 1 {
			return nil, invalidArg("mjcf-arm: actuator %s is not a position actuator with gear 1 (gain %v, bias %v, gear %v); use <position joint=... kp=...> for every joint", name, act.GainPrm, act.BiasPrm, act.Gear)
		}
		if _, dup := jointAct[act.Joint]; dup {
			return nil, invalidArg("mjcf-arm: joint %q has two actuators; keep one <position> actuator per joint", m.Joints[act.Joint].Name)
		}
		jointAct[act.Joint] = i
	}
	for j, jt := range m.Joints {
		name := jt.Name
		if name == "" {
			name = fmt.Sprintf("#%d", j)
		}
		if !onChain[jt.Body] {
			return nil, invalidArg("mjcf-arm: joint %s is on body %q, off the chain from the world to the end effector %q; the twin drives a serial arm (set end_effector, or remove the joint)", name, m.Bodies[jt.Body].Name, t.EEName)
		}
		if jt.Type != articulated.Hinge && jt.Type != articulated.Slide {
			return nil, invalidArg("mjcf-arm: joint %s is a %v joint; the twin supports hinge and slide joints only", name, jt.Type)
		}
		ai, ok := jointAct[j]
		if !ok {
			return nil, invalidArg("mjcf-arm: joint %s has no actuator; add <position joint=%q kp=...> to <actuator>", name, jt.Name)
		}
		act := m.Actuators[ai]
		tj := twinJoint{name: name, jnt: j, qadr: m.QposAdr(j), dadr: m.DofAdr(j), act: ai, ref: jt.Ref, slide: jt.Type == articulated.Slide,
			ctrlLo: act.CtrlRange[0], ctrlHi: act.CtrlRange[1], ctrlLimited: act.CtrlLimited}
		unit := 1.0
		if tj.slide {
			unit = 1000
		}
		if jt.Limited {
			tj.lo, tj.hi, tj.hasLimits = (jt.Range[0]-jt.Ref)*unit, (jt.Range[1]-jt.Ref)*unit, true
		}
		t.Joints = append(t.Joints, tj)
	}
	if len(t.Joints) == 0 {
		return nil, invalidArg("mjcf-arm: %s has no joints between the world and %q; the twin needs an arm", path, t.EEName)
	}
	if len(m.Actuators) != len(t.Joints) {
		return nil, invalidArg("mjcf-arm: %s has %d actuators for %d joints; keep exactly one <position> per joint", path, len(m.Actuators), len(t.Joints))
	}
	if t.Frame, err = t.modelFrame(); err != nil {
		return nil, invalidArg("mjcf-arm: building the Viam kinematic model of %s: %v", path, err)
	}
	t.loadGeoms(onChain)
	return t, nil
}

func bodyIndex(m *articulated.Model, name string) int {
	for i := 1; i < len(m.Bodies); i++ {
		if m.Bodies[i].Name == name {
			return i
		}
	}
	return -1
}

func quatOrient(q [4]float64) *spatialmath.OrientationConfig {
	oc, _ := spatialmath.NewOrientationConfig(&spatialmath.Quaternion{Real: q[0], Imag: q[1], Jmag: q[2], Kmag: q[3]})
	return oc
}

func mm(v [3]float64) r3.Vector { return r3.Vector{X: v[0] * 1000, Y: v[1] * 1000, Z: v[2] * 1000} }

// modelFrame builds Viam's kinematic model (SVA links and joints, mm and
// degrees) from the MJCF chain: each body a static link (its pos and quat
// in the parent), each joint a revolute or prismatic frame on its axis,
// between links to and back from its anchor when the anchor is not the
// body origin; the end effector a last static link.
func (t *Twin) modelFrame() (referenceframe.Model, error) {
	m := t.Art.Model
	cfg := &referenceframe.ModelConfigJSON{Name: t.Art.Name}
	used := map[string]int{}
	id := func(s string) string {
		used[s]++
		if used[s] > 1 {
			return fmt.Sprintf("%s_%d", s, used[s])
		}
		return s
	}
	var chain []int
	for b := t.EEBody; b > 0; b = m.Bodies[b].Parent {
		chain = append([]int{b}, chain...)
	}
	prev := referenceframe.World
	byJoint := map[int]twinJoint{}
	for _, j := range t.Joints {
		byJoint[j.jnt] = j
	}
	for _, b := range chain {
		body := m.Bodies[b]
		name := body.Name
		if name == "" {
			name = fmt.Sprintf("body%d", b)
		}
		lid := id("link_" + name)
		cfg.Links = append(cfg.Links, referenceframe.LinkConfig{ID: lid, Parent: prev, Translation: mm(body.Pos), Orientation: quatOrient(body.Quat)})
		prev = lid
		for j := range m.Joints {
			if m.Joints[j].Body != b {
				continue
			}
			jt, tj := m.Joints[j], byJoint[j]
			anchored := jt.Pos != [3]float64{}
			if anchored {
				aid := id("anchor_" + tj.name)
				cfg.Links = append(cfg.Links, referenceframe.LinkConfig{ID: aid, Parent: prev, Translation: mm(jt.Pos)})
				prev = aid
			}
			jc := referenceframe.JointConfig{ID: id(tj.name), Parent: prev, Axis: spatialmath.AxisConfig{X: jt.Axis[0], Y: jt.Axis[1], Z: jt.Axis[2]}}
			if tj.slide {
				jc.Type, jc.Min, jc.Max = "prismatic", -1e5, 1e5
				if tj.hasLimits {
					jc.Min, jc.Max = tj.lo, tj.hi
				}
			} else {
				jc.Type, jc.Min, jc.Max = "revolute", -360, 360
				if tj.hasLimits {
					jc.Min, jc.Max = tj.lo*180/math.Pi, tj.hi*180/math.Pi
				}
			}
			cfg.Joints = append(cfg.Joints, jc)
			prev = jc.ID
			if anchored {
				uid := id("unanchor_" + tj.name)
				cfg.Links = append(cfg.Links, referenceframe.LinkConfig{ID: uid, Parent: prev, Translation: mm([3]float64{-jt.Pos[0], -jt.Pos[1], -jt.Pos[2]})})
				prev = uid
			}
		}
	}
	cfg.Links = append(cfg.Links, referenceframe.LinkConfig{ID: id(t.EEName), Parent: prev, Translation: mm(t.EEPos), Orientation: quatOrient(t.EEQuat)})
	// through JSON, so the model carries its file: viam-server serves it
	// to clients (GetKinematics), which convert joint units with it
	b, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, err
	}
	delete(raw, "original_file") // a null here would drop the file UnmarshalModelJSON keeps
	if b, err = json.Marshal(raw); err != nil {
		return nil, err
	}
	return referenceframe.UnmarshalModelJSON(b, t.Art.Name)
}

// loadGeoms keeps the box, sphere and capsule geoms of the chain's bodies
// (the compiled model's geoms, at their poses in their bodies' frames);
// planes, cylinders, ellipsoids and meshes are skipped.
func (t *Twin) loadGeoms(onChain map[int]bool) {
	for i, g := range t.Art.Geoms {
		label := g.Name
		if label == "" {
			label = fmt.Sprintf("geom%d", i)
		}
		if g.Body <= 0 || !onChain[g.Body] {
			continue // world or off-chain geoms are not the arm's
		}
		switch g.Type {
		case "box", "sphere", "capsule":
		default:
			t.Skipped = append(t.Skipped, fmt.Sprintf("%s (%s)", label, g.Type))
			continue
		}
		t.geoms = append(t.geoms, twinGeom{body: g.Body, label: label, kind: g.Type,
			pos: [3]float64{g.Pos.X, g.Pos.Y, g.Pos.Z}, quat: q4of(g.Rot), size: [3]float64{g.Size.X, g.Size.Y, g.Size.Z}})
	}
}

// Geometries returns the geoms at the body poses of d (mm, world = arm base).
func (t *Twin) Geometries(d *articulated.Data) ([]spatialmath.Geometry, error) {
	out := make([]spatialmath.Geometry, 0, len(t.geoms))
	for _, g := range t.geoms {
		p := qrot(d.Xquat[g.body], g.pos)
		p = [3]float64{p[0] + d.Xpos[g.body][0], p[1] + d.Xpos[g.body][1], p[2] + d.Xpos[g.body][2]}
		q := qmul(d.Xquat[g.body], g.quat)
		pose := spatialmath.NewPose(mm(p), &spatialmath.Quaternion{Real: q[0], Imag: q[1], Jmag: q[2], Kmag: q[3]})
		var geo spatialmath.Geometry
		var err error
		switch g.kind {
		case "box":
			geo, err = spatialmath.NewBox(pose, r3.Vector{X: 2000 * g.size[0], Y: 2000 * g.size[1], Z: 2000 * g.size[2]}, g.label)
		case "sphere":
			geo, err = spatialmath.NewSphere(pose, 1000*g.size[0], g.label)
		case "capsule":
			geo, err = spatialmath.NewCapsule(pose, 1000*g.size[0], 2000*(g.size[0]+g.size[1]), g.label)
		}
		if err != nil {
			return nil, fmt.Errorf("mjcf-arm: geom %s: %w", g.label, err)
		}
		out = append(out, geo)
	}
	return out, nil
}

// EEPose is the end effector's world pose in d (after Forward): position
// (m) and quaternion (w x y z).
func (t *Twin) EEPose(d *articulated.Data) ([3]float64, [4]float64) {
	b := t.EEBody
	p := qrot(d.Xquat[b], t.EEPos)
	return [3]float64{p[0] + d.Xpos[b][0], p[1] + d.Xpos[b][1], p[2] + d.Xpos[b][2]}, qmul(d.Xquat[b], t.EEQuat)
}

// Inputs reads the joints of d in Viam's units (rad or mm, from ref).
func (t *Twin) Inputs(d *articulated.Data) []float64 {
	out := make([]float64, len(t.Joints))
	for i, j := range t.Joints {
		out[i] = d.Qpos[j.qadr] - j.ref
		if j.slide {
			out[i] *= 1000
		}
	}
	return out
}

// SetInputs puts joint values (Viam units) into qpos.
func (t *Twin) SetInputs(d *articulated.Data, in []float64) {
	for i, j := range t.Joints {
		q := in[i]
		if j.slide {
			q /= 1000
		}
		d.Qpos[j.qadr] = q + j.ref
	}
}

// ctrlFor converts a joint target (Viam units) to the actuator's ctrl
// (qpos units) and checks it against the joint range and ctrlrange.
func (t *Twin) ctrlFor(i int, v float64) (float64, error) {
	j := t.Joints[i]
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, invalidArg("mjcf-arm: joint %s target is %v; give a finite value", j.name, v)
	}
	unit := "rad"
	if j.slide {
		unit = "mm"
	}
	if j.hasLimits && (v < j.lo-1e-9 || v > j.hi+1e-9) {
		return 0, invalidArg("mjcf-arm: joint %s target %v %s is outside its range [%v, %v]; keep targets within the MJCF range", j.name, v, unit, j.lo, j.hi)
	}
	q := v
	if j.slide {
		q /= 1000
	}
	q += j.ref
	if j.ctrlLimited && (q < j.ctrlLo-1e-9 || q > j.ctrlHi+1e-9) {
		return 0, invalidArg("mjcf-arm: joint %s target %v %s is outside its actuator's ctrlrange [%v, %v] (qpos units); keep targets within it", j.name, v, unit, j.ctrlLo, j.ctrlHi)
	}
	return q, nil
}

func q4of(q sim.Quat) [4]float64 { return [4]float64{q.W, q.X, q.Y, q.Z} }

func qconj(q [4]float64) [4]float64 { return [4]float64{q[0], -q[1], -q[2], -q[3]} }

func qmul(a, b [4]float64) [4]float64 {
	return [4]float64{
		a[0]*b[0] - a[1]*b[1] - a[2]*b[2] - a[3]*b[3],
		a[0]*b[1] + a[1]*b[0] + a[2]*b[3] - a[3]*b[2],
		a[0]*b[2] - a[1]*b[3] + a[2]*b[0] + a[3]*b[1],
		a[0]*b[3] + a[1]*b[2] - a[2]*b[1] + a[3]*b[0],
	}
}

func qrot(q [4]float64, v [3]float64) [3]float64 {
	r := qmul(qmul(q, [4]float64{0, v[0], v[1], v[2]}), qconj(q))
	return [3]float64{r[1], r[2], r[3]}
}

// TwinArm is a Viam arm on a Twin, stepped by its own goroutine at the
// model's timestep, paced to Speed × wall time (sim time follows the
// wall clock; when the machine falls behind by more than 0.1 s of sim
// time, the backlog is dropped, not replayed).
type TwinArm struct {
	resource.Named
	resource.AlwaysRebuild
	logger logging.Logger
	twin   *Twin
	tol    float64
	limit  time.Duration
	speed  float64

	mu     sync.Mutex
	d      *articulated.Data
	gen    uint64 // bumped by every new move and by Stop
	moving bool
	stop   chan struct{}
	done   chan struct{}
	steps  uint64

	closeOnce sync.Once
}

// NewTwinArm builds the arm from its config and starts stepping it.
func NewTwinArm(_ context.Context, _ resource.Dependencies, conf resource.Config, logger logging.Logger) (arm.Arm, error) {
	c, err := resource.NativeConfig[*TwinConfig](conf)
	if err != nil {
		return nil, err
	}
	a, err := newTwinArm(conf.ResourceName().AsNamed(), c, logger)
	if err != nil {
		return nil, err
	}
	return a, nil
}

func newTwinArm(named resource.Named, c *TwinConfig, logger logging.Logger) (*TwinArm, error) {
	if _, _, err := c.Validate(""); err != nil {
		return nil, err
	}
	t, err := LoadTwin(c.Model, c.EndEffector)
	if err != nil {
		return nil, err
	}
	m := t.Art.Model
	d := articulated.NewData(m)
	if c.Keyframe != "" {
		k, ok := m.Key(c.Keyframe)
		if !ok {
			return nil, invalidArg("mjcf-arm: %s has no keyframe %q; name one of its <key>s or leave keyframe empty", c.Model, c.Keyframe)
		}
		if err := articulated.ResetKey(m, d, k); err != nil {
			return nil, invalidArg("mjcf-arm: keyframe %q: %v", c.Keyframe, err)
		}
	}
	// hold the start pose
	for _, j := range t.Joints {
		d.Ctrl[j.act] = d.Qpos[j.qadr]
	}
	articulated.Forward(m, d)
	a := &TwinArm{Named: named, logger: logger, twin: t, tol: c.ToleranceRad, speed: c.Speed, d: d,
		limit: time.Duration(c.TimeoutS * float64(time.Second)), stop: make(chan struct{}), done: make(chan struct{})}
	if a.tol == 0 {
		a.tol = 1e-3
	}
	if a.limit == 0 {
		a.limit = 20 * time.Second
	}
	if a.speed == 0 {
		a.speed = 1
	}
	if logger != nil {
		logger.Infow("mjcf-arm loaded", "model", c.Model, "joints", len(t.Joints), "end_effector", t.EEName, "timestep_s", m.Opt.Timestep,
			"geometries", len(t.geoms), "geoms_skipped", strings.Join(t.Skipped, ", "), "warnings", len(t.Art.Warnings))
	}
	go a.run()
	return a, nil
}

// run steps the model at its timestep, paced to wall time × speed.
func (a *TwinArm) run() {
	defer close(a.done)
	m := a.twin.Art.Model
	h := m.Opt.Timestep
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	start := time.Now()
	a.mu.Lock()
	simStart := a.d.Time
	a.mu.Unlock()
	for {
		select {
		case <-a.stop:
			return
		case now := <-tick.C:
			target := simStart + a.speed*now.Sub(start).Seconds()
			a.mu.Lock()
			if target-a.d.Time > 0.1 {
				// fell behind: drop the backlog
				simStart, start = a.d.Time, now
				target = simStart
			}
			for a.d.Time+h/2 < target {
				articulated.Step(m, a.d)
				a.steps++
			}
			articulated.Forward(m, a.d)
			a.mu.Unlock()
		}
	}
}

// maxSpeed is the largest joint speed (rad/s or m/s) of d.
func (a *TwinArm) maxSpeed() float64 {
	v := 0.0
	for _, j := range a.twin.Joints {
		v = math.Max(v, math.Abs(a.d.Qvel[j.dadr]))
	}
	return v
}

// settleSpeed is the joint speed (rad/s) under which a joint within
// tolerance of its target counts as arrived.
const settleSpeed = 0.01

// ServoExtra is the extra of a MoveToJointPositions that only sets the
// targets and returns (a streaming servo command, as a UR's servoj): the
// policy runner sends it every tick on the joint path, and arms that do
// not know it ignore it.
const ServoExtra = "vlmrb_servo"

// MoveToJointPositions sets the position actuators' targets and blocks
// until every joint is within the tolerance of its target and slower than
// 0.01 rad/s, the timeout passes (DeadlineExceeded), ctx ends or Stop is
// called (Aborted). A cancelled move holds the arm where it is. With
// extra {"vlmrb_servo": true} it returns once the targets are set: the
// servos track them while the next command is computed.
func (a *TwinArm) MoveToJointPositions(ctx context.Context, pos []referenceframe.Input, extra map[string]any) error {
	if len(pos) != len(a.twin.Joints) {
		return invalidArg("mjcf-arm: %d joint positions for a %d-joint arm; give one per joint in chain order", len(pos), len(a.twin.Joints))
	}
	ctrl := make([]float64, len(pos))
	for i, p := range pos {
		var err error
		if ctrl[i], err = a.twin.ctrlFor(i, p); err != nil {
			return err
		}
	}
	a.mu.Lock()
	if a.d == nil {
		a.mu.Unlock()
		return failedPrecondition("mjcf-arm: closed")
	}
	for i, j := range a.twin.Joints {
		a.d.Ctrl[j.act] = ctrl[i]
	}
	a.gen++
	gen := a.gen
	if servo, _ := extra[ServoExtra].(bool); servo {
		a.moving = false
		a.mu.Unlock()
		return nil
	}
	a.moving = true
	a.mu.Unlock()
	deadline := time.NewTimer(a.limit)
	defer deadline.Stop()
	poll := time.NewTicker(2 * time.Millisecond)
	defer poll.Stop()
	for {
		select {
		case <-ctx.Done():
			a.hold(gen)
			return ctx.Err()
		case <-deadline.C:
			a.mu.Lock()
			if a.d == nil {
				a.mu.Unlock()
				return failedPrecondition("mjcf-arm: closed during the move")
			}
			worst := a.worst(ctrl)
			a.mu.Unlock()
			a.hold(gen)
			return status.Errorf(codes.DeadlineExceeded, "mjcf-arm: joints not within %v of the target after %v (worst error %.4g); raise timeout_s or check the actuators' gains", a.tol, a.limit, worst)
		case <-poll.C:
		}
		a.mu.Lock()
		if a.gen != gen || a.d == nil {
			a.mu.Unlock()
			return status.Error(codes.Aborted, "mjcf-arm: move stopped (Stop or a newer move)")
		}
		if a.worst(ctrl) <= a.tol && a.maxSpeed() < settleSpeed {
			a.moving = false
			a.mu.Unlock()
			return nil
		}
		a.mu.Unlock()
	}
}

// worst is the largest joint error to ctrl (Viam units). a.mu held.
func (a *TwinArm) worst(ctrl []float64) float64 {
	w := 0.0
	for i, j := range a.twin.Joints {
		e := math.Abs(a.d.Qpos[j.qadr] - ctrl[i])
		if j.slide {
			e *= 1000
		}
		w = math.Max(w, e)
	}
	return w
}

// hold sets the targets to the current joints if move gen is still the latest.
func (a *TwinArm) hold(gen uint64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.gen == gen && a.d != nil {
		a.holdLocked()
	}
}

func (a *TwinArm) holdLocked() {
	for _, j := range a.twin.Joints {
		a.d.Ctrl[j.act] = a.d.Qpos[j.qadr]
	}
	a.gen++
	a.moving = false
}

// Stop holds the arm where it is now (the position targets become the
// current joints) and ends the move in progress with Aborted.
func (a *TwinArm) Stop(context.Context, map[string]any) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.d != nil {
		a.holdLocked()
	}
	return nil
}

// IsMoving says whether a move is in progress or a joint still turns.
func (a *TwinArm) IsMoving(context.Context) (bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.d == nil {
		return false, nil
	}
	return a.moving || a.maxSpeed() >= settleSpeed, nil
}

// JointPositions returns the joints in chain order (rad; mm for slides),
// zero at the MJCF pose (qpos − ref).
func (a *TwinArm) JointPositions(context.Context, map[string]any) ([]referenceframe.Input, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.d == nil {
		return nil, failedPrecondition("mjcf-arm: closed")
	}
	return copyInputs(a.twin.Inputs(a.d)), nil
}

// CurrentInputs is JointPositions.
func (a *TwinArm) CurrentInputs(ctx context.Context) ([]referenceframe.Input, error) {
	return a.JointPositions(ctx, nil)
}

// GoToInputs is MoveThroughJointPositions.
func (a *TwinArm) GoToInputs(ctx context.Context, in ...[]referenceframe.Input) error {
	return a.MoveThroughJointPositions(ctx, in, nil, nil)
}

// MoveThroughJointPositions moves to each position in turn.
func (a *TwinArm) MoveThroughJointPositions(ctx context.Context, ps [][]referenceframe.Input, _ *arm.MoveOptions, _ map[string]any) error {
	for _, p := range ps {
		if err := a.MoveToJointPositions(ctx, p, nil); err != nil {
			return err
		}
	}
	return nil
}

// EndPosition is the end effector's pose from the MJCF forward kinematics
// (mm, arm base = MJCF world).
func (a *TwinArm) EndPosition(context.Context, map[string]any) (spatialmath.Pose, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.d == nil {
		return nil, failedPrecondition("mjcf-arm: closed")
	}
	p, q := a.twin.EEPose(a.d)
	return spatialmath.NewPose(mm(p), &spatialmath.Quaternion{Real: q[0], Imag: q[1], Jmag: q[2], Kmag: q[3]}), nil
}

// MoveToPosition solves IK on the ModelFrame for the absolute pose (from
// the current joints, then from up to 16 seeded random starts within the
// limits) and moves there with MoveToJointPositions. An unreachable pose
// is InvalidArgument.
func (a *TwinArm) MoveToPosition(ctx context.Context, pose spatialmath.Pose, extra map[string]any) error {
	if pose == nil {
		return invalidArg("mjcf-arm: MoveToPosition needs a pose")
	}
	cur, err := a.JointPositions(ctx, nil)
	if err != nil {
		return err
	}
	q, err := a.twin.SolveIK(copyInputs(cur), pose)
	if err != nil {
		return err
	}
	return a.MoveToJointPositions(ctx, copyInputs(q), extra)
}

// SolveIK returns joints putting the end effector at pose (within 0.1 mm
// and 1e-3 rad), from seed then from random starts.
func (t *Twin) SolveIK(seed []float64, pose spatialmath.Pose) ([]float64, error) {
	ik, err := NewIK(t.Frame)
	if err != nil {
		return nil, err
	}
	ik.MaxIter = 200
	rng := rand.New(rand.NewPCG(1, 2))
	lim := t.Frame.DoF()
	bestPos, bestRot := math.Inf(1), math.Inf(1)
	for try := 0; try < 17; try++ {
		s := seed
		if try > 0 {
			s = make([]float64, len(lim))
			for i, l := range lim {
				lo, hi := l.Min, l.Max
				if !t.Joints[i].slide {
					lo, hi = math.Max(lo, -math.Pi), math.Min(hi, math.Pi)
				}
				s[i] = lo + rng.Float64()*(hi-lo)
			}
		}
		q, pe, re, err := ik.Solve(s, pose)
		if err == nil && pe <= 0.1 && re <= 1e-3 {
			return q, nil
		}
		if pe < bestPos {
			bestPos, bestRot = pe, re
		}
	}
	return nil, invalidArg("mjcf-arm: no joint solution reaches the pose (best %.3g mm, %.3g rad off after 17 starts); the pose is out of reach or outside the joint limits", bestPos, bestRot)
}

// ModelFrame is Viam's kinematic model built from the MJCF chain.
func (a *TwinArm) ModelFrame() referenceframe.Model { return a.twin.Frame }

// Kinematics is the ModelFrame (rdk's InputEnabled; viam-server serves it
// to clients by GetKinematics).
func (a *TwinArm) Kinematics(context.Context) (referenceframe.Model, error) { return a.twin.Frame, nil }

// Get3DModels returns no meshes: the twin's shapes are its Geometries.
func (a *TwinArm) Get3DModels(context.Context, map[string]any) (map[string]*commonpb.Mesh, error) {
	return map[string]*commonpb.Mesh{}, nil
}

// Geometries returns the arm's box, sphere and capsule geoms where they
// are now (mm, in the arm's base frame = the MJCF world).
func (a *TwinArm) Geometries(context.Context, map[string]any) ([]spatialmath.Geometry, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.d == nil {
		return nil, failedPrecondition("mjcf-arm: closed")
	}
	return a.twin.Geometries(a.d)
}

// DoCommand answers {"state": true}: sim time, steps taken, engine
// warnings, and the joints (Viam units) with the end effector's position
// (mm) and quaternion (w x y z) at one instant.
func (a *TwinArm) DoCommand(_ context.Context, cmd map[string]any) (map[string]any, error) {
	out := map[string]any{}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.d == nil {
		return nil, failedPrecondition("mjcf-arm: closed")
	}
	for k := range cmd {
		switch k {
		case "state":
			out["time_s"] = a.d.Time
			out["steps"] = float64(a.steps)
			out["warnings"] = float64(a.d.Warnings.Total())
			// joints and end at the same instant (two calls would see the arm move in between)
			out["joints"] = floatsToAny(a.twin.Inputs(a.d))
			p, q := a.twin.EEPose(a.d)
			out["end_mm"] = []any{p[0] * 1000, p[1] * 1000, p[2] * 1000}
			out["end_quat"] = []any{q[0], q[1], q[2], q[3]}
		case "reset":
			if err := a.resetLocked(cmd[k]); err != nil {
				return nil, err
			}
			out["reset"] = true
		default:
			return nil, invalidArg("mjcf-arm: unknown command %q; use state or reset", k)
		}
	}
	return out, nil
}

// resetLocked is DoCommand {"reset": {"joints": [...]}}: the twin is put
// at those joints (Viam units, chain order), at rest, its servos holding
// them — what a task's Reset does to its simulation, so that a policy's
// episode on the twin starts where it would in process. A move in
// progress ends (Aborted). a.mu held.
func (a *TwinArm) resetLocked(v any) error {
	m, ok := v.(map[string]any)
	js, _ := m["joints"].([]any)
	if !ok || len(js) != len(a.twin.Joints) {
		return invalidArg(`mjcf-arm: reset is {"joints": [one number per joint, %d, chain order]}; got %v`, len(a.twin.Joints), v)
	}
	in := make([]float64, len(js))
	ctrl := make([]float64, len(js))
	for i, x := range js {
		f, ok := x.(float64)
		if !ok {
			return invalidArg("mjcf-arm: reset joint %d is %v; give a number", i, x)
		}
		in[i] = f
		var err error
		if ctrl[i], err = a.twin.ctrlFor(i, f); err != nil {
			return err
		}
	}
	a.twin.SetInputs(a.d, in)
	for i, j := range a.twin.Joints {
		a.d.Ctrl[j.act] = ctrl[i]
	}
	clear(a.d.Qvel)
	articulated.Forward(a.twin.Art.Model, a.d)
	a.gen++
	a.moving = false
	return nil
}

// Close stops the stepping goroutine.
func (a *TwinArm) Close(context.Context) error {
	a.closeOnce.Do(func() { close(a.stop) })
	<-a.done
	a.mu.Lock()
	a.d = nil
	a.gen++
	a.mu.Unlock()
	return nil
}
