// Package mjcf imports MuJoCo MJCF models into sim: bring your own robot.
//
// Load (or Parse) reads an MJCF file, resolves <include>, default classes
// and childclass, compiles the body tree as MuJoCo's compiler does (frames
// from pos, quat, axisangle, euler, xyaxes and zaxis under the <compiler>
// angle and eulerseq; fromto geoms; masses and inertias from <inertial> or
// from the geoms at their density) and emits it through sim.Builder:
//
//   - a body with joints becomes a sim body; a hinge or slide joint becomes a
//     sim Revolute or Prismatic joint to its parent (with range, damping,
//     stiffness, springref, ref, and armature as rotor inertia or added
//     mass on the coordinate, sim.JointDesc.Armature); a free joint leaves the body
//     free; a body with 2 or 3 hinges (independent axes) is one sim body on
//     a compound sim joint (sim.JointDesc.Compound: the hinges in sequence,
//     no intermediate bodies); other multi-joint bodies (slides, four or
//     more joints, or Options.Chain) are a chain of sim bodies on the same
//     frame, each intermediate carrying a small share (IntermediateMass) of
//     the body's mass; a body without joints is merged rigidly into its
//     parent (as MuJoCo treats it);
//   - geoms plane, box, sphere, capsule and cylinder collide (contype,
//     conaffinity, friction, condim ≥ 4 torsional friction, contact/exclude;
//     MuJoCo's parent–child filter); ellipsoids and meshes count for mass and
//     are visual-only (meshes are loaded from OBJ or binary STL for
//     rendering); sites and cameras are kept with their body and local pose;
//   - motor, position, velocity and general actuators on joints become
//     sim.ActuatorDesc (gain, bias, gear, ctrlrange, forcerange);
//   - equality weld becomes a sim Weld joint;
//   - keyframes (<key qpos ctrl>) are kept as Model.Keyframes, which
//     SetKeyframe puts a State in (MuJoCo's mj_resetDataKeyframe).
//
// Anything else that changes the physics (tendons, muscles, connect
// equalities, ball joints, frictionloss, pair contacts, composites, ...) is
// an error naming the element, the attribute and the line. What does not
// (visual settings, textures, lights, sensors, solver tuning the
// engine replaces with its own soft constraints) is dropped and listed in
// Model.Warnings.
//
// The input is bounded: MaxBytes per file, MaxDepth of element nesting,
// MaxElements in all, MaxIncludes, MaxTriangles over all meshes; DOCTYPE
// declarations and entities other than XML's predefined five are refused,
// so entity expansion cannot grow a file. Files are read through
// internal/safefile (regular files only, never blocking on a FIFO, bytes
// counted as read), and includes and meshes must resolve, links followed,
// inside the model's folder. Physical values are checked as MuJoCo's
// compiler checks them: explicit inertia non-negative, positive-definite
// and satisfying A + B >= C; a moving body's mass and explicit inertia at
// least mjMINVAL (1e-15); a timestep in (0, MaxTimestep]; gravity finite
// and at most MaxGravity; control and force ranges ordered. FuzzParse,
// FuzzLoadIncludes and FuzzMesh check that no input panics.
//
// LoadArticulated compiles the same MJCF for sim/articulated instead
// (generalized coordinates, MuJoCo 3.3.8's equations and defaults, e.g.
// autolimits on): hinge, slide, ball and free joints with armature,
// damping, springs, actuatorfrcrange, soft limits (solreflimit,
// solimplimit, margin) and frictionloss; gravcomp; joint, connect and
// weld equalities (body or site semantics) and tendon equalities; fixed tendons (springlength, damping,
// range, frictionloss); joint and tendon actuators (motor, position with kv,
// velocity, general fixed/affine) with gear, ctrlrange, forcerange;
// <option> timestep, gravity, integrator (Euler, implicitfast, implicit, RK4) and the
// flags the engine implements; keyframes with qpos, qvel, ctrl, time.
// There, what it does not simulate (spatial tendons that wrap,
// colliding geoms unless contacts are disabled, RK4, other flags) is an
// error with element, attribute and line.
//
// Model keeps the MJCF view (bodies with their MuJoCo mass, principal
// inertia, inertial frame and world pose at qpos0; joints with their MuJoCo
// coordinate q = q_sim + ref; actuators; sites; cameras; visual geoms) next
// to the compiled sim.Model; bench/mujoco compares it with MuJoCo 2.2.2.
package mjcf
