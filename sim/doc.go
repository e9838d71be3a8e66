// Package sim is a small rigid-body engine for tabletop manipulation.
//
// A Model describes a scene and never changes during Step; a State holds
// everything that does. Step(m, s) advances s by m.Opt.Timestep (s) without
// allocating once the State has warmed up (the first steps size its contact
// buffers). Bodies, shapes and joints are referred to by BodyID, ShapeID and
// JointID, indices into the Model's slices, never pointers. Body 0 (World) is
// the static world body and always exists.
//
// Physics: bodies are simulated in maximal coordinates. Contacts (box, sphere,
// capsule, cylinder, half-space plane, with multi-point manifolds), joints
// (soft weld, prismatic, revolute, with limits, springs, damping and PD
// motors) are solved together by a substepped soft-constraint solver in the
// style of Box2D v3's "soft step" (TGS-soft): the step collides once, then each
// substep integrates velocities, warm starts, solves with soft position
// bias, integrates positions and relaxes without bias; restitution is applied
// at the end of the step. Friction is Coulomb with the larger of the two
// shapes' coefficients (as MuJoCo combines them), plus torsional friction.
//
// Robustness: speeds and penetration recovery are capped, and NaN or blow-up
// is counted in State.Warnings (the body is reset to rest) instead of
// panicking. Step is deterministic: identical Model, State and controls give
// bit-identical States on one GOARCH.
//
// A Model is safe to share between goroutines; a State is used by one
// goroutine at a time. Rendering, control and rewards live in render,
// control and tasks.
package sim
