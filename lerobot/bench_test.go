package lerobot

import (
	"context"
	"fmt"
	"image"
	"path/filepath"
	"testing"
)

// BenchmarkWrite writes a 200-frame episode (39-value state, 4-value
// action, one 128×128 camera) and closes the dataset: frames/s with the
// video encoded, the frame table and the metadata written and fsynced
// (which dominates without video on a busy disk).
func BenchmarkWrite(b *testing.B) {
	for _, codec := range []string{"none", CodecH264, CodecAV1} {
		b.Run(codec, func(b *testing.B) {
			sp := Spec{FPS: 80, StateDim: 39, ActionDim: 4, NextState: true, Rewards: true, Codec: codec}
			if codec != "none" {
				sp.Cameras = []Camera{{Name: "task", Width: 128, Height: 128}}
			}
			img := image.NewRGBA(image.Rect(0, 0, 128, 128))
			const frames = 200
			root := b.TempDir()
			i := 0
			for b.Loop() {
				w, err := Create(context.Background(), filepath.Join(root, fmt.Sprint(i)), sp)
				if err != nil {
					b.Skip(err) // no ffmpeg or no encoder
				}
				i++
				for t := range frames {
					f := synthetic(0, t, 39, 4)
					if len(sp.Cameras) > 0 { // a changing picture, so the encoder has work
						for j := range img.Pix {
							img.Pix[j] = uint8(t + j>>9)
						}
						f.Images = []*image.RGBA{img}
					}
					if err := w.AddFrame(&f); err != nil {
						b.Fatal(err)
					}
				}
				if err := w.EndEpisode("bench"); err != nil {
					b.Fatal(err)
				}
				if _, err := w.Close(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(frames*b.N)/b.Elapsed().Seconds(), "frames/s")
		})
	}
}

// BenchmarkReadFrames reads a 10,000-frame table (20 episodes of 500) back
// with every consistency check: samples/s.
func BenchmarkReadFrames(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "ds")
	sp := Spec{FPS: 80, StateDim: 39, ActionDim: 4, NextState: true, Rewards: true}
	w, err := Create(context.Background(), dir, sp)
	if err != nil {
		b.Fatal(err)
	}
	for e := range 20 {
		for t := range 500 {
			f := synthetic(e, t, 39, 4)
			if err := w.AddFrame(&f); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.EndEpisode("bench"); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := w.Close(); err != nil {
		b.Fatal(err)
	}
	var n int64
	for b.Loop() {
		d, err := Open(dir, Limits{})
		if err != nil {
			b.Fatal(err)
		}
		if err := d.ReadFrames(func(*FrameRow) error { n++; return nil }); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "samples/s")
}
