package vlmviam

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	commonpb "go.viam.com/api/common/v1"
	"go.viam.com/rdk/data"
	"image"
	"image/jpeg"
	"image/png"
	"math"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/golang/geo/r3"
	"go.viam.com/rdk/components/arm"
	"go.viam.com/rdk/components/camera"
	"go.viam.com/rdk/components/gripper"
	"go.viam.com/rdk/components/posetracker"
	"go.viam.com/rdk/logging"
	"go.viam.com/rdk/pointcloud"
	"go.viam.com/rdk/referenceframe"
	"go.viam.com/rdk/resource"
	"go.viam.com/rdk/spatialmath"
	rutils "go.viam.com/rdk/utils"

	"github.com/vlmrb/vlmrb/render"
	"github.com/vlmrb/vlmrb/tasks"
)

// Models of the simulated components.
var (
	SimArmModel         = resource.NewModel(Namespace, ModuleName, "sim-arm")
	SimGripperModel     = resource.NewModel(Namespace, ModuleName, "sim-gripper")
	SimCameraModel      = resource.NewModel(Namespace, ModuleName, "sim-camera")
	SimPoseTrackerModel = resource.NewModel(Namespace, ModuleName, "sim-pose-tracker")
)

// simHandJSON is the kinematic model of the simulated hand: three prismatic
// joints (mm) along world x, y and z, which is what a mocap-driven hand is.
//
//go:embed simhand.json
var simHandJSON []byte

// SimConfig configures every sim component: the world it joins and, for the
// camera, what it renders.
type SimConfig struct {
	WorldConfig `json:",squash"`
	// Camera is the render view (the task's scorer view when empty, or
	// "workspace" / a MetaWorld camera name); camera model only.
	Camera string `json:"camera,omitempty"`
	// Width and Height of rendered frames (px); camera model only.
	Width  int `json:"width,omitempty"`
	Height int `json:"height,omitempty"`
	// Backend is the renderer: auto | egl | soft (camera model only).
	Backend string `json:"backend,omitempty"`
	// ReportFrame: the pose tracker reports its poses in this frame
	// instead of the sim world (pose tracker only; see ReportFrame).
	ReportFrame *ReportFrame `json:"report_frame,omitempty"`
	// Attributes collects unknown keys so Validate can reject them.
	Attributes map[string]any `json:"-"`
}

// ReportFrame is where a sim pose tracker is mounted, as a real tracker
// (a camera) sits somewhere and reports what it sees in its own frame:
// its poses are given in frame Name, whose pose in the sim world (the
// sim arm's base frame) is Translation (mm) and the orientation vector
// OrientationDeg (ox, oy, oz, θ in degrees; Viam's orientation_vector_degrees).
// The robot config should give frame Name the same pose relative to the
// arm, for the frame system to undo it.
type ReportFrame struct {
	Name           string     `json:"name"`
	Translation    [3]float64 `json:"translation_mm"`
	OrientationDeg [4]float64 `json:"orientation_vector_degrees"`
}

// pose is the frame's pose in the sim world.
func (f *ReportFrame) pose() spatialmath.Pose {
	o := f.OrientationDeg
	return spatialmath.NewPose(r3.Vector{X: f.Translation[0], Y: f.Translation[1], Z: f.Translation[2]},
		&spatialmath.OrientationVectorDegrees{OX: o[0], OY: o[1], OZ: o[2], Theta: o[3]})
}

// Validate checks the attributes; the sim components have no dependencies.
func (c *SimConfig) Validate(path string) ([]string, []string, error) {
	if err := unknownKeys(c.Attributes, "world", "task", "reward", "max_steps", "seed", "camera", "width", "height", "backend", "report_frame"); err != nil {
		return nil, nil, err
	}
	if f := c.ReportFrame; f != nil {
		o := f.OrientationDeg
		if f.Name == "" || f.Name == referenceframe.World || (o[0] == 0 && o[1] == 0 && o[2] == 0) || !finite(o[3]) ||
			!finite(f.Translation[0]) || !finite(f.Translation[1]) || !finite(f.Translation[2]) {
			return nil, nil, invalidArg(`"report_frame" is %+v; give {"name": FRAME (not world), "translation_mm": [x, y, z], "orientation_vector_degrees": [ox, oy, oz, theta]} with a non-zero axis`, *f)
		}
	}
	if err := c.WorldConfig.validate(); err != nil {
		return nil, nil, err
	}
	if c.Width < 0 || c.Height < 0 || c.Width > 4096 || c.Height > 4096 {
		return nil, nil, fmt.Errorf(`"width" and "height" are %d×%d; use 1–4096 px or 0 for 320×240`, c.Width, c.Height)
	}
	switch c.Backend {
	case "", "auto", "egl", "soft":
	default:
		return nil, nil, fmt.Errorf(`"backend" is %q; use "auto", "egl" or "soft"`, c.Backend)
	}
	return nil, nil, nil
}

