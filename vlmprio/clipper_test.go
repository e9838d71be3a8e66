package vlmprio

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/jpeg"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/vlmrb/vlmrb/frame"
	"github.com/vlmrb/vlmrb/replay"
)

func TestSubsampleIndices(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		length, n int
		want      []int
	}{
		{"all", 4, 8, []int{0, 1, 2, 3}},
		{"ends kept", 32, 2, []int{0, 31}},
		{"even 8 of 32", 32, 8, []int{0, 4, 9, 13, 18, 22, 27, 31}},
		{"one is last", 32, 1, []int{31}},
		{"empty", 0, 4, nil},
	}
	for _, tc := range tests {
		got := SubsampleIndices(tc.length, tc.n)
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: SubsampleIndices(%d,%d) = %v, want %v", tc.name, tc.length, tc.n, got, tc.want)
		}
	}
}

// decodeDataURL checks a data URL is base64 JPEG and returns the image.
func decodeDataURL(t testing.TB, u string) image.Image {
	t.Helper()
	const prefix = "data:image/jpeg;base64,"
	if !strings.HasPrefix(u, prefix) {
		t.Fatalf("image URL %.40q is not a JPEG data URL", u)
	}
	raw, err := base64.StdEncoding.DecodeString(u[len(prefix):])
	if err != nil {
		t.Fatalf("image URL is not valid base64: %v", err)
	}
	img, err := jpeg.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("image URL is not a JPEG: %v", err)
	}
	return img
}

// gradientClip returns a clip of n frames whose frame i is a uniform grey
// of level 8*i, so the order of frames in an encoding can be read back.
func gradientClip(n, w, h int) *Clip {
	c := &Clip{Task: "reach the goal", Family: "reach"}
	for i := range n {
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		for p := 0; p < len(img.Pix); p += 4 {
			img.Pix[p], img.Pix[p+1], img.Pix[p+2], img.Pix[p+3] = uint8(8*i), uint8(8*i), uint8(8*i), 255
		}
		c.Frames = append(c.Frames, frame.Frame{Image: img})
	}
	return c
}

func TestEncodeClipLayouts(t *testing.T) {
	t.Parallel()
	c := gradientClip(32, 64, 48)
	// contact sheet: one image, tiles in time order
	enc := Encoding{Layout: ContactSheet, Frames: 8, Width: 40, Height: 30, Quality: 95}
	urls, err := EncodeClip(c, enc)
	if err != nil {
		t.Fatal(err)
	}
	if len(urls) != 1 {
		t.Fatalf("contact sheet gave %d images, want 1", len(urls))
	}
	img := decodeDataURL(t, urls[0])
	idx := SubsampleIndices(32, 8)
	const jpegTol = 6 // JPEG at quality 95 keeps flat tiles within a few levels
	// ceil(sqrt(8)) = 3 columns, 3 rows
	w, h := enc.SheetSize(8)
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h || w != 3*40 || h != 3*30 {
		t.Fatalf("sheet is %v, want %dx%d = 120x90", b, w, h)
	}
	cols := w / 40
	for k, i := range idx {
		x, y := (k%cols)*40+20, (k/cols)*30+15
		r, _, _, _ := img.At(x, y).RGBA()
		if got, want := int(r>>8), 8*i; got < want-jpegTol || got > want+jpegTol {
			t.Errorf("tile %d (frame %d) level %d, want %d±%d", k, i, got, want, jpegTol)
		}
	}
	// image parts: one image per subsampled frame, each of the configured size
	urls, err = EncodeClip(c, Encoding{Layout: ImageParts, Frames: 5, Width: 32, Height: 24})
	if err != nil {
		t.Fatal(err)
	}
	if len(urls) != 5 {
		t.Fatalf("parts gave %d images, want 5", len(urls))
	}
	for k, u := range urls {
		img := decodeDataURL(t, u)
		if b := img.Bounds(); b.Dx() != 32 || b.Dy() != 24 {
			t.Fatalf("part %d is %v, want 32x24", k, b)
		}
	}
	if _, err := EncodeClip(&Clip{}, enc); err == nil {
		t.Fatal("empty clip encoded without error")
	}
}

