package train

import (
	"errors"
	"github.com/vlmrb/vlmrb/internal/atomicfile"
	"image"
	"image/color/palette"
	"image/draw"
	"image/gif"
	"io"
)

// saveGIF writes frames as an animated GIF (delay in 1/100 s per frame),
// atomically, quantised to the web-safe palette with Floyd–Steinberg dithering.
func saveGIF(path string, frames []*image.RGBA, delay int) error {
	if len(frames) == 0 {
		return errors.New("no frames to write")
	}
	g := &gif.GIF{}
	for _, f := range frames {
		p := image.NewPaletted(f.Bounds(), palette.WebSafe)
		draw.FloydSteinberg.Draw(p, f.Bounds(), f, f.Bounds().Min)
		g.Image = append(g.Image, p)
		g.Delay = append(g.Delay, delay)
	}
	return atomicfile.Write(path, 0o644, func(w io.Writer) error { return gif.EncodeAll(w, g) })
}
