// Package articulated is a rigid-body engine in generalized (joint)
// coordinates with MuJoCo's formulation, checked against MuJoCo 3.3.8.
//
// A static Model (MuJoCo's mjModel: a body tree with parent ids, body
// frames, inertial frames, masses and principal inertias; hinge, slide,
// ball and free joints with their qpos and dof addresses, axis, anchor,
// armature, damping, stiffness and springref; actuators; options) and a
// Data (qpos, qvel, ctrl, time and everything computed from them,
// allocated once by NewData) go through Step, which follows mj_step's
// stages:
//
//   - position: forward kinematics (mj_kinematics), subtree coms, body
//     inertias and dof motions about each root subtree's com (mj_comPos),
//     the joint-space inertia by the composite rigid-body algorithm with
//     armature on its diagonal (mj_crb) and its LᵀDL factor over the tree
//     (only ancestor entries fill in);
//   - velocity: body velocities and dof motion derivatives (mj_comVel),
//     passive forces (joint springs towards springref, quaternion springs
//     for ball and free joints, dampers, body gravcomp), bias forces by
//     recursive Newton–Euler (mj_rne);
//   - tendons: fixed tendons (length Σ coef·q over hinge and slide joints)
//     with a dead-band spring (springlength, default the length at the
//     spring references), a damper, soft length limits and frictionloss;
//   - actuation: joint and fixed-tendon transmissions with gear, affine
//     gain and bias
//     (MuJoCo's motor, position with kv, velocity and general shortcuts),
//     ctrlrange clamping, forcerange, and the joints' actuatorfrcrange on
//     the generalized actuator force; activation dynamics (integrator,
//     filter, filterexact; actrange, actearly; dyn.go) where the force
//     multiplies the activation instead of ctrl;
//   - acceleration: qacc = M⁻¹(passive − bias + actuator), then
//     equality constraints (connect: a body point, or a site, held on
//     another body or site or the world, 3 rows; weld: a body's pose relative to another's at
//     qpos0, 6 rows with torquescale; joint and tendon: one joint's
//     (tendon's) displacement a quartic polynomial of another's, or
//     locked), joint frictionloss and joint limits as MuJoCo's
//     soft constraints: always-on equality rows, a row per dof with
//     frictionloss and per active limit (hinge and slide ranges, ball cone
//     angle; margin), impedance from solimp (a connect's or weld's from
//     the norm of its violation),
//     R = (1−imp)/imp·diagApprox (dof_invweight0: M⁻¹'s diagonal at
//     qpos0; body_invweight0 for connects and welds, as mj_setConst),
//     reference acceleration −b·J·q̇ − k·imp·(dist − margin)
//     from solref (refsafe: timeconst ≥ 2·timestep; no position term for
//     friction); the constrained qacc minimizes MuJoCo's primal cost
//     ½‖a − a₀‖²_M + Σ s(J·a − aref) (limits: ½·D·min(0, ·)²; friction:
//     quadratic within ±R·frictionloss, linear beyond) by Newton's method
//     with a line search stopped at MuJoCo's ls_tolerance and
//     ls_iterations (Option.LSTolerance), MuJoCo's default solver, iterated until
//     mj_solNewton's test (improvement or gradient norm, scaled by
//     1/(meaninertia·nv), below Option.Tolerance; at most
//     Option.Iterations) stops it (the tree-sparse factor of H = M + JᵀDJ,
//     or a dense Cholesky when an equality or tendon row is present);
//   - integration: semi-implicit Euler with joint damping integrated
//     implicitly (M + h·diag(damping), MuJoCo's default "eulerdamp"), or
//     implicitfast (M − h·∂f/∂qvel: dof damping and joint actuators'
//     velocity terms on the diagonal, tendon dampers' and tendon
//     actuators' J·Jᵀ terms kept within M's tree sparsity as MuJoCo
//     does), or implicit (the same plus −∂qfrc_bias/∂qvel, the Coriolis
//     and centrifugal derivative, by an exact central difference of the
//     quadratic bias; dense LU of the unsymmetric matrix), or RK4 (MuJoCo's tableau: Forward at h/2, h/2 and h, positions
//     combined on the manifold); ball and free quaternions
//     integrate as mj_integratePos (free joints: linear velocity in the
//     world frame, angular in the body frame).
//
// The disable flags (MuJoCo's bit values) constraint, equality,
// frictionloss, limit, spring, damper, gravity, clampctrl, actuation,
// refsafe and eulerdamp are honoured. Contacts (collision.go,
// contact.go): geoms collided as mj_collision does through sim/convex
// (GJK and EPA stopped at MuJoCo's ccd_tolerance and ccd_iterations,
// Option.CCDTolerance), and contact rows on MuJoCo's pyramidal or elliptic cone (cone.go) in
// the same solver. Spatial tendons through points fixed on bodies
// (spatial.go). Not simulated yet: tendon wrapping and a weld's explicit
// relpose (the MJCF import refuses models that need them), and
// the constraint solve is Newton's minimizer to MuJoCo's tolerance test
// (MuJoCo's Newton and CG reach it within their tolerance) or MuJoCo's PGS on the
// dual with its iterations and tolerance (pgs.go). Mocap bodies
// (mocap.go) take their frames from Data.MocapPos and MocapQuat, set by
// the caller: a weld to one drives a gripper as MetaWorld's. The broad
// phase keeps static pair filters from SetCollision and per step a
// bounding-sphere and a world-box test that can drop no contact.
//
// Step allocates nothing, is bit-deterministic, and never panics on a bad
// state: a non-finite or huge (> MaxVal) qpos, qvel or qacc resets the
// state to qpos0 and is counted in Data.Warnings, as MuJoCo's
// mjWARN_BADQACC. New returns errors for bad models.
//
// Of the project's packages it imports only sim/convex (a leaf, for the
// narrow phase); sim/mjcf builds its
// Models from MJCF (mjcf.Load).
package articulated
