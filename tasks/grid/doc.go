// Package grid is MiniGrid's DoorKey domain in Go, behind control.Env: the
// discrete-action grid tasks of the VLM-RB paper's Fig. 3–5 (DoorKey 5×5,
// 6×6, 8×8, 12×12 and 16×16).
//
// The rules follow Farama-Foundation/Minigrid (minigrid/envs/doorkey.py,
// minigrid/minigrid_env.py, minigrid/core/grid.py and world_object.py): an
// agent with a position and one of four directions, seven actions (turn
// left, turn right, forward, pick up, drop, toggle, done), a vertical wall
// with a locked yellow door that unlocks and opens when toggled while the
// agent carries the yellow key, a goal in the bottom-right corner, reward
// 1 − 0.9·steps/max_steps on reaching it and max_steps = 10·size². Layouts
// are drawn per Reset seed in the order MiniGrid's generator draws them
// (split column, agent cell by rejection, direction, door row, key cell by
// rejection) from this package's own PCG stream, so the distribution of
// layouts is MiniGrid's while the individual layouts for a seed are not
// numpy's.
//
// Observations are MiniGrid's symbolic encodings, as float64 codes:
// Egocentric (the default) is the 7×7×3 agent view of (object, colour,
// state) triples with walls and closed doors occluding what lies behind
// them (gen_obs / process_vis, see_through_walls=False) followed by the
// direction; Full is FullyObsWrapper's size×size×3 grid with the agent
// cell encoded as (agent, red, direction). Cardinalities tells a learner
// which entries are categorical so it can one-hot them.
//
// Env.StepIndex and Env.Observe are the allocation-free fast path; the
// control.Env methods Step and Reset wrap them. Expert returns a planner
// (breadth-first search over position and direction) that solves every
// layout. Frames of the grid are drawn as tiles by Render with three
// themes (standard, misleading, abstract).
//
// What it does not own: the manipulation tasks (package tasks), learners
// (dqn), replay and scoring. An Env is for one goroutine at a time.
package grid