// simBase holds the world reference every sim component keeps.
type simBase struct {
	resource.Named
	logger logging.Logger
	mu     sync.Mutex
	w      *World
}

func (b *simBase) world() *World {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.w
}

// rejoin moves the component to the world of conf; the old one is released.
func (b *simBase) rejoin(conf resource.Config) (*SimConfig, error) {
	c, err := resource.NativeConfig[*SimConfig](conf)
	if err != nil {
		return nil, err
	}
	w, err := acquireWorld(c.WorldConfig)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	old := b.w
	b.w = w
	b.mu.Unlock()
	switch {
	case old == nil:
		b.logger.Infow("sim component joined its world", "world", c.key(), "task", c.Task, "max_steps", c.MaxSteps)
	case old != w && old.cfg.key() == c.key():
		b.logger.Infow("sim world rebuilt with new settings (components not reconfigured with them keep the old simulation until they are)",
			"world", c.key(), "task", c.Task, "reward", c.Reward, "max_steps", c.MaxSteps, "components_on_it", w.users())
	case old != w:
		b.logger.Infow("sim component moved to another world", "world", c.key(), "from", old.cfg.key())
	}
	if old != nil {
		old.release()
	}
	return c, nil
}

func (b *simBase) Close(context.Context) error {
	b.mu.Lock()
	w := b.w
	b.w = nil
	b.mu.Unlock()
	if w != nil {
		w.release()
	}
	return nil
}

// worldCommand answers the DoCommand keys all sim components share:
// {"reset": {"seed": N}}, {"episodes": true} and {"obs": true}.
func worldCommand(w *World, cmd map[string]any) (map[string]any, error) {
	if w == nil {
		return nil, errors.New("vlmrb sim: component is closed")
	}
	out := map[string]any{}
	for k, v := range cmd {
		switch k {
		case "reset":
			seed := w.cfg.Seed
			if m, ok := v.(map[string]any); ok {
				if s, ok := m["seed"]; ok {
					var err error
					if seed, err = parseSeed(s); err != nil {
						return nil, err
					}
				}
			}
			w.Reset(seed)
			out["reset"] = map[string]any{"seed": strconv.FormatUint(seed, 10)}
		case "episodes":
			done, cur, started := w.Results()
			list := make([]any, 0, len(done))
			for _, r := range done {
				list = append(list, resultMap(r))
			}
			out["episodes"] = list
			if started {
				out["current"] = resultMap(cur)
			}
		case "obs":
			out["obs"] = floatsToAny(w.Obs())
		case SimProbe:
			out[SimProbe] = true
		case "task":
			out["task"] = w.Task()
		case "goroutines":
			// module health: the goroutines of the module process
			out["goroutines"] = float64(runtime.NumGoroutine())
		case "progress":
			p, stage := w.Progress()
			out["progress"], out["stage"] = p, stage
		default:
			return nil, fmt.Errorf("vlmrb sim: unknown command %q; use reset, episodes, obs, progress, goroutines or task", k)
		}
	}
	return out, nil
}

// parseSeed reads a seed sent as a decimal string (exact for all uint64)
// or as a JSON number (exact up to 2⁵³).
func parseSeed(v any) (uint64, error) {
	switch s := v.(type) {
	case string:
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf(`vlmrb sim: seed %q is not a non-negative integer`, s)
		}
		return n, nil
	case float64:
		if s >= 0 && s == math.Trunc(s) && s <= 1<<53 {
			return uint64(s), nil
		}
	}
	return 0, fmt.Errorf(`vlmrb sim: seed %v needs a non-negative integer (send seeds above 2^53 as decimal strings)`, v)
}

