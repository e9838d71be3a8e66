package mjcf

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/vlmrb/vlmrb/internal/safefile"
	"github.com/vlmrb/vlmrb/sim"
)

// Options tune the import.
type Options struct {
	// IntermediateMass is the share of a multi-joint body's mass (and
	// inertia) given to each intermediate sim body of its joint chain
	// (default 0.2: lighter ones make the soft solver ring).
	IntermediateMass float64
	// Chain builds every multi-joint body as a chain of sim bodies (each
	// intermediate carrying IntermediateMass of the mass) instead of one
	// body with a compound joint (sim.JointDesc.Compound, used for 2–3
	// hinges with independent axes); for comparison only.
	Chain bool
	// BodyArmature models a hinge's armature as inertia about its axis on
	// the moving body (exact only on a fixed parent) instead of rotor
	// inertia on the joint coordinate (sim.JointDesc.Armature); for
	// comparison only.
	BodyArmature bool
	// Lenient turns unsupported elements (tendons, muscles, ...) into
	// warnings and drops them; for comparing the supported part of a model
	// only.
	Lenient bool
	// Substeps overrides sim's substeps per step (0: the import's rule,
	// DefaultSubsteps).
	Substeps int
	// Iterations overrides sim's velocity iterations per substep (0:
	// sim's default, 1). Long jointed chains under load (a humanoid's
	// legs holding its weight) need more: see bench/RESULTS.md.
	Iterations int
	// MaxJointPush sets sim's Options.MaxJointPush (m/s; 0: no cap).
	MaxJointPush float64
	// SubstepMasses recomputes the joints' effective masses after every
	// substep (sim.Options.JointMassPerStep off) instead of once per step;
	// for comparison only (the import before 2026-12-06).
	SubstepMasses bool
	// ReadFile reads include and mesh files. The default (nil) is
	// internal/safefile's bounded reader: regular files only (a FIFO or
	// device is refused without blocking), at most MaxBytes or MaxMeshBytes
	// counted as read, and only inside the model's folder (no "..", absolute
	// names or links leading out of it).
	ReadFile func(name string) ([]byte, error)
	// PadKeyframes lets a keyframe (articulated path) give fewer qpos,
	// qvel or ctrl values than the model has: the rest are qpos0, zero
	// and zero. A scene that includes a robot file and adds bodies after
	// it (tasks' arm object scenes) keeps the robot's keyframes so.
	PadKeyframes bool
}

// MaxSubstep (s) is the longest solver substep DefaultSubsteps allows: the
// humanoid of MuJoCo's samples (5 ms steps) stands on 4 substeps of 1.25 ms
// and buckles on 3 of 1.67 ms (knees through their limits); the project's
// 2-ms arm and gripper stay within every tolerance of bench/RESULTS.md's
// trajectory table on 2 substeps of 1 ms.
const MaxSubstep = 0.00125

// MaxTimestep (s) is the longest <option timestep> accepted: 64 substeps
// (sim's most) of MaxSubstep each make 0.08 s, and a step much longer
// than that cannot be stable with the soft solver.
const MaxTimestep = 0.1

// MaxGravity (m/s²) bounds the magnitude of <option gravity>: 100 g.
const MaxGravity = 981.0

// DefaultSubsteps is the number of sim substeps an import gets for a
// timestep (s) when Options.Substeps is 0: enough for substeps of at most
// MaxSubstep, and at least 2 (one substep is not a soft step).
func DefaultSubsteps(timestep float64) int {
	n := int(math.Ceil(timestep/MaxSubstep - 1e-9))
	return max(2, min(n, 64))
}

// Load reads and compiles the MJCF file at path; include and mesh files
// resolve relative to its directory (and compiler meshdir/assetdir).
func Load(path string, opt Options) (*Model, error) {
	data, err := readCapped(opt.ReadFile, "", path, MaxBytes)
	if err != nil {
		return nil, err
	}
	return parse(data, path, filepath.Dir(path), opt)
}

// Parse compiles MJCF from data; include and mesh files resolve relative
// to dir ("" refuses them).
func Parse(data []byte, dir string, opt Options) (*Model, error) {
	return parse(data, "", dir, opt)
}

// readCapped reads path with rf, or (rf nil) with safefile's bounded
// reader, which counts the bytes it reads and refuses anything but a
// regular file without blocking. A non-empty root confines path to that
// folder.
func readCapped(rf func(string) ([]byte, error), root, path string, limit int) ([]byte, error) {
	if root != "" {
		if err := safefile.Within(root, path); err != nil {
			return nil, fmt.Errorf("mjcf: %w", err)
		}
	}
	var data []byte
	var err error
	if rf == nil {
		data, err = safefile.ReadFile(path, int64(limit))
	} else {
		data, err = rf(path)
	}
	if err != nil {
		return nil, fmt.Errorf("mjcf: %w", err)
	}
	if len(data) > limit {
		return nil, fmt.Errorf("mjcf: %s is %d bytes, more than the %d accepted", path, len(data), limit)
	}
	return data, nil
}

