// Package sim holds the small spatial-math types the simulation's users
// share: Vec3 (positions in m, velocities in m/s), Quat (unit quaternions,
// w first, as MuJoCo writes them) and Mat3 (row-major rotation matrices).
//
// The physics engine itself is sim/articulated (generalized coordinates,
// MuJoCo 3.3.8's equations; MJCF models through sim/mjcf, contacts through
// sim/convex). Every scene runs on it, the built-in tabletop included
// (tasks/scenes/*.xml). The package used to hold a second engine in
// maximal coordinates, built for the floating gripper; it was removed
// (issue 47) and results measured on it are labelled as the earlier
// engine's in bench/RESULTS.md.
package sim