func resultMap(r EpisodeResult) map[string]any {
	return map[string]any{"seed": strconv.FormatUint(r.Seed, 10), "steps": float64(r.Steps), "return": r.Return, "success": r.Success}
}

func floatsToAny(v []float64) []any {
	out := make([]any, len(v))
	for i, x := range v {
		out[i] = x
	}
	return out
}

// ---------------------------------------------------------------- arm

// SimArm is the task's hand as a Viam arm: EndPosition is the hand
// position (mm) with a fixed orientation; MoveToPosition is absolute and
// blocks until the hand is within SimMoveToleranceMM (1 mm) of the target
// (World.MoveTo), one control step per action's displacement (≤ 10 mm)
// and then settling steps; Stop ends it between steps and IsMoving is
// true meanwhile. With the extra {"vlmrb_control_step": true} (what the
// policy runner sends) it moves the hand target by the change of the
// commanded position since the last command instead, without settling,
// so the runner's targets integrate exactly as the in-process
// end-effector delta controller does. The three joints are the hand's x,
// y, z (mm): the task's arm is a mocap-driven hand.
type SimArm struct {
	simBase
	model referenceframe.Model
}

func newSimArm(ctx context.Context, deps resource.Dependencies, conf resource.Config, logger logging.Logger) (arm.Arm, error) {
	m, err := referenceframe.UnmarshalModelJSON(simHandJSON, conf.Name)
	if err != nil {
		return nil, err
	}
	a := &SimArm{simBase: simBase{Named: conf.ResourceName().AsNamed(), logger: logger}, model: m}
	if err := a.Reconfigure(ctx, deps, conf); err != nil {
		return nil, err
	}
	return a, nil
}

// Reconfigure joins the configured world.
func (a *SimArm) Reconfigure(_ context.Context, _ resource.Dependencies, conf resource.Config) error {
	_, err := a.rejoin(conf)
	return err
}

// EndPosition returns the hand pose.
func (a *SimArm) EndPosition(context.Context, map[string]any) (spatialmath.Pose, error) {
	w := a.world()
	if w == nil {
		return nil, errors.New("vlmrb sim arm: closed")
	}
	h := w.Hand()
	return spatialmath.NewPoseFromPoint(r3.Vector{X: h[0], Y: h[1], Z: h[2]}), nil
}

// MoveToPosition moves the hand target (see SimArm).
func (a *SimArm) MoveToPosition(ctx context.Context, pose spatialmath.Pose, extra map[string]any) error {
	w := a.world()
	if w == nil {
		return errors.New("vlmrb sim arm: closed")
	}
	p := pose.Point()
	if step, _ := extra[SimControlStep].(bool); step {
		_, err := w.Move([3]float64{p.X, p.Y, p.Z})
		return err
	}
	_, err := w.MoveTo([3]float64{p.X, p.Y, p.Z})
	return err
}

// SimControlStep is the MoveToPosition extra that asks vlmrb's sim arm
// for the policy runner's semantics: the hand target moves by the change
// of the commanded position since the last command, one control step per
// action's displacement, without waiting for the hand to settle (as the
// in-process end-effector controller). SimProbe is the DoCommand key a
// sim arm answers with true.
const (
	SimControlStep = "vlmrb_control_step"
	SimProbe       = "vlmrb_sim"
)

// MoveToJointPositions moves the hand to the joint (x, y, z in mm) position.
func (a *SimArm) MoveToJointPositions(ctx context.Context, j []referenceframe.Input, _ map[string]any) error {
	if len(j) != 3 {
		return fmt.Errorf("vlmrb sim arm: %d joint positions, want 3 (x, y, z in mm)", len(j))
	}
	return a.MoveToPosition(ctx, spatialmath.NewPoseFromPoint(r3.Vector{X: j[0], Y: j[1], Z: j[2]}), nil)
}

// MoveThroughJointPositions moves through each position in turn.
func (a *SimArm) MoveThroughJointPositions(ctx context.Context, ps [][]referenceframe.Input, _ *arm.MoveOptions, _ map[string]any) error {
	for _, p := range ps {
		if err := a.MoveToJointPositions(ctx, p, nil); err != nil {
			return err
		}
	}
	return nil
}

