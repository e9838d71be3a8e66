package articulated

// Kinematics computes d's body frames (Xpos, Xquat, Xmat, the inertial
// frames) and joint anchors and axes from d.Qpos alone, as the first stage
// of Forward does (mj_kinematics): forward kinematics for inverse
// kinematics, goal sampling and drawing, without the dynamics.
func Kinematics(m *Model, d *Data) { kinematics(m, d) }
