package vlmprio

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/jpeg"

	"golang.org/x/image/draw"

	"github.com/vlmrb/vlmrb/frame"
	"github.com/vlmrb/vlmrb/internal/vlmclient"
	"github.com/vlmrb/vlmrb/replay"
)

// Clip is a short window of consecutive frames from one episode of one
// environment, with the replay transitions its score applies to.
//
// Frames are owned by the clip and never modified after it is emitted, so a
// clip may be read by several goroutines at once.
type Clip struct {
	// Frames are the clip's frames, oldest first. Length is the Clipper's L
	// unless the clip is a shorter tail clip; padded tail clips repeat the
	// last real frame (see Padded).
	Frames []frame.Frame
	// Refs are the replay slots (with generations) that receive this clip's
	// score, chosen by the Clipper's ApplyRule.
	Refs []replay.Ref
	// Env is the environment instance the frames come from.
	Env int
	// Episode identifies the episode within Env.
	Episode int64
	// Start and End are the episode step indices of the first real frame and
	// one past the last real frame: frames[i] belongs to transition Start+i.
	Start, End int
	// Padded counts frames appended at the end by TailPad (copies of the
	// last real frame).
	Padded int
	// Task is the natural-language task description substituted into prompts.
	Task string
	// Family is the task family ("reach", "push", "pick-place", …) that
	// selects a prompt template.
	Family string
	// Progress is optional privileged task progress in [0,1], one per frame
	// (nil on real cameras). The oracle scorer needs it.
	Progress []float64
}

// Len returns the number of frames in the clip, padding included.
func (c *Clip) Len() int { return len(c.Frames) }

// Layout says how the frames of a query are packed into images.
type Layout int

const (
	// ContactSheet tiles the frames, row-major in time order, into one image.
	ContactSheet Layout = iota
	// ImageParts sends each frame as its own image part.
	ImageParts
)

// Encoding describes how a clip is turned into images for a VLM query.
// Zero fields take the defaults of DefaultEncoding.
type Encoding struct {
	Layout  Layout
	Frames  int // frames sent per query, evenly subsampled from the clip, first and last kept (default 8)
	Width   int // width of each frame in the query (px, default 160)
	Height  int // height of each frame in the query (px, default 120)
	Cols    int // contact-sheet columns (default: ceil(sqrt(Frames)))
	Quality int // JPEG quality 1–100 (default 80)
}

// DefaultEncoding returns the default query encoding: a contact sheet of 8
// frames of 160×120 px (3×3 grid, 480×360 px, the last tile black), JPEG
// quality 80.
func DefaultEncoding() Encoding {
	return Encoding{Layout: ContactSheet, Frames: 8, Width: 160, Height: 120, Quality: 80}
}

func (e Encoding) withDefaults() Encoding {
	d := DefaultEncoding()
	if e.Frames <= 0 {
		e.Frames = d.Frames
	}
	if e.Width <= 0 {
		e.Width = d.Width
	}
	if e.Height <= 0 {
		e.Height = d.Height
	}
	if e.Quality <= 0 || e.Quality > 100 {
		e.Quality = d.Quality
	}
	if e.Cols <= 0 {
		e.Cols = 1
		for e.Cols*e.Cols < e.Frames {
			e.Cols++
		}
	}
	return e
}

// SheetSize returns the pixel size of the contact sheet for n frames.
func (e Encoding) SheetSize(n int) (w, h int) {
	e = e.withDefaults()
	cols := min(e.Cols, n)
	rows := (n + e.Cols - 1) / e.Cols
	return cols * e.Width, rows * e.Height
}

// SubsampleIndices returns n indices evenly spread over [0, length), first
// and last included, in increasing order. When n ≥ length it returns every
// index.
func SubsampleIndices(length, n int) []int {
	if length <= 0 || n <= 0 {
		return nil
	}
	if n >= length {
		idx := make([]int, length)
		for i := range idx {
			idx[i] = i
		}
		return idx
	}
	if n == 1 {
		return []int{length - 1}
	}
	idx := make([]int, n)
	for i := range idx {
		// round(i*(length-1)/(n-1)) in integers
		idx[i] = (2*i*(length-1) + (n - 1)) / (2 * (n - 1))
	}
	return idx
}

// ErrEmptyClip is returned when a clip has no usable frames.
var ErrEmptyClip = errors.New("vlmprio: clip has no frames with images")

// EncodeClip renders the clip as JPEG images according to enc and returns
// them as base64 data URLs ("data:image/jpeg;base64,…"), which every
// OpenAI-compatible server accepts. A ContactSheet gives one URL, ImageParts
// one per subsampled frame, VideoPart one "data:video/mp4;base64,…" URL
// (see ClipFormats).
func EncodeClip(c *Clip, enc Encoding) ([]string, error) {
	if enc.Layout == VideoPart {
		u, err := encodeVideo(c, enc)
		if err != nil {
			return nil, err
		}
		return []string{u}, nil
	}
	imgs, err := queryImages(c, enc)
	if err != nil {
		return nil, err
	}
	enc = enc.withDefaults()
	urls := make([]string, len(imgs))
	var buf bytes.Buffer
	for i, img := range imgs {
		buf.Reset()
		if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: enc.Quality}); err != nil {
			return nil, fmt.Errorf("vlmprio: encoding JPEG: %w", err)
		}
		urls[i] = vlmclient.DataURL("image/jpeg", buf.Bytes())
	}
	return urls, nil
}

// queryImages subsamples, resizes and (for a contact sheet) tiles the frames.
func queryImages(c *Clip, enc Encoding) ([]*image.RGBA, error) {
	enc = enc.withDefaults()
	if c == nil || len(c.Frames) == 0 {
		return nil, ErrEmptyClip
	}
	for i := range c.Frames {
		if c.Frames[i].Image == nil {
			return nil, fmt.Errorf("vlmprio: clip frame %d has no image", i)
		}
	}
	idx := SubsampleIndices(len(c.Frames), enc.Frames)
	tile := image.Rect(0, 0, enc.Width, enc.Height)
	if enc.Layout == ImageParts {
		out := make([]*image.RGBA, len(idx))
		for k, i := range idx {
			dst := image.NewRGBA(tile)
			draw.ApproxBiLinear.Scale(dst, tile, c.Frames[i].Image, c.Frames[i].Image.Bounds(), draw.Src, nil)
			out[k] = dst
		}
		return out, nil
	}
	w, h := enc.SheetSize(len(idx))
	sheet := image.NewRGBA(image.Rect(0, 0, w, h))
	for k, i := range idx {
		x, y := (k%enc.Cols)*enc.Width, (k/enc.Cols)*enc.Height
		r := tile.Add(image.Pt(x, y))
		draw.ApproxBiLinear.Scale(sheet, r, c.Frames[i].Image, c.Frames[i].Image.Bounds(), draw.Src, nil)
	}
	return []*image.RGBA{sheet}, nil
}