// JointPositions returns the hand's x, y, z (mm).
func (a *SimArm) JointPositions(context.Context, map[string]any) ([]referenceframe.Input, error) {
	w := a.world()
	if w == nil {
		return nil, errors.New("vlmrb sim arm: closed")
	}
	h := w.Hand()
	return copyInputs(h[:]), nil
}

// CurrentInputs is JointPositions.
func (a *SimArm) CurrentInputs(ctx context.Context) ([]referenceframe.Input, error) {
	return a.JointPositions(ctx, nil)
}

// GoToInputs is MoveThroughJointPositions.
func (a *SimArm) GoToInputs(ctx context.Context, in ...[]referenceframe.Input) error {
	return a.MoveThroughJointPositions(ctx, in, nil, nil)
}

// ModelFrame returns the three-prismatic-joint model.
func (a *SimArm) ModelFrame() referenceframe.Model { return a.model }

// Kinematics returns the three-prismatic-joint model (rdk's InputEnabled;
// viam-server serves it to clients as the arm's kinematics).
func (a *SimArm) Kinematics(context.Context) (referenceframe.Model, error) { return a.model, nil }

// Get3DModels returns no meshes: the hand's shapes are its Geometries.
func (a *SimArm) Get3DModels(context.Context, map[string]any) (map[string]*commonpb.Mesh, error) {
	return map[string]*commonpb.Mesh{}, nil
}

