// Package convex owns convex collision geometry as MuJoCo 3.3.8 does it:
//
//   - the convex hull of a point set (Quickhull with a tolerance; hull.go),
//     which is what MuJoCo collides for a mesh geom;
//   - support functions for MuJoCo's primitives (sphere, capsule, ellipsoid,
//     cylinder, box) and for hulls, in a posed local frame (shape.go);
//   - the narrow phase between two posed shapes (collide.go): GJK for
//     distance and EPA for penetration (gjk.go), with MuJoCo's margin and gap
//     (a contact exists while dist < margin; IncludeMargin = margin − gap)
//     and its contact convention (mjContact: dist negative in penetration,
//     pos midway between the surfaces, frame row 0 the normal from geom1 to
//     geom2, tangents as mju_makeFrame). The pairs for which MuJoCo has its
//     own multi-contact colliders follow them: plane–box (up to 4 corners),
//     plane–capsule (2 ends), plane–cylinder (up to 4 rim points),
//     plane–mesh (the deepest hull vertex and up to 2 hull neighbours within
//     margin, as mjc_PlaneConvex), parallel capsules (up to 2), capsule–box
//     (up to 2, mjraw_CapsuleBox's case analysis; capsulebox.go) and box–box
//     (mjc_BoxBox's face case: incident corner, edge or face clipped, with
//     its halved dist; its edge case: an incident quad projected on a
//     reference face, with its quirks; then its filter, at most 8;
//     boxbox.go). Every other pair gives one contact, as MuJoCo's GJK/EPA
//     does without multiccd;
//   - mesh mass properties as MuJoCo's compiler computes them (inertia.go):
//     exact, convex (the hull), shell (surface) and legacy (MuJoCo's
//     default, absolute tetrahedron volumes).
//
// testdata/mujoco holds scenes and MuJoCo 3.3.8's output for them
// (scripts/mujoco-contacts.sh regenerates it); the tests compare contact
// counts, dist, position, frame and mesh inertia against it. Known
// differences: face-on-face pairs through GJK/EPA may report another point
// of the touching patch than MuJoCo; curved pairs agree to MuJoCo's
// ccd_tolerance (1e-6 m), not to rounding. The zero Collider runs GJK and
// EPA to rounding; Collider.Tolerance and MaxIterations stop them as
// MuJoCo's ccd_tolerance and ccd_iterations do.
//
// The package is a leaf: it imports only the standard library. Lengths are in
// metres, rotations are row-major 3×3 matrices like MuJoCo's xmat (world =
// Rot·local + Pos). A Collider's zero value is ready to use; after its scratch
// buffers have grown once, Collide allocates nothing when dst has capacity.
package convex
