package vlmprio

import (
	"context"
	"errors"
	"math"
)

// EventOracleScorer is the oracle for staged tasks with discrete events,
// such as MiniGrid DoorKey: it answers yes (1) when the clip shows a stage
// being reached — its privileged progress rises between two frames, or the
// clip opens an episode (Start 0) whose first frame already has progress —
// and no (0) otherwise. For DoorKey, with Clip.Progress the stage after
// each transition (key picked up, door opened, goal reached, in thirds),
// it says yes exactly when the clip shows the key picked up, the door
// opened or the goal reached. Padding frames are ignored. Safe for
// concurrent use.
type EventOracleScorer struct{}

// Score implements Scorer. Clips without Progress give a KindInput error.
func (EventOracleScorer) Score(ctx context.Context, c *Clip) (Score, error) {
	if err := ctx.Err(); err != nil {
		return Score{}, &ScoreError{Kind: KindCanceled, Err: err}
	}
	if c == nil || len(c.Progress) == 0 {
		return Score{}, &ScoreError{Kind: KindInput, Err: errors.New("event oracle needs Clip.Progress (privileged progress, simulation only)")}
	}
	n := len(c.Progress) - c.Padded
	if n <= 0 {
		n = len(c.Progress)
	}
	p := c.Progress[:n]
	for _, v := range p {
		if math.IsNaN(v) {
			return Score{}, &ScoreError{Kind: KindInput, Err: errors.New("clip progress contains NaN")}
		}
	}
	yes := c.Start == 0 && p[0] > 0
	for k := 1; k < n && !yes; k++ {
		yes = p[k] > p[k-1]
	}
	if yes {
		return Score{Value: 1, Method: "event-oracle"}, nil
	}
	return Score{Value: 0, Method: "event-oracle"}, nil
}

// DoorKeyPrompt is the yes/no template for MiniGrid DoorKey clips (prompt
// family "doorkey"), in the spirit of VLM-RB's goal-satisfaction prompt:
// it names the events that matter and what the sprites are in the
// standard rendering.
const DoorKeyPrompt = "These frames come from a short video of a grid-world game, in time order (left to right, top to bottom). " +
	"The red triangle is the agent; grey squares are walls; the yellow key, the door in the wall and the green square goal are the objects. " +
	"The agent's task: {task}. " +
	"Does the clip show the agent picking up the key, opening the door, or reaching the green goal anywhere in it? " +
	"Answer with a single word: Yes or No."