func TestDefaultEncodingSheet(t *testing.T) {
	t.Parallel()
	w, h := DefaultEncoding().SheetSize(8)
	// 8 frames: ceil(sqrt(8)) = 3 columns, ceil(8/3) = 3 rows
	if w != 3*160 || h != 3*120 {
		t.Fatalf("default sheet %dx%d, want 480x360", w, h)
	}
}

// TestClipperStrideRule checks the default rule: clips of L frames start
// every S steps and each gives its score to the S transitions it starts
// with, so every transition of a long episode gets exactly one clip.
func TestClipperStrideRule(t *testing.T) {
	t.Parallel()
	const L, S, T = 8, 4, 30
	for _, tail := range []TailPolicy{TailPad, TailShorter, TailSkip} {
		c := NewClipper(ClipperConfig{Length: L, Stride: S, Tail: tail})
		var clips []*Clip
		for i := range T {
			clips = append(clips, c.Push(3, Step{Episode: 1, Frame: frame.Frame{Image: image.NewRGBA(image.Rect(0, 0, 2, 2)), Seq: uint64(i)},
				Ref: replay.Ref{Slot: int32(i), Gen: 1}, Done: i == T-1})...)
		}
		covered := make(map[int32]int)
		for _, cl := range clips {
			if cl.Env != 3 || cl.Episode != 1 {
				t.Fatalf("%v: clip env/episode %d/%d", tail, cl.Env, cl.Episode)
			}
			for k, f := range cl.Frames[:cl.Len()-cl.Padded] {
				if int(f.Seq) != cl.Start+k {
					t.Fatalf("%v: clip [%d,%d) frame %d has seq %d", tail, cl.Start, cl.End, k, f.Seq)
				}
			}
			for k, r := range cl.Refs {
				if int(r.Slot) != cl.Start+k {
					t.Fatalf("%v: clip at %d ref %d is slot %d", tail, cl.Start, k, r.Slot)
				}
				covered[r.Slot]++
			}
			if len(cl.Refs) > S {
				t.Fatalf("%v: clip has %d refs, want ≤ %d", tail, len(cl.Refs), S)
			}
			switch tail {
			case TailPad:
				if cl.Len() != L {
					t.Fatalf("pad: clip length %d, want %d", cl.Len(), L)
				}
				for k := cl.Len() - cl.Padded; k < cl.Len(); k++ {
					if cl.Frames[k].Seq != T-1 {
						t.Fatalf("pad frame is seq %d, want last (%d)", cl.Frames[k].Seq, T-1)
					}
				}
			case TailShorter:
				if cl.Padded != 0 || cl.Len() != cl.End-cl.Start {
					t.Fatalf("shorter: clip len %d for [%d,%d) padded %d", cl.Len(), cl.Start, cl.End, cl.Padded)
				}
			}
			if cl.End > T {
				t.Fatalf("%v: clip crosses the episode end: [%d,%d)", tail, cl.Start, cl.End)
			}
		}
		// full clips start at 0,4,...,20 (20+8 ≤ 30) and cover transitions 0..23
		st := c.Stats()
		switch tail {
		case TailSkip:
			for i := range T {
				want := 0
				if i < 24 {
					want = 1
				}
				if covered[int32(i)] != want {
					t.Fatalf("skip: transition %d covered %d times, want %d", i, covered[int32(i)], want)
				}
			}
			if st.TailSkipped != 6 {
				t.Fatalf("skip: TailSkipped = %d, want 6", st.TailSkipped)
			}
		default:
			for i := range T {
				if covered[int32(i)] != 1 {
					t.Fatalf("%v: transition %d covered %d times, want 1", tail, i, covered[int32(i)])
				}
			}
			if st.TailClips != 2 { // starts 24 and 28
				t.Fatalf("%v: TailClips = %d, want 2", tail, st.TailClips)
			}
		}
	}
}

