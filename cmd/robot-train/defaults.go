package main

import (
	"fmt"
	"strconv"

	"github.com/vlmrb/vlmrb/rundir"
)

// The defaults that train, record, score, eval and render share, all read
// from rundir.DefaultConfig so that they cannot drift apart: what record
// stores is what train --demos takes, and score and render show frames the
// size the scorer sees in training.
var (
	// scorerFrameSize is the scorer's frame size in training (vlm.width ×
	// vlm.height): record's videos, score's and render's frames.
	scorerFrameSize = fmt.Sprintf("%dx%d", rundir.DefaultConfig().VLM.Width, rundir.DefaultConfig().VLM.Height)
	// trainReward is the reward train trains on (record stores it).
	trainReward = rundir.DefaultConfig().Reward
	// evalGIFSize is the side of training's evaluation GIFs (eval.gif_size).
	evalGIFSize = strconv.Itoa(rundir.DefaultConfig().Eval.GIFSize)
)
