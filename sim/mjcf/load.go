package mjcf

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/vlmrb/vlmrb/internal/safefile"
)

// Options tune the import.
type Options struct {
	// Lenient turns unsupported elements into warnings and drops them;
	// for comparing the supported part of a model only.
	Lenient bool
	// ReadFile reads include and mesh files. The default (nil) is
	// internal/safefile's bounded reader: regular files only (a FIFO or
	// device is refused without blocking), at most MaxBytes or MaxMeshBytes
	// counted as read, and only inside the model's folder (no "..", absolute
	// names or links leading out of it).
	ReadFile func(name string) ([]byte, error)
	// PadKeyframes lets a keyframe give fewer qpos, qvel or ctrl values
	// than the model has: the rest are qpos0, zero and zero. A scene that
	// includes a robot file and adds bodies after it (tasks' arm object
	// scenes) keeps the robot's keyframes so.
	PadKeyframes bool
}

// MaxTimestep (s) is the longest <option timestep> accepted: 50 times
// MuJoCo's default of 2 ms. It bounds the input, not the physics: no model
// the project or Menagerie ships comes near it, and a longer step is a
// mistake in units far more often than a simulation.
const MaxTimestep = 0.1

// MaxGravity (m/s²) bounds the magnitude of <option gravity>: 100 g.
const MaxGravity = 981.0

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

// newCompiler parses data into its element tree, checks the <mujoco>
// root and expands includes. The model compiles with MuJoCo 3's
// autolimits="true" unless its <compiler> says otherwise.
func newCompiler(data []byte, file, dir string, opt Options) (*compiler, *element, error) {
	count := 0
	root, err := parseTree(data, file, &count)
	if err != nil {
		return nil, nil, err
	}
	if root.name != "mujoco" {
		return nil, nil, fmt.Errorf("mjcf: %s: the root element must be <mujoco>", root.where())
	}
	c := &compiler{opt: opt, dir: dir, count: count, degrees: true, eulerseq: "xyz", autolimits: true,
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
	bodies           []*mbody
	geoms            []*mgeom
	sites, cameras   []*element
	siteBody, camBod []int
	siteCls, camCls  []*class
	jointIdx         map[string]*mjoint
	joints           []*mjoint
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
