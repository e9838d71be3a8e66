package lerobot

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
)

// ErrNoFFmpeg is returned when a dataset with cameras is written on a
// machine without ffmpeg (Debian: apt-get install ffmpeg).
var ErrNoFFmpeg = errors.New("lerobot: ffmpeg not found on PATH; install it (Debian: apt-get install ffmpeg) to write camera videos")

// Codec names accepted by Spec.Codec.
const (
	CodecAuto = "auto" // AV1 (libsvtav1) when ffmpeg has it, else H.264 (libx264)
	CodecAV1  = "av1"
	CodecH264 = "h264"
)

// encoderArgs are ffmpeg's output options per codec. AV1 follows LeRobot's
// encode_video_frames defaults (libsvtav1, yuv420p, g=2, crf=30,
// preset 12): a keyframe every 2 frames keeps random access to any frame
// cheap, which a training loader needs. H.264 uses the same GOP and
// quality intent with libx264.
var encoderArgs = map[string][]string{
	CodecAV1:  {"-c:v", "libsvtav1", "-pix_fmt", "yuv420p", "-g", "2", "-crf", "30", "-preset", "12"},
	CodecH264: {"-c:v", "libx264", "-pix_fmt", "yuv420p", "-g", "2", "-crf", "23", "-preset", "veryfast"},
}

// svtMinSize is SVT-AV1's smallest frame side (pixels): "Source Width
// must be at least 64".
const svtMinSize = 64

// pickCodec resolves want (auto|av1|h264) against the encoders this ffmpeg
// has and the smallest frame side (AV1 through SVT-AV1 needs 64 pixels).
func pickCodec(ctx context.Context, ffmpeg, want string, minSide int) (string, error) {
	out, err := exec.CommandContext(ctx, ffmpeg, "-hide_banner", "-encoders").Output()
	if err != nil {
		return "", fmt.Errorf("lerobot: %s -encoders: %w", ffmpeg, err)
	}
	has := func(enc string) bool { return bytes.Contains(out, []byte(" "+enc+" ")) }
	switch want {
	case CodecAuto, "":
		if has("libsvtav1") && minSide >= svtMinSize {
			return CodecAV1, nil
		}
		if has("libx264") {
			return CodecH264, nil
		}
		return "", fmt.Errorf("lerobot: ffmpeg has neither libsvtav1 (AV1) nor libx264 (H.264); install a full ffmpeg build")
	case CodecAV1:
		if !has("libsvtav1") {
			return "", fmt.Errorf("lerobot: ffmpeg has no libsvtav1 encoder; use codec h264 or an ffmpeg built with SVT-AV1")
		}
		if minSide < svtMinSize {
			return "", fmt.Errorf("lerobot: AV1 (SVT-AV1) needs frames of at least %dx%d pixels; use larger cameras or codec h264", svtMinSize, svtMinSize)
		}
		return CodecAV1, nil
	case CodecH264:
		if !has("libx264") {
			return "", fmt.Errorf("lerobot: ffmpeg has no libx264 encoder; use codec av1 or an ffmpeg built with x264")
		}
		return CodecH264, nil
	}
	return "", fmt.Errorf("lerobot: codec %q is not one of auto|av1|h264", want)
}

// encoder is one ffmpeg process turning raw RGB frames on stdin into one
// MP4 file: all the episodes of a video key go into the same file, one
// after another, as v3.0 packs them.
type encoder struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *tail
	w, h   int
	rgb    []byte // one frame, packed rgb24
	frames int64
	done   chan error
	waited bool
	werr   error
}

func startEncoder(ffmpeg, codec, path string, w, h int, fps float64) (*encoder, error) {
	args := []string{"-hide_banner", "-loglevel", "error", "-nostats", "-y",
		"-f", "rawvideo", "-pix_fmt", "rgb24", "-s", strconv.Itoa(w) + "x" + strconv.Itoa(h),
		"-r", strconv.FormatFloat(fps, 'g', -1, 64), "-i", "pipe:0", "-an"}
	args = append(args, encoderArgs[codec]...)
	args = append(args, "-f", "mp4", path)
	cmd := exec.Command(ffmpeg, args...)
	e := &encoder{cmd: cmd, stderr: &tail{max: 4096}, w: w, h: h, rgb: make([]byte, 3*w*h), done: make(chan error, 1)}
	cmd.Stderr = e.stderr
	var err error
	if e.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("lerobot: start ffmpeg: %w", err)
	}
	go func() { e.done <- cmd.Wait() }()
	return e, nil
}

// write sends img (w×h) to the encoder.
func (e *encoder) write(img *image.RGBA) error {
	b := img.Bounds()
	if b.Dx() != e.w || b.Dy() != e.h {
		return fmt.Errorf("lerobot: frame is %dx%d, the video is %dx%d", b.Dx(), b.Dy(), e.w, e.h)
	}
	for y := range e.h {
		row := img.Pix[(y)*img.Stride : (y)*img.Stride+4*e.w]
		dst := e.rgb[3*e.w*y:]
		for x := range e.w {
			dst[3*x], dst[3*x+1], dst[3*x+2] = row[4*x], row[4*x+1], row[4*x+2]
		}
	}
	if _, err := e.stdin.Write(e.rgb); err != nil {
		return fmt.Errorf("lerobot: ffmpeg stopped taking frames: %w (%s)", err, e.err())
	}
	e.frames++
	return nil
}

// finish closes stdin and waits for the file to be complete.
func (e *encoder) finish() error {
	_ = e.stdin.Close()
	if err := e.wait(); err != nil {
		return fmt.Errorf("lerobot: ffmpeg: %w (%s)", err, e.err())
	}
	return nil
}

// wait reaps the process once and returns its exit status.
func (e *encoder) wait() error {
	if !e.waited {
		e.werr, e.waited = <-e.done, true
	}
	return e.werr
}

// kill stops the encoder without waiting for a complete file.
func (e *encoder) kill() {
	_ = e.stdin.Close()
	if e.cmd.Process != nil {
		_ = e.cmd.Process.Kill()
	}
	_ = e.wait()
}

func (e *encoder) err() string {
	if s := strings.TrimSpace(e.stderr.String()); s != "" {
		return s
	}
	return "no message"
}

// tail keeps the last max bytes written (ffmpeg's stderr).
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
