package render

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// DemoTabletop returns the tabletop benchmark scene (the equivalent of
// research/anchors/tabletop.xml): a 1.2 m wooden table, a gripper (palm and
// two finger pads), a blue 5 cm cube, a red goal marker and a cabinet with a
// drawer and handle. Tests, benchmarks and the viewer use it.
func DemoTabletop() *Scene {
	sc := &Scene{
		Lights:     DefaultLights(),
		Ambient:    [3]float32{0.3, 0.3, 0.32},
		Background: [3]float32{0.62, 0.72, 0.85},
	}
	id := mgl64.QuatIdent()
	add := func(name string, k Kind, size, pos mgl64.Vec3, rot mgl64.Quat, mat Material, oid int32, role Role) {
		sc.Objects = append(sc.Objects, Object{Name: name, Kind: k, Size: size, Pos: pos, Rot: rot, Mat: mat, ID: oid, Role: role})
	}
	add("table", Plane, mgl64.Vec3{0.6, 0.6, 0}, mgl64.Vec3{}, id, Wood(), 1, RoleStatic)
	grey := Solid(0.3, 0.3, 0.35)
	pad := Solid(0.8, 0.8, 0.8)
	add("palm", Box, mgl64.Vec3{0.02, 0.06, 0.01}, mgl64.Vec3{0, 0, 0.2}, id, grey, 2, RoleGripper)
	add("lpad", Box, mgl64.Vec3{0.01, 0.005, 0.03}, mgl64.Vec3{0, 0.045, 0.16}, id, pad, 2, RoleGripper)
	add("rpad", Box, mgl64.Vec3{0.01, 0.005, 0.03}, mgl64.Vec3{0, -0.045, 0.16}, id, pad, 2, RoleGripper)
	add("cube", Box, mgl64.Vec3{0.025, 0.025, 0.025}, mgl64.Vec3{0, 0, 0.025}, id, Solid(0.1, 0.5, 0.9), 3, RoleObject)
	add("goal", Sphere, mgl64.Vec3{0.02, 0, 0}, mgl64.Vec3{-0.15, -0.2, 0.02}, id, Solid(0.9, 0.15, 0.1), 4, RoleGoal)
	cab := Solid(0.5, 0.3, 0.2)
	c := mgl64.Vec3{0.2, 0.35, 0}
	for _, b := range []struct {
		name      string
		pos, size mgl64.Vec3
	}{
		{"cab_bottom", mgl64.Vec3{0, 0, 0.005}, mgl64.Vec3{0.1, 0.1, 0.005}},
		{"cab_top", mgl64.Vec3{0, 0, 0.125}, mgl64.Vec3{0.1, 0.1, 0.005}},
		{"cab_left", mgl64.Vec3{0, 0.095, 0.065}, mgl64.Vec3{0.1, 0.005, 0.055}},
		{"cab_right", mgl64.Vec3{0, -0.095, 0.065}, mgl64.Vec3{0.1, 0.005, 0.055}},
		{"cab_back", mgl64.Vec3{0.095, 0, 0.065}, mgl64.Vec3{0.005, 0.1, 0.055}},
	} {
		add(b.name, Box, b.size, c.Add(b.pos), id, cab, 5, RoleStatic)
	}
	dr := Solid(0.7, 0.5, 0.3)
	for _, b := range []struct {
		name      string
		pos, size mgl64.Vec3
	}{
		{"dr_bottom", mgl64.Vec3{0, 0, 0.016}, mgl64.Vec3{0.085, 0.085, 0.004}},
		{"dr_front", mgl64.Vec3{-0.09, 0, 0.066}, mgl64.Vec3{0.005, 0.088, 0.048}},
		{"dr_l", mgl64.Vec3{0, 0.08, 0.045}, mgl64.Vec3{0.085, 0.004, 0.025}},
		{"dr_r", mgl64.Vec3{0, -0.08, 0.045}, mgl64.Vec3{0.085, 0.004, 0.025}},
	} {
		add(b.name, Box, b.size, c.Add(b.pos), id, dr, 6, RoleObject)
	}
	handle := Solid(0.2, 0.2, 0.2)
	add("handle", Capsule, mgl64.Vec3{0.008, 0.04, 0}, c.Add(mgl64.Vec3{-0.115, 0, 0.07}),
		mgl64.QuatRotate(math.Pi/2, mgl64.Vec3{1, 0, 0}), handle, 6, RoleObject)
	add("handle_l", Box, mgl64.Vec3{0.01, 0.004, 0.004}, c.Add(mgl64.Vec3{-0.105, 0.04, 0.07}), id, handle, 6, RoleObject)
	add("handle_r", Box, mgl64.Vec3{0.01, 0.004, 0.004}, c.Add(mgl64.Vec3{-0.105, -0.04, 0.07}), id, handle, 6, RoleObject)
	return sc
}

// DemoCamera is a corner view of DemoTabletop.
func DemoCamera(w, h int) Camera {
	c := LookAt(mgl64.Vec3{-0.38, -0.42, 0.36}, mgl64.Vec3{0.04, 0.1, 0.06}, mgl64.Vec3{0, 0, 1}, 45, w, h)
	c.Name = "corner"
	return c
}
