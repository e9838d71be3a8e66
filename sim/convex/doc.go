// Package convex owns convex collision geometry as MuJoCo 3.x does it: the
// convex hull of a point set (Quickhull with a tolerance), support functions
// for MuJoCo's primitives (sphere, capsule, ellipsoid, cylinder, box) and for
// hulls, the narrow phase between two posed convex shapes (GJK for distance,
// EPA for penetration) with MuJoCo's margin/gap rule and contact frame
// (mjContact: dist negative in penetration, pos midway between the surfaces,
// frame row 0 the normal pointing from geom1 to geom2), the multi-contact
// plane colliders (plane–box, plane–capsule, plane–hull as mjc_PlaneConvex)
// and a box–box face-clipping manifold, and mesh mass properties as MuJoCo's
// compiler computes them (volume of a closed mesh by signed tetrahedra, its
// convex hull, or its shell).
//
// The package is a leaf: it imports only the standard library. Lengths are in
// metres, rotations are row-major 3×3 matrices like MuJoCo's xmat (world =
// Rot·local + Pos). A Collider's zero value is ready to use; after its scratch
// buffers have grown once, Collide allocates nothing when dst has capacity.
package convex
