package train

import (
	"context"
	"fmt"
	"image"
	"time"

	"github.com/vlmrb/vlmrb/render"
	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/tasks/grid"
)

// newScoring sets up VLM-RB's clip scoring on a grid task: the configured
// scorer and, for every scorer but the event oracle (which reads the
// stages), each env's tile frames in vlm.theme at the largest tile that
// fits vlm.width × vlm.height.
func (r *dqnRunner) newScoring(ctx context.Context) (*scoring, error) {
	cfg := &r.cfg
	theme, err := grid.ParseTheme(cfg.VLM.Theme)
	if err != nil {
		return nil, &rundir.ConfigError{Msg: err.Error()}
	}
	scorer := r.opts.Scorer
	if scorer == nil {
		if scorer, err = rundir.NewGridScorer(cfg.Scorer, cfg.VLM); err != nil {
			return nil, err
		}
	}
	meta, _ := grid.Lookup(cfg.Task)
	su := scoringSetup{scorer: scorer, sink: r.smp.vlmrb, task: meta.Description, family: meta.Family,
		desc: "privileged stages, no frames"}
	if cfg.Scorer != "oracle" {
		tile := r.evalEnv.TileFor(min(cfg.VLM.Width, cfg.VLM.Height))
		for _, e := range r.envs {
			su.srcs = append(su.srcs, e.Source(tile, theme))
		}
		side := r.evalEnv.FrameSize(tile)
		su.desc = fmt.Sprintf("%s tiles %dx%d", theme, side, side)
	}
	return newScoring(ctx, cfg, su), nil
}

// view is env i's stage as progress (in thirds: key, door, goal) and its
// episode step as time, for the scorer.
func (r *dqnRunner) view(i int) (float64, time.Duration) {
	e := r.envs[i]
	return float64(e.Stage()) / float64(len(grid.Stages)-1), time.Duration(e.StepCount()) * time.Second
}

// evalGIF records one greedy episode of the evaluation env as a GIF in the
// vlm.theme, at eval.gif_size, into videos/eval-STEP.gif.
func (r *dqnRunner) evalGIF() (string, error) {
	theme, err := grid.ParseTheme(r.cfg.VLM.Theme)
	if err != nil {
		return "", err
	}
	e := r.evalEnv
	tile := e.TileFor(r.cfg.Eval.GIFSize)
	side := e.FrameSize(tile)
	var frames []*image.RGBA
	snap := func() {
		img := image.NewRGBA(image.Rect(0, 0, side, side))
		e.Render(img, tile, theme)
		frames = append(frames, img)
	}
	obs, _ := e.Reset(r.cfg.Seed ^ rundir.EvalSeedSalt)
	snap()
	act := []float64{0}
	for {
		act[0] = float64(r.agent.Greedy(obs))
		next, _, term, trunc, _, err := e.Step(act)
		if err != nil {
			return "", err
		}
		snap()
		obs = next
		if term || trunc {
			break
		}
	}
	path := rundir.EvalVideoPath(r.cfg.Out, r.step)
	return path, render.WriteGIF(path, frames, 8)
}
