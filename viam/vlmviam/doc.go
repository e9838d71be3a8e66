// Package vlmviam is vlmrb as a Viam module: the models that viam-server
// loads from the vlmrb-viam binary, and a control.Env over a Viam robot.
//
// Models (Viam's namespace:module-name:model; the names before it,
// vlmrb:service:policy-runner, vlmrb:arm:sim and so on, still work with a
// deprecation warning):
//
//	vlmrb:vlmrb:policy-runner     generic service: runs a vlmrb SAC checkpoint
//	                              in closed loop against a named arm, gripper,
//	                              camera and pose tracker, behind safety limits;
//	                              an actuator (Stop, IsMoving) that StopAll halts
//	vlmrb:vlmrb:policy            mlmodel service: Infer maps an observation
//	                              tensor to an action tensor
//	vlmrb:vlmrb:vlm-scorer        vision service: the clip score of the last L
//	                              frames of a camera, as a classification
//	vlmrb:vlmrb:sim-arm           vlmrb's simulated hand for a named task
//	vlmrb:vlmrb:sim-gripper       its two-finger gripper
//	vlmrb:vlmrb:sim-camera        a rendered camera of the same simulation
//	vlmrb:vlmrb:sim-pose-tracker  the task's object and goal poses
//	vlmrb:vlmrb:mjcf-arm          a digital twin of an MJCF arm (position
//	                              actuators) on sim/articulated: Twin, TwinArm
//
// The sim components of one module process that name the same "world"
// share one simulation (a tasks.Env); the arm advances it one control step
// per MoveToPosition of at most one action's displacement.
//
// Units follow Viam: positions in mm, angles in degrees. Observations and
// actions follow vlmrb's tasks (m, the 39-D MetaWorld layout, actions in
// [−1, 1]); Mapping converts between the two frames.
//
// This package links go.viam.com/rdk and is therefore AGPL-3.0 (see
// README.md of this module); the vlmrb core it imports stays Apache-2.0.
package vlmviam