// Geometries returns the collision shapes of the simulated hand and its
// fingers where they are now (arm frame = the task's world frame, mm):
// boxes, spheres and capsules as such, a cylinder as its bounding box.
func (a *SimArm) Geometries(context.Context, map[string]any) ([]spatialmath.Geometry, error) {
	w := a.world()
	if w == nil {
		return nil, errors.New("vlmrb sim arm: closed")
	}
	var out []spatialmath.Geometry
	for _, s := range w.HandShapes() {
		pose := spatialmath.NewPose(r3.Vector{X: s.Pos[0], Y: s.Pos[1], Z: s.Pos[2]},
			&spatialmath.Quaternion{Real: s.Quat[0], Imag: s.Quat[1], Jmag: s.Quat[2], Kmag: s.Quat[3]})
		var g spatialmath.Geometry
		var err error
		switch s.Kind {
		case "box":
			g, err = spatialmath.NewBox(pose, r3.Vector{X: 2 * s.Size[0], Y: 2 * s.Size[1], Z: 2 * s.Size[2]}, s.Name)
		case "sphere":
			g, err = spatialmath.NewSphere(pose, s.Size[0], s.Name)
		case "capsule":
			g, err = spatialmath.NewCapsule(pose, s.Size[0], 2*(s.Size[1]+s.Size[0]), s.Name)
		case "cylinder":
			g, err = spatialmath.NewBox(pose, r3.Vector{X: 2 * s.Size[0], Y: 2 * s.Size[0], Z: 2 * s.Size[1]}, s.Name+" (bounding box)")
		default:
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, nil
}

// IsMoving is true while a MoveToPosition steps the simulation.
func (a *SimArm) IsMoving(context.Context) (bool, error) {
	w := a.world()
	return w != nil && w.IsMoving(), nil
}

// Stop ends a MoveToPosition in flight before its next control step (a
// long move takes one step per 10 mm); it returns codes.Aborted.
func (a *SimArm) Stop(context.Context, map[string]any) error {
	if w := a.world(); w != nil {
		w.Stop()
	}
	return nil
}

// DoCommand answers reset, episodes, obs and task (see worldCommand).
func (a *SimArm) DoCommand(_ context.Context, cmd map[string]any) (map[string]any, error) {
	return worldCommand(a.world(), cmd)
}

// ---------------------------------------------------------------- gripper

// SimGripper is the task's two-finger gripper: Open and Grab set a[3] to
// −1 and +1 for the following control steps; DoCommand {"set": g} sets a
// proportional command g ∈ [−1, 1] and {"openness": true} reads the finger
// gap as a fraction of fully open (observation element 3).
type SimGripper struct{ simBase }

func newSimGripper(ctx context.Context, deps resource.Dependencies, conf resource.Config, logger logging.Logger) (gripper.Gripper, error) {
	g := &SimGripper{simBase{Named: conf.ResourceName().AsNamed(), logger: logger}}
	if err := g.Reconfigure(ctx, deps, conf); err != nil {
		return nil, err
	}
	return g, nil
}

// Reconfigure joins the configured world.
func (g *SimGripper) Reconfigure(_ context.Context, _ resource.Dependencies, conf resource.Config) error {
	_, err := g.rejoin(conf)
	return err
}

func (g *SimGripper) set(v float64) error {
	w := g.world()
	if w == nil {
		return errors.New("vlmrb sim gripper: closed")
	}
	return w.SetGrip(v)
}

// Open commands the fingers open.
func (g *SimGripper) Open(context.Context, map[string]any) error { return g.set(-1) }

// Grab commands the fingers closed. They close over the following
// control steps (the arm's moves advance the simulation), so Grab cannot
// know yet whether they will hold something and reports false; read the
// gap with DoCommand {"openness": true}.
func (g *SimGripper) Grab(context.Context, map[string]any) (bool, error) {
	return false, g.set(1)
}

// Kinematics returns no model: the fingers have no kinematic model here
// (rdk's ErrNoModelInformation, as its grippers without one answer).
func (g *SimGripper) Kinematics(context.Context) (referenceframe.Model, error) {
	return nil, referenceframe.ErrNoModelInformation
}

// CurrentInputs is empty: the fingers are no frame-system joints.
func (g *SimGripper) CurrentInputs(context.Context) ([]referenceframe.Input, error) {
	return []referenceframe.Input{}, nil
}

// GoToInputs takes no inputs: the fingers are no frame-system joints;
// use Open, Grab or DoCommand {"set": g}.
func (g *SimGripper) GoToInputs(_ context.Context, steps ...[]referenceframe.Input) error {
	for _, s := range steps {
		if len(s) != 0 {
			return invalidArg("vlmrb sim gripper: GoToInputs takes no inputs (got %d); use Open, Grab or DoCommand {\"set\": g}", len(s))
		}
	}
	return nil
}

// IsHoldingSomething reports whether both fingers touched the same
// object in the last control step (the simulation's contacts; no
// metadata).
func (g *SimGripper) IsHoldingSomething(context.Context, map[string]any) (gripper.HoldingStatus, error) {
	w := g.world()
	if w == nil {
		return gripper.HoldingStatus{}, errors.New("vlmrb sim gripper: closed")
	}
	return gripper.HoldingStatus{IsHoldingSomething: w.Holding()}, nil
}

// Geometries returns the fingers' bounding box (mm).
func (g *SimGripper) Geometries(context.Context, map[string]any) ([]spatialmath.Geometry, error) {
	b, err := spatialmath.NewBox(spatialmath.NewZeroPose(), r3.Vector{X: 20, Y: 100, Z: 60}, "fingers")
	if err != nil {
		return nil, err
	}
	return []spatialmath.Geometry{b}, nil
}

// IsMoving is false.
func (g *SimGripper) IsMoving(context.Context) (bool, error) { return false, nil }

// Stop is a no-op.
func (g *SimGripper) Stop(context.Context, map[string]any) error { return nil }

// DoCommand answers set, openness and the world commands.
func (g *SimGripper) DoCommand(_ context.Context, cmd map[string]any) (map[string]any, error) {
	out := map[string]any{}
	rest := map[string]any{}
	for k, v := range cmd {
		switch k {
		case "set":
			f, ok := v.(float64)
			if !ok {
				return nil, fmt.Errorf(`vlmrb sim gripper: "set" needs a number in [−1, 1], got %v`, v)
			}
			if err := g.set(f); err != nil {
				return nil, err
			}
			out["set"] = f
		case "openness":
			w := g.world()
			if w == nil {
				return nil, errors.New("vlmrb sim gripper: closed")
			}
			out["openness"] = w.GripperOpen()
		default:
			rest[k] = v
		}
	}
	if len(rest) > 0 {
		m, err := worldCommand(g.world(), rest)
		if err != nil {
			return nil, err
		}
		for k, v := range m {
			out[k] = v
		}
	}
	return out, nil
}

// ---------------------------------------------------------------- camera

// SimCamera renders the world through vlmrb's renderer.
type SimCamera struct {
	simBase
	cmu  sync.Mutex
	cam  *render.SimCamera
	img  *image.RGBA
	seq  uint64
	conf SimConfig
}

func newSimCamera(ctx context.Context, deps resource.Dependencies, conf resource.Config, logger logging.Logger) (camera.Camera, error) {
	c := &SimCamera{simBase: simBase{Named: conf.ResourceName().AsNamed(), logger: logger}}
	if err := c.Reconfigure(ctx, deps, conf); err != nil {
		return nil, err
	}
	return c, nil
}

// Reconfigure joins the world and rebuilds the renderer.
func (c *SimCamera) Reconfigure(_ context.Context, _ resource.Dependencies, conf resource.Config) error {
	sc, err := c.rejoin(conf)
	if err != nil {
		return err
	}
	w, h := sc.Width, sc.Height
	if w == 0 {
		w = 320
	}
	if h == 0 {
		h = 240
	}
	backend := sc.Backend
	if backend == "" {
		backend = "auto"
	}
	view := sc.Camera
	if view == "" {
		view = "task"
	}
	var cam *render.SimCamera
	err = c.world().withEnv(func(env *tasks.Env) error {
		var err error
		cam, err = render.OpenTaskCamera(backend, view, "standard", w, h, render.FilmedOf(env.Name(), env.Model(), env.Data(), env.Meta().Views), render.DefaultCameraOptions())
		return err
	})
	if err != nil {
		return fmt.Errorf("vlmrb sim camera: %w", err)
	}
	c.cmu.Lock()
	old := c.cam
	c.cam, c.img, c.conf = cam, image.NewRGBA(image.Rect(0, 0, w, h)), *sc
	c.cmu.Unlock()
	if old != nil {
		old.Close()
	}
	return nil
}

func (c *SimCamera) render() (*image.RGBA, error) {
	w := c.world()
	if w == nil {
		return nil, errors.New("vlmrb sim camera: closed")
	}
	c.cmu.Lock()
	defer c.cmu.Unlock()
	if c.cam == nil {
		return nil, errors.New("vlmrb sim camera: closed")
	}
	if err := w.Render(c.cam, c.img); err != nil {
		return nil, err
	}
	c.seq++
	out := image.NewRGBA(c.img.Rect)
	copy(out.Pix, c.img.Pix)
	return out, nil
}

// Images renders one frame, JPEG-encoded by default or PNG when extra
// has {"mime_type": "image/png"}. filterSourceNames that do not name
// this camera select no image.
func (c *SimCamera) Images(ctx context.Context, filterSourceNames []string, extra map[string]any) ([]camera.NamedImage, resource.ResponseMetadata, error) {
	name := c.Name().ShortName()
	if len(filterSourceNames) > 0 && !slices.Contains(filterSourceNames, name) {
		return []camera.NamedImage{}, resource.ResponseMetadata{CapturedAt: time.Now()}, nil
	}
	mimeType := rutils.MimeTypeJPEG
	if m, _ := extra["mime_type"].(string); m == rutils.MimeTypePNG {
		mimeType = m
	}
	img, err := c.render()
	if err != nil {
		return nil, resource.ResponseMetadata{}, err
	}
	var buf bytes.Buffer
	if mimeType == rutils.MimeTypePNG {
		err = png.Encode(&buf, img)
	} else {
		err = jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90})
	}
	if err != nil {
		return nil, resource.ResponseMetadata{}, err
	}
	ni, err := camera.NamedImageFromBytes(buf.Bytes(), name, mimeType, data.Annotations{})
	if err != nil {
		return nil, resource.ResponseMetadata{}, err
	}
	return []camera.NamedImage{ni}, resource.ResponseMetadata{CapturedAt: time.Now()}, nil
}

