package convex_test

import (
	"fmt"

	"github.com/vlmrb/vlmrb/sim/convex"
)

// A 10 cm cube resting 1 mm into a ground plane: MuJoCo's plane–box rule
// gives its four bottom corners, each 1 mm deep, normals pointing up from
// the plane (geom1) to the box (geom2).
func Example() {
	var c convex.Collider
	plane := &convex.Shape{Kind: convex.Plane}
	box := &convex.Shape{Kind: convex.Box, Size: convex.Vec3{0.05, 0.05, 0.05}}
	ground := convex.IdentityPose()
	pose := convex.Pose{Pos: convex.Vec3{0, 0, 0.049}, Rot: convex.Identity}
	con, err := c.Collide(nil, plane, &ground, box, &pose, 0, 0)
	if err != nil {
		panic(err)
	}
	for _, k := range con {
		fmt.Printf("dist %.3f m at (%.3f, %.3f, %.4f), normal %v\n", k.Dist, k.Pos[0], k.Pos[1], k.Pos[2], k.Normal())
	}
	// Output:
	// dist -0.001 m at (-0.050, -0.050, -0.0005), normal [0 0 1]
	// dist -0.001 m at (0.050, -0.050, -0.0005), normal [0 0 1]
	// dist -0.001 m at (-0.050, 0.050, -0.0005), normal [0 0 1]
	// dist -0.001 m at (0.050, 0.050, -0.0005), normal [0 0 1]
}
