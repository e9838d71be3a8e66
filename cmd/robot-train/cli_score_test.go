package main

import (
	"context"
	"fmt"
	"testing"

	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/vlmprio"
)

// TestGridPixelScorerSeesKeyAtEverySize: in DoorKey the key is in the
// picture in every frame, on its cell or, once picked up, drawn small on
// the agent's tile (MiniGrid keeps the key carried after the door opens).
// So on planner clips of DoorKey-12×12 the pixel scorer must see its object
// in every examined frame at every frame size a user may pick, tiles of 8
// to 21 pixels. Subsampling frames above 128 pixels at every other pixel
// lost the carried key (a quarter of a half tile) at 11–16 px tiles, and
// with it every clip after the pickup.
func TestGridPixelScorerSeesKeyAtEverySize(t *testing.T) {
	t.Parallel()
	sc, err := rundir.NewGridScorer("pixel", rundir.VLMConfig{})
	if err != nil {
		t.Fatal(err)
	}
	pixel := sc.(*vlmprio.PixelScorer)
	for _, side := range []int{96, 120, 132, 144, 160, 192, 224, 256} {
		c := vlmprio.NewClipper(vlmprio.ClipperConfig{Length: 32, Stride: 8})
		n := 0
		err := GridClips(context.Background(), "doorkey-12x12", "expert", "standard", side, 3, false, c, func(clips []*vlmprio.Clip) bool {
			for _, cl := range clips {
				f, err := pixel.Features(cl)
				if err != nil {
					t.Fatal(err)
				}
				if f.Visible[0] < 1 {
					t.Errorf("side %d, clip %d: key visible in %.2f of the frames, want all", side, n, f.Visible[0])
				}
				n++
			}
			return n >= 24
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// BenchmarkGridPixelScorer: the grid pixel scorer on 32-frame planner clips
// of DoorKey-12×12 (16 frames examined, every pixel read), in clips/s.
func BenchmarkGridPixelScorer(b *testing.B) {
	sc, err := rundir.NewGridScorer("pixel", rundir.VLMConfig{})
	if err != nil {
		b.Fatal(err)
	}
	for _, side := range []int{96, 224} {
		b.Run(fmt.Sprintf("side%d", side), func(b *testing.B) {
			c := vlmprio.NewClipper(vlmprio.ClipperConfig{Length: 32, Stride: 8})
			var clips []*vlmprio.Clip
			err := GridClips(context.Background(), "doorkey-12x12", "expert", "standard", side, 3, false, c, func(cs []*vlmprio.Clip) bool {
				clips = append(clips, cs...)
				return len(clips) >= 8
			})
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := range b.N {
				if _, err := sc.Score(context.Background(), clips[i%len(clips)]); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "clips/s")
		})
	}
}
