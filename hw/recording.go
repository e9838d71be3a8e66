package hw

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vlmrb/vlmrb/frame"
	"github.com/vlmrb/vlmrb/internal/safefile"
)

// imageExts are the file extensions a folder recording reads.
var imageExts = map[string]bool{".png": true, ".jpg": true, ".jpeg": true}

// recording holds what folder and video sources share: stamping,
// decimation, pacing and counters. Recordings deliver every frame (no
// drops): the consumer sets the pace.
type recording struct {
	name    string
	opts    Options
	c       counters
	shp     shaper
	base    time.Time     // Frame.Time of frame 0
	period  time.Duration // frame period for timestamps
	index   uint64        // source frames read so far (before decimation)
	seq     uint64
	closed  atomic.Bool
	lastOut time.Time // MaxFPS pacing
}

func newRecording(name string, opts Options, fps float64) recording {
	if fps <= 0 {
		fps = defaultRecordingFPS
	}
	return recording{
		name:   name,
		opts:   opts,
		shp:    shaper{opts: opts},
		base:   time.Now(),
		period: time.Duration(float64(time.Second) / fps),
	}
}

// skip counts a source frame and reports whether Decimate drops it.
func (r *recording) skip() bool {
	r.c.frames.Add(1)
	i := r.index
	r.index++
	if r.opts.Decimate > 1 && i%uint64(r.opts.Decimate) != 0 {
		r.c.decimated.Add(1)
		return true
	}
	return false
}

// pace waits so that no more than MaxFPS frames/s are delivered.
func (r *recording) pace(ctx context.Context) error {
	if r.opts.MaxFPS <= 0 {
		return nil
	}
	period := time.Duration(float64(time.Second) / r.opts.MaxFPS)
	if wait := time.Until(r.lastOut.Add(period)); wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
	r.lastOut = time.Now()
	return nil
}

// stamp fills dst's metadata for source frame index i.
func (r *recording) stamp(dst *frame.Frame, i uint64) {
	dst.Time = r.base.Add(time.Duration(i) * r.period)
	dst.Camera = r.name
	dst.Depth = nil
	dst.Seq = r.seq
	r.seq++
	r.c.delivered.Add(1)
}

// Stats returns the source's counters.
func (r *recording) Stats() Stats { return r.c.snapshot() }

// DirSource replays a folder of PNG/JPEG images in natural name order
// (frame2 before frame10). Frame i is stamped Open time + i/FPS.
type DirSource struct {
	recording
	dir   string
	files []string
	pos   int
	p     payload
}

// OpenDir opens a folder recording. It fails when the folder has no
// .png/.jpg/.jpeg files.
func OpenDir(dir string, opts Options) (*DirSource, error) {
	opts = opts.withDefaults()
	if err := opts.validate(); err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("hw: recording folder: %w", err)
	}
	var files []string
	for _, e := range ents {
		if e.Type().IsRegular() && imageExts[strings.ToLower(filepath.Ext(e.Name()))] {
			files = append(files, e.Name())
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("hw: recording folder %s has no .png/.jpg/.jpeg images", dir)
	}
	slices.SortFunc(files, naturalCompare)
	name := opts.Camera
	if name == "" {
		name = "dir:" + dir
	}
	return &DirSource{recording: newRecording(name, opts, opts.FPS), dir: dir, files: files}, nil
}

// Len returns the number of images in the folder.
func (d *DirSource) Len() int { return len(d.files) }