func parse(data []byte, file, dir string, opt Options) (*Model, error) {
	if opt.IntermediateMass == 0 {
		opt.IntermediateMass = 0.2
	}
	if !(opt.IntermediateMass > 0 && opt.IntermediateMass <= 0.3) {
		return nil, fmt.Errorf("mjcf: Options.IntermediateMass %g must be in (0, 0.3]", opt.IntermediateMass)
	}
	c, root, err := newCompiler(data, file, dir, opt, false)
	if err != nil {
		return nil, err
	}
	m := c.compile(root)
	if len(c.errs) > 0 {
		return nil, errors.Join(c.errs...)
	}
	return m, nil
}

// newCompiler parses data into its element tree, checks the <mujoco>
// root and expands includes, for the sim path or (art) the articulated
// path, which compiles with MuJoCo 3's autolimits="true" unless told
// otherwise.
func newCompiler(data []byte, file, dir string, opt Options, art bool) (*compiler, *element, error) {
	count := 0
	root, err := parseTree(data, file, &count)
	if err != nil {
		return nil, nil, err
	}
	if root.name != "mujoco" {
		return nil, nil, fmt.Errorf("mjcf: %s: the root element must be <mujoco>", root.where())
	}
	c := &compiler{opt: opt, dir: dir, count: count, degrees: true, eulerseq: "xyz", art: art, autolimits: art,
		inertiaFromGeom: -1, classes: map[string]*class{}, meshes: map[string]*meshAsset{}, materials: map[string][4]float32{}}
	if err := c.expandIncludes(root, 0); err != nil {
		return nil, nil, err
	}
	return c, root, nil
}

// expandIncludes replaces each <include file="..."/> by the children of the
// included file's <mujoco> root.
func (c *compiler) expandIncludes(e *element, depth int) error {
	var out []*element
	for _, ch := range e.children {
		if ch.name != "include" {
			if err := c.expandIncludes(ch, depth); err != nil {
				return err
			}
			out = append(out, ch)
			continue
		}
		name, ok := ch.attr("file")
		if !ok || len(ch.attrs) != 1 {
			return fmt.Errorf("mjcf: %s: include takes exactly the attribute file", ch.where())
		}
		c.includes++
		if c.includes > MaxIncludes || depth > 8 {
			return fmt.Errorf("mjcf: %s: more than %d includes (or nested deeper than 8)", ch.where(), MaxIncludes)
		}
		if c.dir == "" {
			return fmt.Errorf("mjcf: %s: include needs a model directory (use Load)", ch.where())
		}
		path := filepath.Join(c.dir, filepath.FromSlash(name))
		data, err := readCapped(c.opt.ReadFile, c.dir, path, MaxBytes)
		if err != nil {
			return fmt.Errorf("mjcf: %s: %w", ch.where(), err)
		}
		sub, err := parseTree(data, path, &c.count)
		if err != nil {
			return err
		}
		if sub.name != "mujoco" {
			return fmt.Errorf("mjcf: %s: the root element of an included file must be <mujoco>", sub.where())
		}
		if err := c.expandIncludes(sub, depth+1); err != nil {
			return err
		}
		out = append(out, sub.children...)
	}
	e.children = out
	return nil
}

// compiler holds the state of one compilation.
type compiler struct {
	opt      Options
	dir      string
	count    int
	includes int
	// triangles counts mesh triangles over all meshes (MaxTriangles).
	triangles int
	errs      []error
	warns     []string
	warned    map[string]int

	degrees          bool
	eulerseq         string
	autolimits       bool
	meshdir          string
	inertiaFromGeom  int // -1 auto, 0 false, 1 true
	boundMass        float64
	boundInertia     float64
	settotalmass     float64
	exactMeshInertia bool
	classes          map[string]*class
	meshes           map[string]*meshAsset
	materials        map[string][4]float32
	opts             sim.Options
	timestepSet      bool
	bodies           []*mbody
	geoms            []*mgeom
	sites, cameras   []*element
	siteBody, camBod []int
	siteCls, camCls  []*class
	jointIdx         map[string]*mjoint
	joints           []*mjoint
	// art: compiling for the articulated engine (LoadArticulated)
	art bool
}

// fail records an error about attribute attr of element e.
func (c *compiler) fail(e *element, attr, msg string) {
	if attr == "" {
		c.errs = append(c.errs, fmt.Errorf("mjcf: %s: %s", e.where(), msg))
		return
	}
	c.errs = append(c.errs, fmt.Errorf("mjcf: %s: attribute %q %s", e.where(), attr, msg))
}

