// Command pushdiag classifies the episodes of panda-push policies: a
// run's SAC checkpoint (deterministic, as the run's evaluations act, and
// stochastic, as it collects) and the task's IK expert, over the same
// episodes (the run's evaluation seed, EpisodeSeed(seed, 0, k)), so the
// first 20 repeat the run's own final evaluation.
//
// A failure (the cube not within 5 cm of the goal at the last step) gets
// the first class that fits, from the cube's path in the frame of its
// start c0 and the unit direction u from c0 to the goal (s = progress
// along u, l = distance off that line, d0 = |goal − c0|, all horizontal):
//
//	off-table   the cube fell off the table (the episode terminated)
//	untouched   the cube never moved 1 cm from its start
//	overshoot   the cube ended past the goal (s > d0)
//	off-line    the cube ended more than 5 cm off the line (l > 5 cm)
//	close       it ended within 8 cm of the goal (short by 5–8 cm)
//	short       it ended further short
//
// Each line also says whether the hand was still within 6 cm of the cube
// at the end, whether it was moving (over the last 10 steps), and how far
// the commanded position was from the hand (large: the IK or a joint
// limit holds the hand). Sectors name the push direction u: +x is away
// from the arm's base.
//
//	go run ./bench/pushdiag [-episodes 50] [-max-episode-len N] [-v] RUN_DIR...
package main
