package grid_test

import (
	"fmt"

	"github.com/vlmrb/vlmrb/tasks/grid"
)

// The planner solves a DoorKey-5×5 layout: it fetches the key, opens the
// door and walks to the goal, and the reward is 1 − 0.9·steps/250.
func ExampleExpert() {
	e, _ := grid.Make("doorkey-5x5", grid.Options{})
	e.ResetLayout(grid.Layout{Size: 5, Split: 2, DoorRow: 1, KeyX: 1, KeyY: 3, AgentX: 1, AgentY: 2, Dir: 1})
	p := grid.Expert(e)
	for {
		a := p.Next()
		r, term, _ := e.StepIndex(a)
		x, y, _ := e.Agent()
		fmt.Printf("%-7s → (%d,%d) stage %q\n", a, x, y, grid.Stages[e.Stage()])
		if term {
			fmt.Printf("reward %.4f after %d steps\n", r, e.StepCount())
			return
		}
	}
	// Output:
	// pickup  → (1,2) stage "key picked up"
	// left    → (1,2) stage "key picked up"
	// left    → (1,2) stage "key picked up"
	// forward → (1,1) stage "key picked up"
	// right   → (1,1) stage "key picked up"
	// toggle  → (1,1) stage "door opened"
	// forward → (2,1) stage "door opened"
	// forward → (3,1) stage "door opened"
	// right   → (3,1) stage "door opened"
	// forward → (3,2) stage "door opened"
	// forward → (3,3) stage "goal reached"
	// reward 0.9604 after 11 steps
}