// unsupported refuses element e, or drops it with a warning when Lenient.
func (c *compiler) unsupported(e *element, why string) {
	if c.opt.Lenient {
		c.warn(fmt.Sprintf("%s dropped: %s", e.where(), why))
		return
	}
	c.errs = append(c.errs, fmt.Errorf("mjcf: %s is not supported: %s", e.where(), why))
}

// warn records a warning; repeats are counted, not repeated.
func (c *compiler) warn(s string) {
	if c.warned == nil {
		c.warned = map[string]int{}
	}
	if c.warned[s] == 0 {
		c.warns = append(c.warns, s)
	}
	c.warned[s]++
}

// warnings returns the warnings with their repeat counts.
func (c *compiler) warnings() []string {
	out := make([]string, len(c.warns))
	for i, w := range c.warns {
		out[i] = w
		if n := c.warned[w]; n > 1 {
			out[i] = fmt.Sprintf("%s (%d×)", w, n)
		}
	}
	return out
}

// dropped warns once per element name for harmless drops.
func (c *compiler) dropped(e *element, why string) {
	c.warn(fmt.Sprintf("<%s> ignored (%s)", e.name, why))
}

// section order: compiler first (it sets units), then defaults and assets,
// then the rest in document order.
func (c *compiler) compile(root *element) *Model {
	ra := c.attrsOf(root, "mujoco", nil)
	name := ra.str("model", "")
	ra.finish()
	for _, e := range root.children {
		if e.name == "compiler" {
			c.compilerElem(e)
		}
	}
	main := &class{name: "main", attrs: map[string]map[string]dval{}}
	c.classes["main"] = main
	for _, e := range root.children {
		switch e.name {
		case "default":
			c.defaults(e, main, true)
		case "asset":
			// after all defaults: assets use mesh and material defaults
		}
	}
	for _, e := range root.children {
		if e.name == "asset" {
			c.assets(e)
		}
	}
	c.opts = sim.Options{Gravity: sim.V3(0, 0, -9.81), Timestep: 0.002}
	var world *element
	var actuators, equality, contact, keys []*element
	for _, e := range root.children {
		switch e.name {
		case "compiler", "default", "asset":
		case "option":
			c.option(e)
		case "worldbody":
			if world == nil {
				world = e
			} else {
				world.children = append(world.children, e.children...)
			}
		case "actuator":
			actuators = append(actuators, e)
		case "equality":
			equality = append(equality, e)
		case "contact":
			contact = append(contact, e)
		case "keyframe":
			keys = append(keys, e)
		case "size", "visual", "statistic", "sensor", "custom":
			c.dropped(e, "does not change the dynamics")
		case "tendon":
			if len(e.children) > 0 {
				c.unsupported(e, "tendons are not in the engine")
			}
		default:
			c.unsupported(e, "unknown or unsupported section")
		}
	}
	if world == nil {
		world = &element{name: "worldbody", line: root.line, file: root.file}
	}
	c.worldbody(world, main)
	m := c.build(name, actuators, equality, contact)
	if m != nil {
		c.keyframes(m, keys)
		m.Warnings = c.warnings()
	}
	return m
}

func (c *compiler) compilerElem(e *element) {
	a := c.attrsOf(e, "compiler", nil)
	c.degrees = a.oneOf("angle", "degree", "degree", "radian") == "degree"
	seq := a.str("eulerseq", "xyz")
	if len(seq) != 3 || strings.Trim(seq, "xyzXYZ") != "" {
		c.fail(e, "eulerseq", fmt.Sprintf("%q must be three of x, y, z, X, Y, Z", seq))
	} else {
		c.eulerseq = seq
	}
	c.autolimits = a.bool("autolimits", c.autolimits)
	if d := a.str("assetdir", ""); d != "" {
		c.meshdir = d
	}
	if d := a.str("meshdir", ""); d != "" {
		c.meshdir = d
	}
	c.inertiaFromGeom = a.tri("inertiafromgeom")
	c.boundMass = a.float("boundmass", 0)
	c.boundInertia = a.float("boundinertia", 0)
	c.settotalmass = a.float("settotalmass", -1)
	a.oneOf("coordinate", "local", "local")
	a.ignore("texturedir", "strippath", "usethread", "convexhull", "discardvisual", "fusestatic", "inertiagrouprange")
	c.exactMeshInertia = a.bool("exactmeshinertia", false)
	a.warnIf("not applied", "balanceinertia", "fitaabb", "alignfree")
	a.finish()
}

