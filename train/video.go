package train

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/vlmrb/vlmrb/internal/atomicfile"
	"image"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
)

// SavePNG writes img to path atomically.
func SavePNG(path string, img image.Image) error {
	return atomicfile.Write(path, 0o644, func(w io.Writer) error { return png.Encode(w, img) })
}

// SaveGIF writes frames as an animated GIF (delay in 1/100 s per frame).
func SaveGIF(path string, frames []*image.RGBA, delay int) error { return saveGIF(path, frames, delay) }

// SaveMP4 encodes frames (all the same size) to an H.264 MP4 at fps through
// ffmpeg, which must be on PATH (make deps installs it).
func SaveMP4(ctx context.Context, path string, frames []*image.RGBA, fps int) error {
	if len(frames) == 0 {
		return errors.New("mp4: no frames")
	}
	ff, err := exec.LookPath("ffmpeg")
	if err != nil {
		return errors.New("mp4 needs ffmpeg on PATH: run `make deps` (or apt-get install ffmpeg), or write .gif instead")
	}
	b := frames[0].Bounds()
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp.mp4")
	// yuv420p needs even sizes: pad by one pixel when odd
	cmd := exec.CommandContext(ctx, ff, "-hide_banner", "-loglevel", "error", "-y",
		"-f", "rawvideo", "-pix_fmt", "rgba", "-s", fmt.Sprintf("%dx%d", b.Dx(), b.Dy()), "-r", fmt.Sprint(fps), "-i", "-",
		"-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-movflags", "+faststart", tmp)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start ffmpeg: %w", err)
	}
	var werr error
	for _, f := range frames {
		if f.Bounds().Size() != b.Size() {
			werr = errors.New("mp4: frames differ in size")
			break
		}
		if _, werr = in.Write(f.Pix); werr != nil {
			break
		}
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("ffmpeg: %v: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	if werr != nil {
		_ = os.Remove(tmp)
		return werr
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	return atomicfile.SyncDir(filepath.Dir(path))
}
