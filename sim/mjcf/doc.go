// Package mjcf imports MuJoCo MJCF models into sim/articulated: bring your
// own robot.
//
// Load (or Parse) reads an MJCF file, resolves
// <include>, default classes and childclass, and compiles the body tree as
// MuJoCo 3.3.8's compiler does (frames from pos, quat, axisangle, euler,
// xyaxes and zaxis under the <compiler> angle and eulerseq; fromto geoms;
// masses and inertias from <inertial> or from the geoms at their density,
// meshes by their volume; autolimits on) into an articulated.Model:
// MuJoCo's body tree and qpos layout, one to one. It accepts what that
// engine simulates: hinge, slide, ball and free joints with armature,
// damping, springs, actuatorfrcrange, soft limits (solreflimit,
// solimplimit, margin) and frictionloss; gravcomp; joint, connect and weld
// equalities (body or site semantics) and tendon equalities; fixed tendons
// and spatial tendons through sites (springlength, damping, range,
// frictionloss); joint and tendon actuators (motor, position with kv and
// timeconst, velocity, general fixed/affine with activation dynamics) with
// gear, ctrlrange, forcerange; <option> timestep, gravity, integrator
// (Euler, implicitfast, implicit, RK4), cone, solver and the flags the
// engine implements; mocap bodies; keyframes with qpos, qvel, ctrl, act,
// time, mpos, mquat; colliding geoms (plane, sphere, capsule, ellipsoid,
// cylinder, box, mesh through its convex hull) with MuJoCo's contact
// attributes, <contact><exclude> and <pair>. Model also keeps the
// sites, every geom (with its loaded OBJ or binary STL mesh) and the
// cameras on their bodies, for end effectors and rendering, and
// Model.Kinematics composes the body tree's frames for given
// coordinates without stepping.
//
// Anything that changes the physics and is not simulated (wrapping
// tendons, muscles, composites, flex, height fields, unknown elements and
// attributes) is an error naming the element, the attribute and the line
// (Options.Lenient drops it with a warning). What does not change the
// dynamics (visual settings, textures, lights, sensors) is dropped and
// listed in Model.Warnings.
//
// The input is bounded: MaxBytes per file, MaxDepth of element nesting,
// MaxElements in all, MaxIncludes, MaxTriangles over all meshes; DOCTYPE
// declarations and entities other than XML's predefined five are refused,
// so entity expansion cannot grow a file. Files are read through
// internal/safefile (regular files only, never blocking on a FIFO, bytes
// counted as read), and includes and meshes must resolve, links followed,
// inside the model's folder. Physical values are checked as MuJoCo's
// compiler checks them: explicit inertia non-negative, positive-definite
// and satisfying A + B >= C; a moving body's mass and every principal
// inertia at least mjMINVAL (1e-15). Beyond MuJoCo, a timestep must be in
// (0, MaxTimestep], gravity finite and at most MaxGravity, and a limited
// control or force range ordered. FuzzParse, FuzzLoadIncludes
// and FuzzMesh check that no input panics.
//
// The tests compare the compiled models' trajectories and contacts with
// MuJoCo 3.3.8 (scripts/mujoco-oracle.sh); bench/mujoco times the engine
// against native MuJoCo 2.2.2 on the same files.
package mjcf
