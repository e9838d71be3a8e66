package tasks

// reach-center: reach (MetaWorld reach-v2: same scene, randomisation,
// observation, expert and 5 cm success) with the dense reward's flat top
// removed. MetaWorld's reach reward is 10·tolerance(d, (0, 0.05), margin d0):
// 10 everywhere inside the success radius and, with the long-tail sigmoid,
// within 1% of 10 at 1 cm outside it, so a policy that parks 5–7 cm from the
// goal is paid 99% of the maximum and has almost no gradient to move in
// (issue 49: the main job's failures park there). reach-center pays
// 10·tolerance(d, (0, 0), margin d0), dm_control's tolerance with zero-width
// bounds: the same long tail far away (1 at the goal, 0.1 of it at d = d0,
// the start), a single maximum at the goal, and a slope of 0.4–0.9 reward
// per cm at the success radius (d0 = 0.2–0.4 m) where reach's is ≈ 0, so
// the critic can rank 4 cm above 6 cm. It is a different task from reach: its
// returns are not comparable with reach's, and reach keeps MetaWorld's reward.
type reachCenter struct{ reach }

func init() { register("reach-center", func() task { return &reachCenter{} }) }

func (t *reachCenter) meta() Meta {
	m := t.reach.meta()
	m.Name = "reach-center"
	m.Description = "move the robot gripper to the centre of the green goal marker (reach with a reward peaked at the goal)"
	return m
}

func (t *reachCenter) evaluate(e *Env, a []float64) eval {
	ev := t.reach.evaluate(e, a)
	ev.reward = 10 * tolerance(ev.objToTarget, 0, 0, t.d0)
	return ev
}