// NextPointCloud is not supported.
func (c *SimCamera) NextPointCloud(context.Context, map[string]any) (pointcloud.PointCloud, error) {
	return nil, errors.New("vlmrb sim camera: point clouds are not supported")
}

// Geometries is empty: the simulated camera has no body in the scene.
func (c *SimCamera) Geometries(context.Context, map[string]any) ([]spatialmath.Geometry, error) {
	return []spatialmath.Geometry{}, nil
}

// Properties reports a colour camera.
func (c *SimCamera) Properties(context.Context) (camera.Properties, error) {
	return camera.Properties{ImageType: camera.ColorStream, MimeTypes: []string{rutils.MimeTypeJPEG, rutils.MimeTypePNG}}, nil
}

// DoCommand answers the world commands.
func (c *SimCamera) DoCommand(_ context.Context, cmd map[string]any) (map[string]any, error) {
	return worldCommand(c.world(), cmd)
}

// Close releases the renderer and the world.
func (c *SimCamera) Close(ctx context.Context) error {
	c.cmu.Lock()
	cam := c.cam
	c.cam = nil
	c.cmu.Unlock()
	if cam != nil {
		cam.Close()
	}
	return c.simBase.Close(ctx)
}

// ---------------------------------------------------------------- poses

// Body names the sim pose tracker reports, in the observation's order.
const (
	BodyObject0 = "object0" // observation elements 4–10: position, quaternion (x, y, z, w)
	BodyObject1 = "object1" // elements 11–17 (absent on single-object tasks)
	BodyGoal    = "goal"    // elements 36–38 (orientation identity)
)

