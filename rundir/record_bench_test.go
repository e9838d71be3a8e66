package rundir

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/vlmrb/vlmrb/render"
)

// BenchmarkRecord records one 100-step expert episode of push with the
// task camera at 128×128 (render, encode, write): frames/s end to end.
func BenchmarkRecord(b *testing.B) {
	root := b.TempDir()
	i := 0
	var frames int64
	for b.Loop() {
		res, err := Record(context.Background(), filepath.Join(root, fmt.Sprint(i)), RecordOptions{
			Task: "push", Policy: "expert", Episodes: 1, MaxEpisodeLen: 100,
			Cameras: []string{render.TaskCamera}, Width: 128, Height: 128, Backend: "auto"})
		if err != nil {
			b.Skip(err) // no renderer or no ffmpeg
		}
		frames += res.Frames
		i++
	}
	b.ReportMetric(float64(frames)/b.Elapsed().Seconds(), "frames/s")
}
