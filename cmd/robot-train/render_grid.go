package main

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"io"

	"github.com/vlmrb/vlmrb/render"
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
	ge, err := RenderGridEpisode(ctx, GridRender{Task: g.task, Policy: g.policy, Theme: g.theme,
		Side: g.side, Steps: g.steps, Every: g.every, Seed: g.seed, Still: g.ext == ".png"})
	if err != nil {
		return err // bad task, policy or theme: *rundir.ConfigError (exit 2)
	}
	frames, side, theme, success := ge.Frames, ge.Side, ge.Theme, ge.Success
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
