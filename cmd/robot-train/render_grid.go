package main

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"io"
	"math/rand/v2"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/render"
	"github.com/vlmrb/vlmrb/tasks/grid"
	"github.com/vlmrb/vlmrb/vlmprio"
)

// gridRender is robot-train render for the grid tasks: tile frames of the
// whole grid in a theme, written through render's PNG, GIF, MP4 and
// contact-sheet outputs.
type gridRender struct {
	task, policy, theme, out, ext, sheet string
	side, steps, every                   int
	seed                                 uint64
	sheetFrames, sheetCols               int
}

func renderGrid(ctx context.Context, stdout io.Writer, g gridRender) error {
	theme, err := grid.ParseTheme(g.theme)
	if err != nil {
		return usagef("%v", err)
	}
	env, err := grid.Make(g.task, grid.Options{})
	if err != nil {
		return usagef("%v", err)
	}
	var pol func() grid.Action
	switch g.policy {
	case "expert":
		p := grid.Expert(env)
		pol = p.Next
	case "random":
		rng := rand.New(rand.NewPCG(g.seed, 0x72616e64))
		pol = func() grid.Action { return grid.Action(rng.IntN(grid.NumActions)) }
	default:
		return usagef("--policy %q: choose expert or random", g.policy)
	}
	tile := env.TileFor(g.side)
	side := env.FrameSize(tile)
	env.Reset(control.EpisodeSeed(g.seed, 0, 0))
	var frames []*image.RGBA
	grab := func() {
		img := image.NewRGBA(image.Rect(0, 0, side, side))
		env.Render(img, tile, theme)
		frames = append(frames, img)
	}
	n := g.steps
	if n == 0 && g.ext != ".png" {
		n = env.MaxSteps()
	}
	grab()
	success := false
	for t := 1; t <= n; t++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		r, term, trunc := env.StepIndex(pol())
		success = success || (term && r > 0)
		if t%g.every == 0 || term || trunc || t == n {
			grab()
		}
		if term || trunc {
			break
		}
	}
	switch g.ext {
	case ".png":
		err = render.WritePNG(g.out, frames[len(frames)-1])
	case ".gif":
		err = render.WriteGIF(g.out, frames, 25)
	case ".mp4":
		err = render.WriteMP4(g.out, frames, 4)
	}
	if err != nil {
		return err
	}
	what := map[bool]string{true: "goal reached", false: "goal not reached"}[success]
	if g.out != "" {
		nf := len(frames)
		if g.ext == ".png" {
			nf = 1
		}
		_, _ = fmt.Fprintf(stdout, "wrote %s (%d frame(s), %s tiles %dx%d, %s)\n", g.out, nf, theme, side, side, what)
	}
	if g.sheet != "" {
		idx := vlmprio.SubsampleIndices(len(frames), g.sheetFrames)
		pick := make([]*image.RGBA, len(idx))
		for i, k := range idx {
			pick[i] = frames[k]
		}
		sheet, err := render.ContactSheet(pick, g.sheetCols, 2, color.RGBA{255, 255, 255, 255})
		if err != nil {
			return err
		}
		if err := render.WritePNG(g.sheet, sheet); err != nil {
			return err
		}
		_, _ = fmt.Fprintf(stdout, "wrote %s (contact sheet of %d frames)\n", g.sheet, len(pick))
	}
	return nil
}