// Next implements frame.Source. It returns frame.ErrEndOfStream after the
// last image unless Options.Loop is set.
func (d *DirSource) Next(ctx context.Context, dst *frame.Frame) error {
	for {
		if d.closed.Load() {
			return frame.ErrClosed
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.pos >= len(d.files) {
			if !d.opts.Loop {
				return frame.ErrEndOfStream
			}
			d.pos = 0
		}
		name := d.files[d.pos]
		d.pos++
		i := d.index
		if d.skip() {
			continue
		}
		if err := d.pace(ctx); err != nil {
			return err
		}
		if err := d.read(filepath.Join(d.dir, name)); err != nil {
			d.c.decodeErrors.Add(1)
			return fmt.Errorf("hw: %s: %w", name, err)
		}
		if err := d.shp.decode(&d.p, dst); err != nil {
			d.c.decodeErrors.Add(1)
			return fmt.Errorf("hw: %s: %w", name, err)
		}
		d.stamp(dst, i)
		return nil
	}
}

// read loads one file into d.p, bounded by MaxFrameBytes. It opens the
// file through internal/safefile: a FIFO or device in a recording
// directory is refused without blocking.
func (d *DirSource) read(path string) error {
	f, err := safefile.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if st.Size() > int64(d.opts.MaxFrameBytes) {
		return fmt.Errorf("%d bytes: %w", st.Size(), ErrFrameTooLarge)
	}
	n := int(st.Size())
	if cap(d.p.data) < n {
		d.p.data = make([]byte, n)
	}
	d.p.data = d.p.data[:n]
	if _, err := io.ReadFull(f, d.p.data); err != nil {
		return err
	}
	d.p.kind = kindJPEG // sniffed: JPEG or PNG
	return nil
}

// Close implements frame.Source.
func (d *DirSource) Close() error {
	d.closed.Store(true)
	return nil
}

// naturalCompare orders names with digit runs compared as numbers.
func naturalCompare(a, b string) int {
	for a != "" && b != "" {
		da, db := digitPrefix(a), digitPrefix(b)
		if da > 0 && db > 0 {
			na := strings.TrimLeft(a[:da], "0")
			nb := strings.TrimLeft(b[:db], "0")
			if c := cmp.Compare(len(na), len(nb)); c != 0 {
				return c
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		a, b = a[1:], b[1:]
	}
	return cmp.Compare(len(a), len(b))
}

func digitPrefix(s string) int {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// VideoSource decodes a video file with an ffmpeg subprocess. Frame i is
// stamped Open time + i/fps, fps from ffprobe (Options.FPS, else 30, when
// ffprobe cannot tell).
type VideoSource struct {
	recording
	path   string
	ffmpeg string
	mu     sync.Mutex // guards proc against Close from another goroutine
	proc   *ffmpegProc
	p      payload
}

// OpenVideo opens a video file through ffmpeg (ErrNoFFmpeg without it).
func OpenVideo(ctx context.Context, path string, opts Options) (*VideoSource, error) {
	opts = opts.withDefaults()
	if err := opts.validate(); err != nil {
		return nil, err
	}
	bin, err := lookFFmpeg(opts.FFmpeg)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("hw: video: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("hw: video %s is not a regular file", path)
	}
	fps, ok := probeFPS(ctx, bin, abs)
	if !ok {
		fps = opts.FPS
	}
	name := opts.Camera
	if name == "" {
		name = "file:" + path
	}
	v := &VideoSource{recording: newRecording(name, opts, fps), path: abs, ffmpeg: bin}
	if err := v.start(); err != nil {
		return nil, err
	}
	// fail at Open, not at the first Next, on files ffmpeg cannot decode
	if _, err := v.proc.out.Peek(2); err != nil {
		e := v.proc.exitError()
		_ = v.Close()
		if e == nil {
			e = errors.New("no video frames")
		}
		return nil, fmt.Errorf("hw: video %s: %w", path, e)
	}
	return v, nil
}

func (v *VideoSource) start() error {
	args := append([]string{"-threads", "1", "-i", "file:" + v.path}, ppmOutputArgs...)
	p, err := startFFmpegProc(v.ffmpeg, args, false)
	if err != nil {
		return fmt.Errorf("hw: video %s: %w", v.path, err)
	}
	v.mu.Lock()
	v.proc = p
	v.mu.Unlock()
	return nil
}

// Next implements frame.Source; frame.ErrEndOfStream after the last frame
// unless Options.Loop is set.
func (v *VideoSource) Next(ctx context.Context, dst *frame.Frame) error {
	for {
		if v.closed.Load() {
			return frame.ErrClosed
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		err := readPPM(v.proc.out, &v.p, v.opts.MaxFrameBytes)
		if err == io.EOF {
			if e := v.proc.exitError(); e != nil && !v.closed.Load() {
				return fmt.Errorf("hw: video %s: %w", v.path, e)
			}
			if !v.opts.Loop {
				return frame.ErrEndOfStream
			}
			v.proc.close()
			if err := v.start(); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			if v.closed.Load() {
				return frame.ErrClosed
			}
			return fmt.Errorf("hw: video %s: %w", v.path, err)
		}
		i := v.index
		if v.skip() {
			continue
		}
		if err := v.pace(ctx); err != nil {
			return err
		}
		if err := v.shp.decode(&v.p, dst); err != nil {
			v.c.decodeErrors.Add(1)
			return fmt.Errorf("hw: video %s: %w", v.path, err)
		}
		v.stamp(dst, i)
		return nil
	}
}

// Close kills ffmpeg and waits for it. Safe to call more than once.
func (v *VideoSource) Close() error {
	v.closed.Store(true)
	v.mu.Lock()
	p := v.proc
	v.mu.Unlock()
	if p != nil {
		p.close()
	}
	return nil
}

// openPath dispatches a bare filesystem path: a folder of images, a single
// image (replayed as a one-frame folder), or a video file.
func openPath(ctx context.Context, path string, opts Options) (frame.Source, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%w %q: %v", ErrUnknownSpec, path, err)
	}
	if st.IsDir() {
		return OpenDir(path, opts)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%w %q: not a folder, video file or device", ErrUnknownSpec, path)
	}
	if imageExts[strings.ToLower(filepath.Ext(path))] {
		d, err := OpenDir(filepath.Dir(path), opts)
		if err != nil {
			return nil, err
		}
		d.files = []string{filepath.Base(path)}
		return d, nil
	}
	return OpenVideo(ctx, path, opts)
}