// SimPoseTracker reports the task's object and goal poses (mm) in the
// world frame; a slot the task leaves empty is not reported.
type SimPoseTracker struct {
	simBase
	report *ReportFrame // nil: the sim world ("world")
}

func newSimPoseTracker(ctx context.Context, deps resource.Dependencies, conf resource.Config, logger logging.Logger) (posetracker.PoseTracker, error) {
	p := &SimPoseTracker{simBase: simBase{Named: conf.ResourceName().AsNamed(), logger: logger}}
	if err := p.Reconfigure(ctx, deps, conf); err != nil {
		return nil, err
	}
	return p, nil
}

// Reconfigure joins the configured world.
func (p *SimPoseTracker) Reconfigure(_ context.Context, _ resource.Dependencies, conf resource.Config) error {
	c, err := p.rejoin(conf)
	if err != nil {
		return err
	}
	p.mu.Lock()
	p.report = c.ReportFrame
	p.mu.Unlock()
	return nil
}

// Poses returns the named bodies (all when bodyNames is empty).
func (p *SimPoseTracker) Poses(_ context.Context, bodyNames []string, _ map[string]any) (referenceframe.FrameSystemPoses, error) {
	w := p.world()
	if w == nil {
		return nil, errors.New("vlmrb sim pose tracker: closed")
	}
	obs := w.Obs()
	all := map[string]spatialmath.Pose{}
	for i, name := range []string{BodyObject0, BodyObject1} {
		o := obs[4+7*i : 11+7*i]
		if o[3] == 0 && o[4] == 0 && o[5] == 0 && o[6] == 0 {
			continue // empty slot
		}
		q := &spatialmath.Quaternion{Real: o[6], Imag: o[3], Jmag: o[4], Kmag: o[5]}
		all[name] = spatialmath.NewPose(r3.Vector{X: o[0] * 1000, Y: o[1] * 1000, Z: o[2] * 1000}, q)
	}
	all[BodyGoal] = spatialmath.NewPoseFromPoint(r3.Vector{X: obs[36] * 1000, Y: obs[37] * 1000, Z: obs[38] * 1000})
	frame := referenceframe.World
	p.mu.Lock()
	rep := p.report
	p.mu.Unlock()
	if rep != nil {
		frame = rep.Name
		inv := spatialmath.PoseInverse(rep.pose())
		for k, v := range all {
			all[k] = spatialmath.Compose(inv, v)
		}
	}
	out := referenceframe.FrameSystemPoses{}
	if len(bodyNames) == 0 {
		for k, v := range all {
			out[k] = referenceframe.NewPoseInFrame(frame, v)
		}
		return out, nil
	}
	for _, n := range bodyNames {
		if v, ok := all[n]; ok {
			out[n] = referenceframe.NewPoseInFrame(frame, v)
		}
	}
	return out, nil
}

// DoCommand answers the world commands.
func (p *SimPoseTracker) DoCommand(_ context.Context, cmd map[string]any) (map[string]any, error) {
	return worldCommand(p.world(), cmd)
}
