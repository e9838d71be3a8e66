package lerobot

import (
	"context"
	"errors"
	"fmt"
	"image"
	"math"
	"slices"
	"time"

	"github.com/vlmrb/vlmrb/frame"
)

// ConvertOptions configures ConvertSource.
type ConvertOptions struct {
	// FPS is the dataset's frame rate. 0 estimates it from the median
	// interval of the source's first timestamps (30 when they carry none).
	FPS       float64
	MaxFrames int    // stop after this many dataset frames (0: until the source ends)
	Camera    string // video key observation.images.<Camera> (default "cam")
	Task      string // the episode's task text (default "camera recording")
	Codec     string // auto | av1 | h264
	FFmpeg    string
}

// ConvertResult describes a converted recording.
type ConvertResult struct {
	*Summary
	SourceFrames  int // frames read from the source
	Width, Height int
	FPS           float64
}

// fpsProbe is how many leading frames ConvertSource holds to estimate the
// frame rate.
const fpsProbe = 16

// ConvertSource turns a camera stream (a recording from package hw or any
// frame.Source) into a one-episode LeRobot v3.0 dataset with one video and
// no state or action. LeRobot expects frame k at timestamp k/fps, while
// real cameras deliver frames at irregular times; so the stream is
// resampled on the fps grid by its own timestamps: dataset frame k is the
// newest source frame captured at or before k/fps after the first (frames
// are repeated across a gap and dropped when they come faster), and its
// capture time is kept in observation.camera_time. Odd frame sizes lose
// their last column or row (yuv420p needs even sizes). Cancelling ctx
// ends the recording: the frames read so far are written.
func ConvertSource(ctx context.Context, src frame.Source, dir string, o ConvertOptions) (*ConvertResult, error) {
	if o.Camera == "" {
		o.Camera = "cam"
	}
	if o.Task == "" {
		o.Task = "camera recording"
	}
	// read ahead to learn the size and, when not given, the rate
	var head []frame.Frame
	var f frame.Frame
	ended := false
	for len(head) < fpsProbe {
		if err := src.Next(ctx, &f); err != nil {
			if errors.Is(err, frame.ErrEndOfStream) {
				ended = true
				break
			}
			return nil, fmt.Errorf("lerobot: camera frame %d: %w", len(head), err)
		}
		if f.Image == nil {
			return nil, fmt.Errorf("lerobot: camera frame %d has no image", len(head))
		}
		head = append(head, f.Clone())
		if o.FPS > 0 {
			break
		}
	}
	if len(head) == 0 {
		return nil, errors.New("lerobot: the camera source delivered no frames")
	}
	if o.FPS <= 0 {
		o.FPS = estimateFPS(head)
	}
	b := head[0].Image.Bounds()
	w, h := b.Dx()&^1, b.Dy()&^1
	if w < 2 || h < 2 {
		return nil, fmt.Errorf("lerobot: camera frames are %dx%d; too small for a video", b.Dx(), b.Dy())
	}
	wr, err := Create(ctx, dir, Spec{FPS: o.FPS, CameraTime: true, Codec: o.Codec, FFmpeg: o.FFmpeg,
		Cameras: []Camera{{Name: o.Camera, Width: w, Height: h}}})
	if err != nil {
		return nil, err
	}
	defer wr.Abort()
	if err := wr.BeginEpisode(o.Task); err != nil {
		return nil, err
	}
	res := &ConvertResult{Width: w, Height: h, FPS: o.FPS}
	period := time.Duration(float64(time.Second) / o.FPS)
	slack := period / 100 // timestamps rounded to the nanosecond still land on their tick
	t0 := head[0].Time
	latest := image.NewRGBA(image.Rect(0, 0, w, h))
	var latestT time.Duration
	have := false
	var k int64 // next dataset frame
	fr := Frame{Images: []*image.RGBA{latest}}
	emitUntil := func(t time.Duration) error { // ticks strictly before t get the latest frame
		for have && tick(k, o.FPS) < t-slack {
			if o.MaxFrames > 0 && k >= int64(o.MaxFrames) {
				return nil
			}
			fr.CameraTime = latestT.Seconds()
			if err := wr.AddFrame(&fr); err != nil {
				return err
			}
			k++
		}
		return nil
	}
	take := func(f *frame.Frame) error {
		fb := f.Image.Bounds()
		if fb.Dx()&^1 != w || fb.Dy()&^1 != h {
			return fmt.Errorf("lerobot: camera frame %d is %dx%d, the first was %dx%d", res.SourceFrames, fb.Dx(), fb.Dy(), b.Dx(), b.Dy())
		}
		t := f.Time.Sub(t0)
		if have && t < latestT {
			return fmt.Errorf("lerobot: camera frame %d is stamped %v before the previous one", res.SourceFrames, latestT-t)
		}
		if err := emitUntil(t); err != nil {
			return err
		}
		for y := range h {
			copy(latest.Pix[y*latest.Stride:y*latest.Stride+4*w], f.Image.Pix[y*f.Image.Stride:])
		}
		latestT, have = t, true
		res.SourceFrames++
		return nil
	}
	for i := range head {
		if err := take(&head[i]); err != nil {
			return nil, err
		}
	}
	for !ended && (o.MaxFrames == 0 || k < int64(o.MaxFrames)) {
		if err := src.Next(ctx, &f); err != nil {
			// the end of a recording, or the user stopping a live camera
			// (Ctrl-C): the frames so far make the episode
			if errors.Is(err, frame.ErrEndOfStream) || ctx.Err() != nil {
				break
			}
			return nil, fmt.Errorf("lerobot: camera frame %d: %w", res.SourceFrames, err)
		}
		if err := take(&f); err != nil {
			return nil, err
		}
	}
	// the last frame covers its own tick
	if err := emitUntil(latestT + 2*slack); err != nil {
		return nil, err
	}
	if err := wr.EndEpisode(""); err != nil {
		return nil, err
	}
	sum, err := wr.Close()
	if err != nil {
		return nil, err
	}
	res.Summary = sum
	return res, nil
}

// tick is dataset frame k's time after the first frame.
func tick(k int64, fps float64) time.Duration {
	return time.Duration(float64(k) * float64(time.Second) / fps)
}

// estimateFPS is 1 / the median interval between the frames' timestamps,
// 30 when they are not increasing.
func estimateFPS(fs []frame.Frame) float64 {
	var d []float64
	for i := 1; i < len(fs); i++ {
		if dt := fs[i].Time.Sub(fs[i-1].Time).Seconds(); dt > 0 {
			d = append(d, dt)
		}
	}
	if len(d) == 0 {
		return 30
	}
	slices.Sort(d)
	fps := 1 / d[len(d)/2]
	if r := math.Round(fps); math.Abs(fps-r) < 1e-3 { // nanosecond-rounded stamps of an integer rate
		fps = r
	}
	return fps
}
