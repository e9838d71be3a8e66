package mjcf

import (
	"fmt"

	"github.com/vlmrb/vlmrb/sim"
)

// Geom is a geom of a Model as rendering needs it: every
// geom of the MJCF (colliding or visual-only), on its body (an index into
// Model.Bodies, 0 the world) at its local pose there.
type Geom struct {
	Name string
	Type string // plane, box, sphere, capsule, cylinder, ellipsoid, mesh
	Body int
	// Pos and Rot are the geom frame in the body frame.
	Pos sim.Vec3
	Rot sim.Quat
	// Size is in half extents, radius and half length (not MJCF's sizes).
	Size sim.Vec3
	RGBA [4]float32
	// Mesh is the loaded mesh of a mesh geom, in the geom frame.
	Mesh  *Mesh
	Group int
}

// Camera is a camera of a Model, fixed to its body at
// Pos, Rot (body frame); Fovy in degrees.
type Camera struct {
	Name string
	Body int
	Pos  sim.Vec3
	Rot  sim.Quat
	Fovy float64
}

// artVisuals collects the geoms and cameras of the compiled body tree
// for Model.Geoms and Model.Cameras.
func (c *compiler) artVisuals() ([]Geom, []Camera) {
	geoms := make([]Geom, 0, len(c.geoms))
	for _, g := range c.geoms {
		ag := Geom{Name: g.name, Type: g.typ, Body: g.body, Pos: g.pos, Rot: g.rot.Normalize(), Size: g.size, RGBA: g.rgba, Group: g.group}
		if g.mesh != nil {
			ag.Mesh = g.mesh.mesh
		}
		geoms = append(geoms, ag)
	}
	var cams []Camera
	for i, e := range c.cameras {
		a := c.attrsOf(e, "camera", c.camCls[i])
		cam := Camera{Name: a.str("name", ""), Body: c.camBod[i], Fovy: a.float("fovy", 45)}
		cam.Pos, cam.Rot = a.vec3("pos", sim.Vec3{}), a.orientation().Normalize()
		if mode := a.str("mode", "fixed"); mode != "fixed" {
			c.warn(fmt.Sprintf("<camera> mode %q kept fixed to its body", mode))
		}
		a.ignore("target", "ipd", "user", "resolution", "focal", "sensorsize", "principal", "focalpixel", "principalpixel")
		a.finish()
		cams = append(cams, cam)
	}
	return geoms, cams
}
