package render

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/color/palette"
	"image/draw"
	"image/gif"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"

	"github.com/vlmrb/vlmrb/internal/atomicfile"
)

// ErrNoFFmpeg is returned by WriteMP4 when no ffmpeg executable is found.
var ErrNoFFmpeg = errors.New("render: ffmpeg not found in PATH (install ffmpeg to write MP4; PNG and GIF need nothing)")

// writeAtomic writes through a temporary file in the same directory, syncs
// it and renames it over path.
func writeAtomic(path string, write func(io.Writer) error) error {
	if err := atomicfile.Write(path, 0o644, write); err != nil {
		return fmt.Errorf("render: %w", err)
	}
	return nil
}

// WritePNG writes img as a PNG file (atomically).
func WritePNG(path string, img image.Image) error {
	return writeAtomic(path, func(w io.Writer) error { return png.Encode(w, img) })
}

// EncodeGIF writes frames as an animated GIF looping forever, delay
// between frames in hundredths of a second. Colours are mapped to the
// Plan 9 palette with Floyd-Steinberg dithering.
func EncodeGIF(w io.Writer, frames []*image.RGBA, delay int) error {
	if len(frames) == 0 {
		return errors.New("render: GIF needs at least one frame")
	}
	g := &gif.GIF{LoopCount: 0}
	b := frames[0].Bounds()
	for i, f := range frames {
		if f.Bounds().Size() != b.Size() {
			return fmt.Errorf("render: GIF frame %d is %v, frame 0 is %v", i, f.Bounds().Size(), b.Size())
		}
		p := image.NewPaletted(image.Rect(0, 0, b.Dx(), b.Dy()), palette.Plan9)
		draw.FloydSteinberg.Draw(p, p.Rect, f, f.Bounds().Min)
		g.Image = append(g.Image, p)
		g.Delay = append(g.Delay, delay)
	}
	return gif.EncodeAll(w, g)
}

// WriteGIF writes an animated GIF file (atomically); see EncodeGIF.
func WriteGIF(path string, frames []*image.RGBA, delay int) error {
	return writeAtomic(path, func(w io.Writer) error { return EncodeGIF(w, frames, delay) })
}

// WriteMP4 encodes frames as H.264 MP4 at fps frames per second through the
// ffmpeg executable (ErrNoFFmpeg when it is missing). Odd sizes are padded to
// even ones, as yuv420p requires.
func WriteMP4(path string, frames []*image.RGBA, fps int) error {
	if len(frames) == 0 {
		return errors.New("render: MP4 needs at least one frame")
	}
	if fps <= 0 {
		return fmt.Errorf("render: MP4 fps %d must be positive", fps)
	}
	bin, err := exec.LookPath("ffmpeg")
	if err != nil {
		return ErrNoFFmpeg
	}
	b := frames[0].Bounds()
	w, h := b.Dx(), b.Dy()
	for i, f := range frames {
		if f.Bounds().Size() != b.Size() {
			return fmt.Errorf("render: MP4 frame %d is %v, frame 0 is %v", i, f.Bounds().Size(), b.Size())
		}
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*.mp4")
	if err != nil {
		return fmt.Errorf("render: %w", err)
	}
	tmpName := tmp.Name()
	tmp.Close()
	defer func() { _ = os.Remove(tmpName) }()
	cmd := exec.Command(bin, "-hide_banner", "-loglevel", "error", "-y",
		"-f", "rawvideo", "-pix_fmt", "rgba", "-s", strconv.Itoa(w)+"x"+strconv.Itoa(h), "-r", strconv.Itoa(fps), "-i", "-",
		"-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-movflags", "+faststart", tmpName)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return fmt.Errorf("render: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("render: starting ffmpeg: %w", err)
	}
	var werr error
	row := make([]byte, 4*w)
	for _, f := range frames {
		for y := 0; y < h && werr == nil; y++ {
			o := f.PixOffset(b.Min.X, b.Min.Y+y)
			copy(row, f.Pix[o:o+4*w])
			_, werr = in.Write(row)
		}
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("render: ffmpeg: %w: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	if werr != nil {
		return fmt.Errorf("render: feeding ffmpeg: %w", werr)
	}
	if err := os.Rename(tmpName, path); err != nil {
		return fmt.Errorf("render: %w", err)
	}
	return nil
}

// ContactSheet tiles frames (all the same size) into one image with cols
// columns (0 picks a near-square grid) and pad pixels of background between
// tiles, in reading order; VLM queries use it to show a clip at once.
func ContactSheet(frames []*image.RGBA, cols, pad int, bg color.RGBA) (*image.RGBA, error) {
	n := len(frames)
	if n == 0 {
		return nil, errors.New("render: contact sheet needs at least one frame")
	}
	if pad < 0 {
		return nil, fmt.Errorf("render: contact sheet pad %d is negative", pad)
	}
	if cols <= 0 {
		cols = 1
		for cols*cols < n {
			cols++
		}
	}
	cols = min(cols, n)
	rows := (n + cols - 1) / cols
	fs := frames[0].Bounds().Size()
	for i, f := range frames {
		if f.Bounds().Size() != fs {
			return nil, fmt.Errorf("render: contact sheet frame %d is %v, frame 0 is %v", i, f.Bounds().Size(), fs)
		}
	}
	W := cols*fs.X + (cols+1)*pad
	H := rows*fs.Y + (rows+1)*pad
	if W > 1<<15 || H > 1<<15 {
		return nil, fmt.Errorf("render: contact sheet %dx%d is too large", W, H)
	}
	out := image.NewRGBA(image.Rect(0, 0, W, H))
	draw.Draw(out, out.Rect, &image.Uniform{bg}, image.Point{}, draw.Src)
	for i, f := range frames {
		x := pad + (i%cols)*(fs.X+pad)
		y := pad + (i/cols)*(fs.Y+pad)
		draw.Draw(out, image.Rect(x, y, x+fs.X, y+fs.Y), f, f.Bounds().Min, draw.Src)
	}
	return out, nil
}
