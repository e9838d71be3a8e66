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

// A mesh geom as MuJoCo treats it: its convex hull collides, the mesh
// itself gives the inertia. Here a 10 cm cube whose top is dented 3 cm:
// the hull is the full cube, the exact volume is 0.9 L.
func ExampleMeshInertia() {
	verts := []convex.Vec3{
		{-.05, -.05, -.05}, {.05, -.05, -.05}, {-.05, .05, -.05}, {.05, .05, -.05},
		{-.05, -.05, .05}, {.05, -.05, .05}, {-.05, .05, .05}, {.05, .05, .05}, {0, 0, .02},
	}
	faces := [][3]int32{{0, 2, 1}, {1, 2, 3}, {0, 1, 4}, {1, 5, 4}, {2, 6, 3}, {3, 6, 7}, {0, 4, 2},
		{2, 4, 6}, {1, 3, 5}, {3, 7, 5}, {4, 5, 8}, {5, 7, 8}, {7, 6, 8}, {6, 4, 8}}
	hull, err := convex.BuildHull(verts, convex.HullOptions{})
	if err != nil {
		panic(err)
	}
	exact, err := convex.MeshInertia(verts, faces, 1000, convex.InertiaExact)
	if err != nil {
		panic(err)
	}
	fmt.Printf("hull: %d vertices, %d faces, %.4f L\n", len(hull.Verts), len(hull.Faces), hull.Volume()*1000)
	fmt.Printf("exact: %.3f kg, centre of mass z %.5f m\n", exact.Mass, exact.COM[2])
	// Output:
	// hull: 8 vertices, 12 faces, 1.0000 L
	// exact: 0.900 kg, centre of mass z -0.00472 m
}
