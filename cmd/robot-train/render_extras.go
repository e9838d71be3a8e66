package main

import (
	"fmt"
	"image"
	"image/color"
	"io"
	"math"

	"github.com/vlmrb/vlmrb/render"
	"github.com/vlmrb/vlmrb/vlmprio"
)

// extraOutputs are render's optional side outputs.
type extraOutputs struct {
	depth, seg, sheet      string
	sheetFrames, sheetCols int
}

// writeExtras writes the w×h depth and segmentation images that buffers
// renders (of the env's current state) and the contact sheet of frames,
// for the paths that are set.
func writeExtras(stdout io.Writer, buffers func(render.Buffers) error, w, h int, frames []*image.RGBA, x extraOutputs) error {
	if x.depth != "" || x.seg != "" {
		var b render.Buffers
		if x.depth != "" {
			b.Depth = make([]float32, w*h)
		}
		if x.seg != "" {
			b.Seg = make([]int32, w*h)
		}
		if err := buffers(b); err != nil {
			return err
		}
		if x.depth != "" {
			if err := render.WritePNG(x.depth, depthImage(b.Depth, w, h)); err != nil {
				return err
			}
			_, _ = fmt.Fprintf(stdout, "wrote %s (linear depth, 16-bit mm)\n", x.depth)
		}
		if x.seg != "" {
			if err := render.WritePNG(x.seg, segImage(b.Seg, w, h)); err != nil {
				return err
			}
			_, _ = fmt.Fprintf(stdout, "wrote %s (segmentation)\n", x.seg)
		}
	}
	if x.sheet != "" {
		idx := vlmprio.SubsampleIndices(len(frames), x.sheetFrames)
		pick := make([]*image.RGBA, len(idx))
		for i, k := range idx {
			pick[i] = frames[k]
		}
		sheet, err := render.ContactSheet(pick, x.sheetCols, 2, color.RGBA{255, 255, 255, 255})
		if err != nil {
			return err
		}
		if err := render.WritePNG(x.sheet, sheet); err != nil {
			return err
		}
		_, _ = fmt.Fprintf(stdout, "wrote %s (contact sheet of %d frames)\n", x.sheet, len(pick))
	}
	return nil
}

// depthImage maps linear depth (m) to 16-bit grey in mm, clamped to 65.535 m.
func depthImage(d []float32, w, h int) *image.Gray16 {
	img := image.NewGray16(image.Rect(0, 0, w, h))
	for i, v := range d {
		mm := math.Round(float64(v) * 1000)
		if !(mm > 0) {
			mm = 0
		}
		img.SetGray16(i%w, i/w, color.Gray16{Y: uint16(min(mm, 65535))})
	}
	return img
}

// segImage colours each segmentation id with a fixed hash colour
// (background 0 black).
func segImage(seg []int32, w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i, id := range seg {
		c := color.RGBA{A: 255}
		if id != 0 {
			x := uint32(id) * 2654435761
			c.R, c.G, c.B = 64+uint8(x>>24)%192, 64+uint8(x>>16)%192, 64+uint8(x>>8)%192
		}
		img.SetRGBA(i%w, i/w, c)
	}
	return img
}
