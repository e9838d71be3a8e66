package render

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/gif"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
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

// MaxClipFrames is the most frames an episode video holds (eval --video,
// render --model): a longer episode is subsampled or refused, never held
// whole in memory.
const MaxClipFrames = 600

// WritePNG writes img as a PNG file (atomically).
func WritePNG(path string, img image.Image) error {
	return writeAtomic(path, func(w io.Writer) error { return png.Encode(w, img) })
}

// EncodeGIF writes frames as an animated GIF looping forever, delay
// between frames in hundredths of a second. One palette of up to 256
// colours is cut from the frames themselves (median cut) and every pixel
// takes its nearest colour, without dithering: rendered scenes are flat
// shaded surfaces, which a fixed palette with error diffusion speckles.
// Frames with at most 256 colours are encoded exactly.
func EncodeGIF(w io.Writer, frames []*image.RGBA, delay int) error {
	if len(frames) == 0 {
		return errors.New("render: GIF needs at least one frame")
	}
	b := frames[0].Bounds()
	for i, f := range frames {
		if f.Bounds().Size() != b.Size() {
			return fmt.Errorf("render: GIF frame %d is %v, frame 0 is %v", i, f.Bounds().Size(), b.Size())
		}
	}
	pal := framePalette(frames, 256)
	g := &gif.GIF{LoopCount: 0}
	idx := make(map[uint32]uint8)
	for _, f := range frames {
		p := image.NewPaletted(image.Rect(0, 0, b.Dx(), b.Dy()), pal)
		for y := 0; y < b.Dy(); y++ {
			src := f.Pix[y*f.Stride : y*f.Stride+4*b.Dx()]
			dst := p.Pix[y*p.Stride : y*p.Stride+b.Dx()]
			for x := range dst {
				key := uint32(src[4*x])<<16 | uint32(src[4*x+1])<<8 | uint32(src[4*x+2])
				k, ok := idx[key]
				if !ok {
					k = uint8(pal.Index(color.RGBA{src[4*x], src[4*x+1], src[4*x+2], 255}))
					idx[key] = k
				}
				dst[x] = k
			}
		}
		g.Image = append(g.Image, p)
		g.Delay = append(g.Delay, delay)
	}
	return gif.EncodeAll(w, g)
}

// framePalette cuts a palette of at most n colours from the frames' pixels
// by median cut (Heckbert 1982): the box of colours with the widest
// channel range (weighted by its pixel count) is split at its median
// until there are n boxes; each box gives its mean colour. Fewer than n
// distinct colours give exactly those colours.
func framePalette(frames []*image.RGBA, n int) color.Palette {
	counts := make(map[uint32]int)
	for _, f := range frames {
		b := f.Bounds()
		for y := 0; y < b.Dy(); y++ {
			row := f.Pix[y*f.Stride : y*f.Stride+4*b.Dx()]
			for x := 0; x+3 < len(row); x += 4 {
				counts[uint32(row[x])<<16|uint32(row[x+1])<<8|uint32(row[x+2])]++
			}
		}
	}
	type entry struct {
		c [3]uint8
		n int
	}
	cols := make([]entry, 0, len(counts))
	for k, c := range counts {
		cols = append(cols, entry{[3]uint8{uint8(k >> 16), uint8(k >> 8), uint8(k)}, c})
	}
	sort.Slice(cols, func(i, j int) bool { // deterministic order for a map's keys
		a, b := cols[i].c, cols[j].c
		return a[0] < b[0] || a[0] == b[0] && (a[1] < b[1] || a[1] == b[1] && a[2] < b[2])
	})
	if len(cols) <= n {
		pal := make(color.Palette, len(cols))
		for i, e := range cols {
			pal[i] = color.RGBA{e.c[0], e.c[1], e.c[2], 255}
		}
		return pal
	}
	type box struct{ lo, hi int }     // cols[lo:hi]
	span := func(bx box) (int, int) { // widest channel and its range
		var mn, mx [3]uint8
		mn = [3]uint8{255, 255, 255}
		for _, e := range cols[bx.lo:bx.hi] {
			for ch := range 3 {
				mn[ch], mx[ch] = min(mn[ch], e.c[ch]), max(mx[ch], e.c[ch])
			}
		}
		best := 0
		for ch := 1; ch < 3; ch++ {
			if mx[ch]-mn[ch] > mx[best]-mn[best] {
				best = ch
			}
		}
		return best, int(mx[best] - mn[best])
	}
	weight := func(bx box) int {
		w := 0
		for _, e := range cols[bx.lo:bx.hi] {
			w += e.n
		}
		return w
	}
	boxes := []box{{0, len(cols)}}
	for len(boxes) < n {
		pick, score := -1, 0
		for i, bx := range boxes {
			if bx.hi-bx.lo < 2 {
				continue
			}
			_, r := span(bx)
			if s := r * weight(bx); r > 0 && s > score {
				pick, score = i, s
			}
		}
		if pick < 0 {
			break
		}
		bx := boxes[pick]
		ch, _ := span(bx)
		part := cols[bx.lo:bx.hi]
		sort.Slice(part, func(i, j int) bool { return part[i].c[ch] < part[j].c[ch] })
		// split at the pixel-weighted median, leaving both halves non-empty
		half, acc, cut := weight(bx)/2, 0, bx.lo+1
		for i, e := range part {
			if acc += e.n; acc >= half {
				cut = bx.lo + max(1, min(i+1, len(part)-1))
				break
			}
		}
		boxes[pick] = box{bx.lo, cut}
		boxes = append(boxes, box{cut, bx.hi})
	}
	pal := make(color.Palette, len(boxes))
	for i, bx := range boxes {
		var sum [3]int
		w := 0
		for _, e := range cols[bx.lo:bx.hi] {
			for ch := range 3 {
				sum[ch] += int(e.c[ch]) * e.n
			}
			w += e.n
		}
		pal[i] = color.RGBA{uint8((sum[0] + w/2) / w), uint8((sum[1] + w/2) / w), uint8((sum[2] + w/2) / w), 255}
	}
	return pal
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
	// CreateTemp made it 0600; PNG and GIF outputs are 0644
	if err := os.Chmod(tmpName, 0o644); err != nil {
		return fmt.Errorf("render: %w", err)
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
