package render

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/vlmrb/vlmrb/sim/articulated"
	"github.com/vlmrb/vlmrb/sim/mjcf"
)

// Scenery is what UpdateFromModel adds around a tabletop task when
// Style.Scenery is set, so that a VLM sees a robot at a table in a room
// rather than a gripper floating over a board in the sky: a table slab with
// legs standing on a tiled floor, a backdrop wall behind the table, and a
// robot arm whose links reach from a pedestal beside the table to the
// gripper. It is visual only: none of it exists in the engine.
//
// The table is found by name (the world's geoms whose name contains "table");
// the arm ends at the body named ArmBody ("hand" by default) and is posed by
// two-link inverse kinematics every frame, the way MetaWorld's Sawyer arm
// follows its mocap hand. The arm casts no shadow: a shadow map fitted to it
// would spread its texels over the whole arm, and its long shadow would
// darken the objects the scorer looks at. Lengths are in m.
const (
	// SceneryFloorDepth is how far the floor lies below the table top (a
	// 0.75 m lab table).
	SceneryFloorDepth = 0.75
	// SceneryWallGap is the distance from the table's far edge to the
	// backdrop wall.
	SceneryWallGap = 0.55

	slabThick    = 0.04  // table slab under a zero-thickness table plane
	legHalf      = 0.025 // table legs: square section, half side
	legInset     = 0.06  // legs' distance in from the table corners
	armBaseBack  = 0.13  // pedestal centre behind the table's near edge
	armShoulderZ = 0.26  // shoulder height above the table top
	armUpper     = 0.55  // shoulder–elbow link length
	armFore      = 0.58  // elbow–wrist link length
	armWrist     = 0.12  // wrist link above the gripper's top
)

// Segmentation ids of the scenery, above any FromModel body id.
const (
	SegFloor    int32 = 1<<20 + iota // the floor
	SegBackdrop                      // the backdrop wall
	SegTable                         // the table slab and legs
	SegArm                           // the robot arm and its pedestal
)

// ArmBody is the body the scenery arm reaches to.
const ArmBody = "hand"

// Scenery colours: the arm is a saturated steel blue so that colour keys of
// task objects (red, green, yellow, white, black) and of the gripper do not
// pick it up; joints and pedestal are a lighter shade of it, bright enough
// that their faces in shade (ambient light only) stay clear of black.
var (
	armColor      = [3]float32{0.42, 0.57, 0.82}
	armJointColor = [3]float32{0.55, 0.64, 0.82}
	wallColor     = [3]float32{0.78, 0.74, 0.62}
	floorColors   = [2][3]float32{{0.5, 0.5, 0.48}, {0.42, 0.42, 0.4}}
)

// tableBounds returns the xy extent and top height of the world's geoms
// named like a table.
func tableBounds(a *mjcf.Model, d *articulated.Data) (lo, hi mgl64.Vec3, plane, ok bool) {
	lo, hi, plane, _, ok = tableShapes(a, d)
	return lo, hi, plane, ok
}

// tableShapes is tableBounds, and whether the table is one geom whose
// pose has no rotation (so its top fills the bounds' top rectangle).
func tableShapes(a *mjcf.Model, d *articulated.Data) (lo, hi mgl64.Vec3, plane, single, ok bool) {
	n, rotated := 0, false
	for i := range a.Geoms {
		g := &a.Geoms[i]
		if g.Body != 0 || !containsFold(g.Name, "table") {
			continue
		}
		p, q := GeomPose(d, g)
		var h mgl64.Vec3
		switch g.Type {
		case "plane":
			h = mgl64.Vec3{g.Size.X, g.Size.Y, 0}
			if h[0] <= 0 || h[1] <= 0 {
				continue // an infinite plane is a floor, not a table
			}
			plane = true
		case "box":
			h = vec(g.Size)
		default:
			continue
		}
		n++
		if math.Abs(math.Abs(q.W)-1) > 1e-9 {
			rotated = true
		}
		a, b := vec(p).Sub(h), vec(p).Add(h)
		if !ok {
			lo, hi, ok = a, b, true
			continue
		}
		for k := 0; k < 3; k++ {
			lo[k], hi[k] = math.Min(lo[k], a[k]), math.Max(hi[k], b[k])
		}
	}
	return lo, hi, plane, ok && n == 1 && !rotated, ok
}

