package render

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// Camera is a pinhole camera. It looks along its local −Z axis with local +Y
// up (the OpenGL and MuJoCo convention).
type Camera struct {
	Name string
	// Pos (m) and Rot (camera-to-world rotation) place the camera in the
	// world, or in the frame of Body when Body is set.
	Pos mgl64.Vec3
	Rot mgl64.Quat
	// FovY is the vertical field of view in degrees (0 means 45).
	FovY float64
	// Width and Height are the image size in pixels.
	Width, Height int
	// Near and Far clip distances in m (0 means 0.01 and 10).
	Near, Far float64
	// Body names the body this camera rides on; empty for a fixed camera.
	// FromModel-based users resolve it with Attach (ResolveCamera).
	Body string
}

// MaxImageSide is the largest width or height any backend accepts.
const MaxImageSide = 8192

// CheckSize reports whether the camera's image size is drawable.
func (c Camera) CheckSize() error {
	if c.Width <= 0 || c.Height <= 0 {
		return fmt.Errorf("render: camera %q: image size %dx%d must be positive", c.Name, c.Width, c.Height)
	}
	if c.Width > MaxImageSide || c.Height > MaxImageSide {
		return fmt.Errorf("render: camera %q: image size %dx%d exceeds %d", c.Name, c.Width, c.Height, MaxImageSide)
	}
	return nil
}

func (c Camera) clip() (near, far float64) {
	near, far = c.Near, c.Far
	if near <= 0 {
		near = 0.01
	}
	if far <= near {
		far = 10
	}
	return near, far
}

func (c Camera) fovy() float64 {
	if c.FovY <= 0 || c.FovY >= 179 {
		return 45
	}
	return c.FovY
}

// View returns the world-to-camera matrix.
func (c Camera) View() mgl64.Mat4 {
	r := c.Rot
	if r.Len() == 0 {
		r = mgl64.QuatIdent()
	}
	inv := r.Normalize().Conjugate().Mat4()
	return inv.Mul4(mgl64.Translate3D(-c.Pos[0], -c.Pos[1], -c.Pos[2]))
}

// Proj returns the OpenGL perspective projection for the camera.
func (c Camera) Proj() mgl64.Mat4 {
	near, far := c.clip()
	aspect := 1.0
	if c.Height > 0 {
		aspect = float64(c.Width) / float64(c.Height)
	}
	return mgl64.Perspective(mgl64.DegToRad(c.fovy()), aspect, near, far)
}

// Forward returns the unit viewing direction in the world.
func (c Camera) Forward() mgl64.Vec3 { return c.Rot.Normalize().Rotate(mgl64.Vec3{0, 0, -1}) }

// Attach returns the camera moved from the body frame (bodyPos, bodyRot)
// into the world; Body is cleared in the result.
func (c Camera) Attach(bodyPos mgl64.Vec3, bodyRot mgl64.Quat) Camera {
	w := c
	w.Pos = bodyPos.Add(bodyRot.Rotate(c.Pos))
	w.Rot = bodyRot.Mul(c.rot()).Normalize()
	w.Body = ""
	return w
}

func (c Camera) rot() mgl64.Quat {
	if c.Rot.Len() == 0 {
		return mgl64.QuatIdent()
	}
	return c.Rot
}

// LookAt returns a camera at eye looking at target with the given world up
// direction, vertical FOV (degrees) and image size.
func LookAt(eye, target, up mgl64.Vec3, fovy float64, w, h int) Camera {
	f := target.Sub(eye).Normalize()
	x := f.Cross(up)
	if x.Len() < 1e-9 { // up parallel to the view direction
		x = f.Cross(mgl64.Vec3{0, 1, 0})
		if x.Len() < 1e-9 {
			x = f.Cross(mgl64.Vec3{1, 0, 0})
		}
	}
	x = x.Normalize()
	y := x.Cross(f)
	return Camera{Pos: eye, Rot: rotFromAxes(x, y, f.Mul(-1)), FovY: fovy, Width: w, Height: h}
}

// XYAxes returns the camera rotation whose local x and y axes are the given
// world directions (MuJoCo's xyaxes attribute); y is orthogonalised.
func XYAxes(x, y mgl64.Vec3) mgl64.Quat {
	x = x.Normalize()
	y = y.Sub(x.Mul(x.Dot(y))).Normalize()
	return rotFromAxes(x, y, x.Cross(y))
}

// EulerXYZ returns the rotation for MuJoCo's default intrinsic "xyz" Euler
// angles (radians).
func EulerXYZ(a, b, c float64) mgl64.Quat {
	return mgl64.QuatRotate(a, mgl64.Vec3{1, 0, 0}).
		Mul(mgl64.QuatRotate(b, mgl64.Vec3{0, 1, 0})).
		Mul(mgl64.QuatRotate(c, mgl64.Vec3{0, 0, 1})).Normalize()
}

