package tasks

// ArmObjectObsNames names the 24 values of panda-pick's and panda-push's
// observation (ArmObject.observe), in order: the site (hand) position,
// the fingers' opening, the cube's position and quaternion (MuJoCo's
// w, x, y, z order), the goal, then three offsets scaled by armObsGain
// (cube − hand, goal − cube, commanded site − hand) and the last grip
// command in [−1, 1].
func ArmObjectObsNames() []string {
	return []string{"hand_x", "hand_y", "hand_z", "finger_opening",
		"cube_x", "cube_y", "cube_z", "cube_qw", "cube_qx", "cube_qy", "cube_qz",
		"goal_x", "goal_y", "goal_z",
		"cube_minus_hand_x", "cube_minus_hand_y", "cube_minus_hand_z",
		"goal_minus_cube_x", "goal_minus_cube_y", "goal_minus_cube_z",
		"command_minus_hand_x", "command_minus_hand_y", "command_minus_hand_z",
		"grip_command"}
}

// ArmObjectActNames names its 4 actions: the site's displacement along
// x, y, z and the grip (−1 open, +1 closed), each in [−1, 1].
func ArmObjectActNames() []string { return []string{"dx", "dy", "dz", "grip"} }