// addScenery appends the scenery objects to sc (see Scenery).
func (sc *Scene) addScenery(a *mjcf.Model, d *articulated.Data) {
	lo, hi, plane, single, ok := tableShapes(a, d)
	if !ok {
		return
	}
	id := mgl64.QuatIdent()
	add := func(name string, k Kind, size, pos mgl64.Vec3, rot mgl64.Quat, mat Material, seg int32, role Role, noShadow bool) {
		sc.Objects = append(sc.Objects, Object{Name: name, Kind: k, Size: size, Pos: pos, Rot: rot, Mat: mat,
			ID: seg, Role: role, NoShadow: noShadow, NoReceive: true})
	}
	top := hi[2]
	c := lo.Add(hi).Mul(0.5)
	half := hi.Sub(lo).Mul(0.5)
	floorZ := top - SceneryFloorDepth
	bottom := lo[2]
	wood := Wood()
	edge := Solid(wood.Color[0]*0.8, wood.Color[1]*0.8, wood.Color[2]*0.8)
	if plane {
		// a slab under the plane so the table has an edge: its four sides and
		// its bottom, from 2 mm below the plane down. A closed box's top would
		// lie under the plane where it is never seen, yet under multisampling
		// llvmpipe shades every rasterized fragment, hidden or not, and that
		// face would cost as much as the table top itself.
		zt := top - 0.002
		bottom = zt - slabThick
		zm := (zt + bottom) / 2
		for _, f := range [5]struct {
			size, pos mgl64.Vec3
			rot       mgl64.Quat
		}{
			{mgl64.Vec3{half[0], slabThick / 2, 0}, mgl64.Vec3{c[0], lo[1], zm}, mgl64.QuatRotate(math.Pi/2, mgl64.Vec3{1, 0, 0})},
			{mgl64.Vec3{half[0], slabThick / 2, 0}, mgl64.Vec3{c[0], hi[1], zm}, mgl64.QuatRotate(-math.Pi/2, mgl64.Vec3{1, 0, 0})},
			{mgl64.Vec3{slabThick / 2, half[1], 0}, mgl64.Vec3{lo[0], c[1], zm}, mgl64.QuatRotate(-math.Pi/2, mgl64.Vec3{0, 1, 0})},
			{mgl64.Vec3{slabThick / 2, half[1], 0}, mgl64.Vec3{hi[0], c[1], zm}, mgl64.QuatRotate(math.Pi/2, mgl64.Vec3{0, 1, 0})},
			{mgl64.Vec3{half[0], half[1], 0}, mgl64.Vec3{c[0], c[1], bottom}, mgl64.QuatRotate(math.Pi, mgl64.Vec3{1, 0, 0})},
		} {
			add("table slab", Plane, f.size, f.pos, f.rot, edge, SegTable, RoleStatic, true)
		}
	}
	legH := (bottom - floorZ) / 2
	if legH > 0 {
		for i, q := range [4][2]float64{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}} {
			p := mgl64.Vec3{c[0] + q[0]*(half[0]-legInset), c[1] + q[1]*(half[1]-legInset), floorZ + legH}
			add([]string{"table leg 1", "table leg 2", "table leg 3", "table leg 4"}[i], Box,
				mgl64.Vec3{legHalf, legHalf, legH}, p, id, edge, SegTable, RoleStatic, true)
		}
	}
	// The floor runs from 5 m in front of the table's centre to the
	// backdrop and no further: floor behind the wall is never seen, yet it
	// would be rasterized (and, under multisampling, shaded) behind it. Its
	// centre moves by whole metres so the 0.5 m checker keeps its place.
	wallY := hi[1] + SceneryWallGap
	floorY := c[1] - 2
	add("floor", Plane, mgl64.Vec3{4, wallY - floorY, 0}, mgl64.Vec3{c[0], floorY, floorZ}, id,
		Checker(floorColors[0], floorColors[1], 2), SegFloor, RoleStatic, true)
	if single {
		// The table top hides part of the floor from any camera above it:
		// the batch leaves that part out (coverRect).
		sc.Objects[len(sc.Objects)-1].cover = coverRect{lo[0], lo[1], hi[0], hi[1], top, true}
	}
	// the backdrop faces the robot: local +z (the plane's normal) → world −y
	wall := mgl64.QuatRotate(math.Pi/2, mgl64.Vec3{1, 0, 0})
	wallH := 1.1
	add("backdrop", Plane, mgl64.Vec3{4, wallH, 0}, mgl64.Vec3{c[0], wallY, floorZ + wallH}, wall,
		Material{Color: wallColor, Specular: 0.02, Shininess: 8}, SegBackdrop, RoleStatic, true)
	sc.addArm(a, d, mgl64.Vec3{c[0], lo[1] - armBaseBack, top}, floorZ)
}

