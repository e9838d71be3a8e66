package rundir

import (
	"bytes"
	"image"
	"image/color"
	"image/gif"
	"os"
	"testing"
)

// An evaluation GIF reaches the event file as summary.proto's Image: the
// tag, the GIF's own width and height, colorspace 3, and the bytes as they
// were (TensorBoard plays them as an animation).
func TestEventFileGIF(t *testing.T) {
	t.Parallel()
	var g gif.GIF
	pal := color.Palette{color.Black, color.White}
	for i := range 3 {
		f := image.NewPaletted(image.Rect(0, 0, 20, 12), pal)
		f.SetColorIndex(i, i, 1)
		g.Image, g.Delay = append(g.Image, f), append(g.Delay, 10)
	}
	var buf bytes.Buffer
	if err := gif.EncodeAll(&buf, &g); err != nil {
		t.Fatal(err)
	}
	w, err := NewEventWriter(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteGIF(3000, "eval/video", buf.Bytes()); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteGIF(3000, "eval/video", []byte("not a gif")); err == nil {
		t.Fatal("bytes that are not a GIF were accepted")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	recs, err := decodeRecords(b)
	if err != nil || len(recs) != 2 {
		t.Fatalf("%d records, %v; want the version and one image", len(recs), err)
	}
	ev, err := parsePB(recs[1])
	if err != nil {
		t.Fatal(err)
	}
	var step uint64
	var summary []byte
	for _, f := range ev {
		switch f.num {
		case 2:
			step = f.u
		case 5:
			summary = f.b
		}
	}
	sum, _ := parsePB(summary)
	if step != 3000 || len(sum) != 1 || sum[0].num != 1 {
		t.Fatalf("step %d, summary %+v", step, sum)
	}
	val, _ := parsePB(sum[0].b)
	var tag string
	var img []byte
	for _, f := range val {
		switch f.num {
		case 1:
			tag = string(f.b)
		case 4:
			img = f.b
		}
	}
	fields, _ := parsePB(img)
	got := map[int]uint64{}
	var data []byte
	for _, f := range fields {
		if f.num == 4 {
			data = f.b
		} else {
			got[f.num] = f.u
		}
	}
	if tag != "eval/video" || got[1] != 12 || got[2] != 20 || got[3] != 3 || !bytes.Equal(data, buf.Bytes()) {
		t.Fatalf("tag %q height %d width %d colorspace %d, %d bytes (want %d)", tag, got[1], got[2], got[3], len(data), buf.Len())
	}
}