func (c *compiler) option(e *element) {
	a := c.attrsOf(e, "option", nil)
	if a.has("timestep") {
		c.opts.Timestep = a.float("timestep", 0.002)
		c.timestepSet = true
		if ts := c.opts.Timestep; !(ts > 0) || ts > MaxTimestep || math.IsInf(ts, 0) {
			c.fail(e, "timestep", fmt.Sprintf("%g s must be positive, finite and at most %g s (MuJoCo's default is 0.002)", ts, MaxTimestep))
		}
	}
	c.opts.Gravity = a.vec3("gravity", c.opts.Gravity)
	if g := c.opts.Gravity; !(g.Norm() <= MaxGravity) {
		c.fail(e, "gravity", fmt.Sprintf("%g %g %g m/s² must be finite and of magnitude at most %g (100 g)", g.X, g.Y, g.Z, MaxGravity))
	}
	a.warnIf("the engine uses its own substepped soft solver", "integrator", "iterations", "solver", "tolerance",
		"ls_iterations", "ls_tolerance", "noslip_iterations", "noslip_tolerance", "mpr_iterations", "mpr_tolerance",
		"cone", "jacobian", "impratio", "o_margin", "o_solref", "o_solimp", "collision")
	for _, n := range []string{"wind", "magnetic"} {
		if f, ok := a.floats(n, 3, 3); ok && (f[0] != 0 || f[1] != 0 || f[2] != 0) && n == "wind" {
			c.fail(e, n, "(a medium) is not supported")
		}
	}
	for _, n := range []string{"density", "viscosity"} {
		if a.float(n, 0) != 0 {
			c.fail(e, n, "(a medium) is not supported")
		}
	}
	a.finish()
	for _, ch := range e.children {
		if ch.name == "flag" {
			c.dropped(ch, "solver flags are not applied")
			continue
		}
		c.unsupported(ch, "unknown child of <option>")
	}
}

// defaults reads a <default> element into class cls (top: the main class).
func (c *compiler) defaults(e *element, parent *class, top bool) {
	cls := parent
	if !top {
		name, ok := e.attr("class")
		if !ok || name == "" {
			c.fail(e, "class", "is required on a nested <default>")
			return
		}
		if _, dup := c.classes[name]; dup {
			c.fail(e, "class", fmt.Sprintf("%q is defined twice", name))
			return
		}
		cls = parent.child(name)
		c.classes[name] = cls
	} else if n, ok := e.attr("class"); ok && n != "main" {
		c.fail(e, "class", "the top-level <default> is the main class")
	}
	for _, ch := range e.children {
		kind := ch.name
		switch kind {
		case "default":
			c.defaults(ch, cls, false)
			continue
		case "motor", "position", "velocity", "general", "intvelocity", "damper", "cylinder", "muscle", "adhesion":
			kind = "actuator"
		case "geom", "joint", "site", "camera", "mesh", "material", "light", "equality", "tendon", "pair", "texture", "hfield":
		default:
			c.unsupported(ch, "unknown default element")
			continue
		}
		m := cls.attrs[kind]
		if m == nil {
			m = map[string]dval{}
			cls.attrs[kind] = m
		}
		for _, at := range ch.attrs {
			m[at.Name.Local] = dval{at.Value, ch}
		}
		if ch.name != "actuator" && kind == "actuator" {
			m["$type"] = dval{ch.name, ch}
		}
	}
}

// classFor returns the class an element uses: its class attribute, else
// the inherited childclass.
func (c *compiler) classFor(e *element, inherited *class) *class {
	if n, ok := e.attr("class"); ok {
		if cls, ok := c.classes[n]; ok {
			return cls
		}
		c.fail(e, "class", fmt.Sprintf("%q is not a defined default class", n))
	}
	return inherited
}

func (c *compiler) assets(e *element) {
	main := c.classes["main"]
	for _, ch := range e.children {
		switch ch.name {
		case "mesh":
			c.meshAssetElem(ch, c.classFor(ch, main))
		case "material":
			a := c.attrsOf(ch, "material", c.classFor(ch, main))
			name := a.str("name", "")
			rgba := rgbaOf(a, [4]float32{1, 1, 1, 1})
			a.ignore("texture", "texrepeat", "texuniform", "emission", "specular", "shininess", "reflectance")
			a.finish()
			if name != "" {
				c.materials[name] = rgba
			}
		case "texture", "hfield", "skin":
			if ch.name == "hfield" {
				c.warn(fmt.Sprintf("%s: height fields are not supported; geoms using it are refused", ch.where()))
				continue
			}
			c.dropped(ch, "textures and skins are visual only")
		default:
			c.unsupported(ch, "unknown asset")
		}
	}
}

func rgbaOf(a *attrSet, def [4]float32) [4]float32 {
	if f, ok := a.floats("rgba", 4, 4); ok {
		return [4]float32{float32(f[0]), float32(f[1]), float32(f[2]), float32(f[3])}
	}
	return def
}