// TestClipperWholeRule: ApplyWhole gives every frame's transition the score.
func TestClipperWholeRule(t *testing.T) {
	t.Parallel()
	c := NewClipper(ClipperConfig{Length: 8, Stride: 4, Apply: ApplyWhole, Tail: TailSkip})
	var clips []*Clip
	for i := range 16 {
		clips = append(clips, c.Push(0, Step{Episode: 0, Frame: frame.Frame{Image: image.NewRGBA(image.Rect(0, 0, 1, 1))}, Ref: replay.Ref{Slot: int32(i)}})...)
	}
	if len(clips) != 3 { // starts 0, 4, 8
		t.Fatalf("%d clips, want 3", len(clips))
	}
	for _, cl := range clips {
		if len(cl.Refs) != 8 || int(cl.Refs[0].Slot) != cl.Start {
			t.Fatalf("clip at %d has refs %v", cl.Start, cl.Refs)
		}
	}
}

// TestClipperInterleavedEnvs pushes several envs in random interleaving,
// with episodes of random lengths, and checks no clip mixes envs or
// episodes and frames are consecutive.
func TestClipperInterleavedEnvs(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	const envs = 5
	c := NewClipper(ClipperConfig{Length: 8, Stride: 3, Tail: TailPad})
	type envState struct {
		ep   int64
		t    int
		left int
	}
	st := make([]envState, envs)
	for e := range st {
		st[e] = envState{ep: int64(e * 1000), left: 1 + rng.IntN(40)}
	}
	type tag struct {
		env  int
		ep   int64
		step int
	}
	tags := make(map[int32]tag) // slot → what was stored there
	slot := int32(0)
	var clips []*Clip
	for range 4000 {
		e := rng.IntN(envs)
		s := &st[e]
		// encode env, episode and step in the frame's Camera/Seq
		f := frame.Frame{Image: image.NewRGBA(image.Rect(0, 0, 1, 1)), Camera: fmt.Sprintf("env%d/ep%d", e, s.ep), Seq: uint64(s.t)}
		tags[slot] = tag{e, s.ep, s.t}
		s.left--
		done := s.left == 0
		clips = append(clips, c.Push(e, Step{Episode: s.ep, Frame: f, Ref: replay.Ref{Slot: slot}, Done: done})...)
		slot++
		s.t++
		if done {
			s.ep++
			s.t = 0
			s.left = 1 + rng.IntN(40)
		}
	}
	if len(clips) < 100 {
		t.Fatalf("only %d clips", len(clips))
	}
	for _, cl := range clips {
		want := fmt.Sprintf("env%d/ep%d", cl.Env, cl.Episode)
		for k, f := range cl.Frames {
			if f.Camera != want {
				t.Fatalf("clip env %d ep %d has frame from %s", cl.Env, cl.Episode, f.Camera)
			}
			if k < cl.Len()-cl.Padded && int(f.Seq) != cl.Start+k {
				t.Fatalf("clip frames not consecutive: frame %d seq %d start %d", k, f.Seq, cl.Start)
			}
		}
		for k, r := range cl.Refs {
			tg := tags[r.Slot]
			if tg.env != cl.Env || tg.ep != cl.Episode || tg.step != cl.Start+k {
				t.Fatalf("clip (env %d ep %d start %d) ref %d points at env %d ep %d step %d", cl.Env, cl.Episode, cl.Start, k, tg.env, tg.ep, tg.step)
			}
		}
	}
}