// addArm appends a Sawyer-like arm from a pedestal at base (on the table
// top's height, floor at floorZ) to the top of ArmBody's geoms.
func (sc *Scene) addArm(a *mjcf.Model, d *articulated.Data, base mgl64.Vec3, floorZ float64) {
	hb, ok := artBody(a, ArmBody)
	if !ok || hb >= len(d.Xpos) {
		return
	}
	bp, bq := BodyPose(d, hb)
	hpos, hrot := vec(bp), quat(bq).Normalize()
	// the flange: the highest point of the hand's geoms along its local z
	flangeZ := 0.0
	for i := range a.Geoms {
		g := &a.Geoms[i]
		if g.Body != hb {
			continue
		}
		var hz float64
		switch g.Type {
		case "box":
			hz = g.Size.Z
		case "sphere":
			hz = g.Size.X
		case "capsule":
			hz = g.Size.Y + g.Size.X
		case "cylinder":
			hz = g.Size.Y
		}
		flangeZ = math.Max(flangeZ, g.Pos.Z+hz)
	}
	axis := hrot.Rotate(mgl64.Vec3{0, 0, 1})
	flange := hpos.Add(axis.Mul(flangeZ))
	wrist := flange.Add(axis.Mul(armWrist))
	shoulder := base.Add(mgl64.Vec3{0, 0, armShoulderZ})
	elbow, n := elbowIK(shoulder, wrist, armUpper, armFore)

	link := Solid(armColor[0], armColor[1], armColor[2])
	link.Specular, link.Shininess = 0.35, 40
	joint := Solid(armJointColor[0], armJointColor[1], armJointColor[2])
	add := func(name string, k Kind, size, pos mgl64.Vec3, rot mgl64.Quat, mat Material) {
		sc.Objects = append(sc.Objects, Object{Name: name, Kind: k, Size: size, Pos: pos, Rot: rot, Mat: mat,
			ID: SegArm, Role: RoleRobot, NoShadow: true, NoReceive: true})
	}
	id := mgl64.QuatIdent()
	pedH := (base[2] - floorZ) / 2
	add("arm pedestal", Cylinder, mgl64.Vec3{0.08, pedH, 0}, mgl64.Vec3{base[0], base[1], floorZ + pedH}, id, joint)
	add("arm base", Cylinder, mgl64.Vec3{0.1, 0.03, 0}, base.Add(mgl64.Vec3{0, 0, 0.03}), id, joint)
	add("arm column", Cylinder, mgl64.Vec3{0.065, armShoulderZ / 2, 0}, base.Add(mgl64.Vec3{0, 0, armShoulderZ / 2}), id, link)
	jr := axisRot(n)
	add("arm shoulder", Cylinder, mgl64.Vec3{0.075, 0.07, 0}, shoulder, jr, joint)
	capsule := func(name string, a, b mgl64.Vec3, r float64) {
		d := b.Sub(a)
		l := d.Len()
		if l < 1e-9 {
			return
		}
		add(name, Capsule, mgl64.Vec3{r, l / 2, 0}, a.Add(b).Mul(0.5), axisRot(d.Mul(1/l)), link)
	}
	capsule("arm upper", shoulder, elbow, 0.055)
	add("arm elbow", Cylinder, mgl64.Vec3{0.06, 0.06, 0}, elbow, jr, joint)
	capsule("arm forearm", elbow, wrist, 0.045)
	add("arm wrist", Sphere, mgl64.Vec3{0.05, 0, 0}, wrist, id, joint)
	capsule("arm wrist link", wrist, flange, 0.035)
}

