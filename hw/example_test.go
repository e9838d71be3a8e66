package hw_test

import (
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"

	"github.com/vlmrb/vlmrb/frame"
	"github.com/vlmrb/vlmrb/hw"
)

// ExampleOpen replays a folder of images through the same frame.Source
// interface a live camera uses, resized to the scorer's input size.
func ExampleOpen() {
	dir, _ := os.MkdirTemp("", "hw-example")
	defer os.RemoveAll(dir)
	for i := 0; i < 3; i++ {
		f, _ := os.Create(filepath.Join(dir, fmt.Sprintf("frame%d.png", i)))
		_ = png.Encode(f, image.NewRGBA(image.Rect(0, 0, 640, 480)))
		f.Close()
	}

	src, err := hw.Open(context.Background(), "dir:"+dir, hw.Options{Width: 224, Height: 224})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer func() { _ = src.Close() }()
	var f frame.Frame
	for src.Next(context.Background(), &f) == nil {
		fmt.Println(f.Seq, f.Image.Rect.Dx(), f.Image.Rect.Dy())
	}
	fmt.Printf("%+v\n", src.(hw.StatsReporter).Stats())
	// Output:
	// 0 224 224
	// 1 224 224
	// 2 224 224
	// {Frames:3 Delivered:3 Dropped:0 Decimated:0 DecodeErrors:0 Reconnects:0 TooLarge:0 LastError:}
}
