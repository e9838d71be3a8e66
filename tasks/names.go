package tasks

// ObsNames returns the names of the 39 observation values in the layout
// of the package comment (MetaWorld v2/v3), for dataset metadata such as
// LeRobot's feature names.
func ObsNames() []string {
	frame := []string{"hand_x", "hand_y", "hand_z", "gripper",
		"obj1_x", "obj1_y", "obj1_z", "obj1_qx", "obj1_qy", "obj1_qz", "obj1_qw",
		"obj2_x", "obj2_y", "obj2_z", "obj2_qx", "obj2_qy", "obj2_qz", "obj2_qw"}
	names := append([]string(nil), frame...)
	for _, n := range frame {
		names = append(names, "prev_"+n)
	}
	return append(names, "goal_x", "goal_y", "goal_z")
}

// ActNames returns the names of the 4 action values: the end-effector
// displacement (ActionScale m per unit) and the gripper command.
func ActNames() []string { return []string{"dx", "dy", "dz", "gripper"} }
