// Package sim is a small rigid-body engine for tabletop manipulation.
//
// A Model describes a scene and never changes during Step; a State holds
// everything that does. Build a Model with a Builder (plain Go values:
// BodyDesc, ShapeDesc, JointDesc; Build reports bad descriptions as errors),
// make a State with m.NewState(), and advance it with Step(m, s), which moves
// s by m.Opt.Timestep (s; default 2.5 ms) without allocating once the State
// has warmed up (the first steps size its contact buffers). Bodies, shapes and
// joints are referred to by BodyID, ShapeID and JointID, indices into the
// Model's slices. Body 0 (World) is the static world body and always exists.
// Units are SI: m, kg, s, N, rad; quaternions are (w, x, y, z).
//
// Step = Step1 (collide: contacts of the current poses, matched with the
// previous step's for warm starting) + Step2 (apply State.Ctrl and mocap
// targets, solve, integrate), as in MuJoCo's mj_step1/mj_step2, so a
// controller may read s.Contacts() and write s.Ctrl in between.
//
// Physics: bodies are simulated in maximal coordinates. Contacts (box,
// sphere, capsule, cylinder, half-space plane, with manifolds of up to four
// points; MuJoCo's contype/conaffinity bitmasks filter them) and joints
// (soft weld, prismatic, revolute, with limits, springs, damping and
// force-limited PD motors driven by State.Ctrl; two or three revolute
// joints between the same bodies may form one compound joint, MuJoCo's
// several hinges in one body, see JointDesc.Compound), and MuJoCo-style affine
// actuators on joints (ActuatorDesc: gain, bias, gear, ranges; their
// position and velocity feedback implicit) are solved
// together by a substepped soft-constraint solver in the style of Box2D v3's
// "soft step" (TGS-soft): each Step collides once, then each of
// Options.Substeps substeps integrates velocities, warm starts, solves with
// soft position bias, integrates positions and relaxes without bias;
// restitution is applied at the end of the step. The joints' effective
// masses follow every substep, or are held for the step, like the
// contacts', under Options.JointMassPerStep (set for MJCF imports; about
// 1.3–1.4× faster on arm6 and the humanoid at equal substeps). Friction is Coulomb with the
// larger of the two shapes' coefficients (as MuJoCo combines them), plus
// torsional friction about the normal. Contacts are speculative: a shape's
// margin grows with its speed, so fast bodies do not tunnel. Free flight is
// integrated exactly for gravity; the gyroscopic torque is off unless
// Options.Gyroscopic is set (a spinning asymmetric body then conserves its
// angular momentum), and world inverse inertias and contact Jacobians are
// held for the duration of a step.
//
// Geometry: all pairs are exact except cylinder-capsule and cylinder-cylinder
// with non-parallel axes, which treat the cylinder as the square prism around
// it; cylinder cap rims are sampled as 8-gons (4 points on a plane).
//
// Mocap bodies (BodyDesc.Mocap) are kinematic: State.SetMocap sets a target
// pose that the body reaches at the end of the next Step. AddGripper builds
// the MetaWorld-like gripper of the benchmark scene: a free hand welded
// (softly, 20 ms time constant) to a mocap body, with two fingers on
// prismatic joints driven by PD position motors (see Gripper).
//
// Robustness: speeds (Options.MaxSpeed) and penetration recovery
// (Options.MaxPushSpeed) are capped, so are the contact manifolds of one
// step (Options.MaxContacts), and NaN, blow-ups, deep penetration, bad
// controls and dropped contact pairs are counted in State.Warnings instead
// of panicking or exhausting memory. Step is
// deterministic: identical Model, State and controls give bit-identical
// States on one GOARCH (TestDeterminism pins the hash per GOARCH).
//
// A Model is safe to share between goroutines; a State is used by one
// goroutine at a time. Rendering, control and rewards live in render,
// control and tasks.
package sim