// TestClipperEpisodeChangeWithoutDone closes the old episode when a new
// episode id arrives without a Done step.
func TestClipperEpisodeChangeWithoutDone(t *testing.T) {
	t.Parallel()
	c := NewClipper(ClipperConfig{Length: 4, Stride: 2, Tail: TailShorter})
	var clips []*Clip
	for i := range 3 {
		clips = append(clips, c.Push(0, Step{Episode: 7, Frame: frame.Frame{Image: image.NewRGBA(image.Rect(0, 0, 1, 1))}, Ref: replay.Ref{Slot: int32(i)}})...)
	}
	got := c.Push(0, Step{Episode: 8, Frame: frame.Frame{Image: image.NewRGBA(image.Rect(0, 0, 1, 1))}, Ref: replay.Ref{Slot: 3}})
	clips = append(clips, got...)
	for _, cl := range clips {
		if cl.Episode != 7 {
			t.Fatalf("clip of episode %d emitted before episode 8 has 4 frames", cl.Episode)
		}
	}
	if len(clips) != 2 { // shorter tails starting at 0 (3 frames) and 2 (1 frame)
		t.Fatalf("%d tail clips, want 2", len(clips))
	}
	if fl := c.Flush(0); len(fl) != 1 || fl[0].Episode != 8 || fl[0].Len() != 1 {
		t.Fatalf("Flush gave %v", fl)
	}
}

// TestClipperOwnsFrames: the caller may reuse its image after Push.
func TestClipperOwnsFrames(t *testing.T) {
	t.Parallel()
	c := NewClipper(ClipperConfig{Length: 2, Stride: 1})
	img := image.NewRGBA(image.Rect(0, 0, 1, 1))
	img.Pix[0] = 1
	c.Push(0, Step{Frame: frame.Frame{Image: img}})
	img.Pix[0] = 2
	clips := c.Push(0, Step{Frame: frame.Frame{Image: img}})
	if len(clips) != 1 || clips[0].Frames[0].Image.Pix[0] != 1 || clips[0].Frames[1].Image.Pix[0] != 2 {
		t.Fatal("clip frames alias the caller's image")
	}
}

// A terminated episode's final observation o_T ends its last clips: with
// T = 10 transitions, L = 4 and S = 2 the clips start at 0, 2, 4, 6 (full,
// the one at 6 being o_6 … o_9) and 8 (o_8, o_9, o_T, padded once); no
// clip starts at o_T, and o_T's progress is the clip's.
func TestClipperTerminalFrame(t *testing.T) {
	c := NewClipper(ClipperConfig{Length: 4, Stride: 2})
	var clips []*Clip
	for i := range 10 {
		st := Step{Episode: 3, Frame: frame.Frame{Seq: uint64(i)}, Ref: replay.Ref{Slot: int32(i), Gen: 1},
			Progress: float64(i) / 10, HasProgress: true, Done: i == 9}
		if st.Done {
			st.Terminal, st.TerminalProgress = &frame.Frame{Seq: 10}, 1
		}
		clips = append(clips, c.Push(0, st)...)
	}
	var got []string
	for _, cl := range clips {
		s := fmt.Sprintf("%d-%d:", cl.Start, cl.End)
		for _, f := range cl.Frames {
			s += fmt.Sprintf(" %d", f.Seq)
		}
		s += fmt.Sprintf(" refs %d p %.1f", len(cl.Refs), cl.Progress[len(cl.Progress)-1])
		got = append(got, s)
	}
	want := []string{
		"0-4: 0 1 2 3 refs 2 p 0.3", "2-6: 2 3 4 5 refs 2 p 0.5", "4-8: 4 5 6 7 refs 2 p 0.7",
		"6-10: 6 7 8 9 refs 2 p 0.9", "8-11: 8 9 10 10 refs 2 p 1.0",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("clips\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestApplyRuleText: the rules read and write themselves as the names
// train's vlm.apply uses, and refuse other text and values.
func TestApplyRuleText(t *testing.T) {
	for _, a := range []ApplyRule{ApplyStride, ApplyWhole} {
		b, err := a.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back ApplyRule
		if err := back.UnmarshalText(b); err != nil || back != a {
			t.Errorf("%v: text %q reads back as %v (%v)", a, b, back, err)
		}
	}
	if s := ApplyWhole.String(); s != "whole" {
		t.Errorf("ApplyWhole.String() = %q", s)
	}
	var a ApplyRule
	if err := a.UnmarshalText([]byte("all")); err == nil {
		t.Error("all: no error")
	}
	if _, err := ApplyRule(-1).MarshalText(); err == nil {
		t.Error("ApplyRule(-1): no error")
	}
}