// elbowIK places the elbow of a two-link chain (lengths l1, l2) from
// shoulder s to wrist w, in the vertical plane through both, elbow up. An
// unreachable wrist stretches the chain toward it. It also returns the
// unit normal of the arm's plane (the elbow's hinge axis).
func elbowIK(s, w mgl64.Vec3, l1, l2 float64) (elbow, hinge mgl64.Vec3) {
	d := w.Sub(s)
	dist := d.Len()
	if dist < 1e-6 {
		return s.Add(mgl64.Vec3{0, 0, l1}), mgl64.Vec3{1, 0, 0}
	}
	u := d.Mul(1 / dist)
	up := mgl64.Vec3{0, 0, 1}
	v := up.Sub(u.Mul(u.Dot(up)))
	if v.Len() < 1e-6 { // wrist straight above or below: bend toward −y
		v = mgl64.Vec3{0, -1, 0}
	}
	v = v.Normalize()
	dist = math.Min(dist, l1+l2-1e-6)
	dist = math.Max(dist, math.Abs(l1-l2)+1e-6)
	a := (l1*l1 - l2*l2 + dist*dist) / (2 * dist)
	h := math.Sqrt(math.Max(l1*l1-a*a, 0))
	return s.Add(u.Mul(a)).Add(v.Mul(h)), u.Cross(v).Normalize()
}

// axisRot returns the rotation taking local +z to the unit vector d.
func axisRot(d mgl64.Vec3) mgl64.Quat {
	z := mgl64.Vec3{0, 0, 1}
	if d.Dot(z) < -0.999999 {
		return mgl64.QuatRotate(math.Pi, mgl64.Vec3{1, 0, 0})
	}
	return mgl64.QuatBetweenVectors(z, d).Normalize()
}

// goalPadRadius is the smallest radius of the disc drawn on the table under
// a goal marker (m): wider than the tasks' 2 cm pucks so the disc still
// shows around an object that sits on the goal.
const goalPadRadius = 0.04

// addGoalPads draws, under every goal sphere above the table, a flat disc on
// the table top and a thin pole up to the sphere, with the sphere's id and
// role in a paler shade of its (themed) material: a marker in the air reads
// as a location, a goal covered by the object still shows in segmentation
// and to a VLM, and colour keys tuned to the sphere still find the sphere
// alone (its centroid stays the goal point).
func (sc *Scene) addGoalPads(lo, hi mgl64.Vec3, n int) {
	top := hi[2]
	for i := 0; i < n; i++ {
		o := sc.Objects[i]
		if o.Role != RoleGoal || o.Kind != Sphere || o.Pos[2] <= top ||
			o.Pos[0] < lo[0] || o.Pos[0] > hi[0] || o.Pos[1] < lo[1] || o.Pos[1] > hi[1] {
			continue
		}
		r := math.Max(goalPadRadius, 2*o.Size[0])
		mat := o.Mat
		for k := 0; k < 3; k++ {
			mat.Color[k] = 0.45*mat.Color[k] + 0.55
			mat.Color2[k] = 0.45*mat.Color2[k] + 0.55
		}
		pad := Object{Name: o.Name + " pad", Kind: Cylinder, Size: mgl64.Vec3{r, 0.001, 0},
			Pos: mgl64.Vec3{o.Pos[0], o.Pos[1], top + 0.001}, Rot: mgl64.QuatIdent(), Mat: mat, ID: o.ID, Role: RoleGoal, NoShadow: true}
		sc.Objects = append(sc.Objects, pad)
		if h := (o.Pos[2] - top) / 2; h > o.Size[0] {
			pole := pad
			pole.Name, pole.Size, pole.Pos = o.Name+" pole", mgl64.Vec3{0.003, h, 0}, mgl64.Vec3{o.Pos[0], o.Pos[1], top + h}
			sc.Objects = append(sc.Objects, pole)
		}
	}
}