func rotFromAxes(x, y, z mgl64.Vec3) mgl64.Quat {
	m := mgl64.Mat4{
		x[0], x[1], x[2], 0,
		y[0], y[1], y[2], 0,
		z[0], z[1], z[2], 0,
		0, 0, 0, 1,
	}
	return mgl64.Mat4ToQuat(m).Normalize()
}

// MetaWorldCenter is the table centre of MetaWorld's scenes; NamedCamera
// poses are those of MetaWorld's xyz_base.xml shifted by center−MetaWorldCenter.
var MetaWorldCenter = mgl64.Vec3{0, 0.6, 0}

// CameraNames lists the names NamedCamera knows.
var CameraNames = []string{"corner", "corner2", "corner3", "corner4", "topview", "close", "behindGripper", "gripperPOV"}

// NamedCamera returns a MetaWorld-like camera. Fixed cameras (corner,
// corner2, corner3, corner4, topview, close) are placed relative to center, the
// table centre in world coordinates (use MetaWorldCenter for MetaWorld's own
// frame). behindGripper and gripperPOV are body-attached: their Pos/Rot are in
// the gripper body frame (z up, fingers along −z) and Body is "hand"; set
// Body to the gripper's body name and resolve with Attach.
func NamedCamera(name string, center mgl64.Vec3, w, h int) (Camera, error) {
	d := center.Sub(MetaWorldCenter)
	c := Camera{Name: name, Width: w, Height: h, FovY: 45}
	switch name {
	case "corner":
		// MetaWorld's xyaxes for this camera give an upside-down image
		// (its users flip it); look from the same spot with z up instead.
		c = LookAt(mgl64.Vec3{-1.1, -0.4, 0.6}.Add(d), center, mgl64.Vec3{0, 0, 1}, 45, w, h)
		c.Name = name
	case "corner2":
		c = LookAt(mgl64.Vec3{1.3, -0.2, 1.1}.Add(d), center, mgl64.Vec3{0, 0, 1}, 60, w, h)
		c.Name = name
	case "corner3":
		c = LookAt(mgl64.Vec3{0.9, 0, 1.5}.Add(d), center, mgl64.Vec3{0, 0, 1}, 45, w, h)
		c.Name = name
	case "corner4":
		c = LookAt(mgl64.Vec3{0.75, 0.075, 0.7}.Add(d), center, mgl64.Vec3{0, 0, 1}, 60, w, h)
		c.Name = name
	case "close":
		// Not in MetaWorld: a corner view from 0.6 m, so a 5 cm object
		// spans about 10 px at 128x128 (MetaWorld's cameras, made for 480
		// px frames, leave it 3–5 px).
		c = LookAt(center.Add(mgl64.Vec3{-0.4, -0.45, 0.32}), center.Add(mgl64.Vec3{0, 0.05, 0.04}), mgl64.Vec3{0, 0, 1}, 45, w, h)
		c.Name = name
	case "topview":
		c.Pos = mgl64.Vec3{0, 0.5, 1.5}.Add(d)
		c.Rot = mgl64.QuatIdent()
	case "behindGripper":
		// Behind and above the hand, looking down past the fingers.
		c = LookAt(mgl64.Vec3{0, -0.35, 0.3}, mgl64.Vec3{0, 0.1, -0.12}, mgl64.Vec3{0, 0, 1}, 60, w, h)
		c.Name, c.Body = name, "hand"
	case "gripperPOV":
		c = LookAt(mgl64.Vec3{0, -0.1, -0.03}, mgl64.Vec3{0, 0.02, -0.25}, mgl64.Vec3{0, 1, 0}, 90, w, h)
		c.Name, c.Body = name, "hand"
	default:
		return Camera{}, fmt.Errorf("render: unknown camera %q (known: %v)", name, CameraNames)
	}
	return c, nil
}

// Orbit returns a camera on a sphere around target: azimuth and elevation in
// degrees (azimuth 0 looks along +y, elevation 90 looks straight down) and
// distance in m. The viewer uses it.
func Orbit(target mgl64.Vec3, azimuth, elevation, distance, fovy float64, w, h int) Camera {
	az, el := mgl64.DegToRad(azimuth), mgl64.DegToRad(elevation)
	el = math.Max(-math.Pi/2+1e-3, math.Min(math.Pi/2-1e-3, el))
	dir := mgl64.Vec3{math.Sin(az) * math.Cos(el), -math.Cos(az) * math.Cos(el), math.Sin(el)}
	return LookAt(target.Add(dir.Mul(distance)), target, mgl64.Vec3{0, 0, 1}, fovy, w, h)
}
