package vlmprio_test

// The pixel scorer on real rendered task frames (test-only imports of
// tasks and render; the soft rasterizer keeps it CPU-only and cgo-free).

import (
	"context"
	"image"
	"image/png"
	"os"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/vlmrb/vlmrb/frame"
	"github.com/vlmrb/vlmrb/render"
	"github.com/vlmrb/vlmrb/replay"
	"github.com/vlmrb/vlmrb/tasks"
	"github.com/vlmrb/vlmrb/vlmprio"
)

// renderTolerance is the RGB distance within which a lit pixel matches a
// task's base colour (train uses the same value and the same Lighting 3,
// for shadows, and 35 for near-black keys).
const renderTolerance = 70

// pixelSpecFor builds the PixelSpec from a task's colours, as train does:
// reach has no separate object.
func pixelSpecFor(m tasks.Meta) vlmprio.PixelSpec {
	key := func(c [3]uint8) vlmprio.ColorKey {
		tol := float64(renderTolerance)
		if int(c[0])+int(c[1])+int(c[2]) < 100 { // near-black: train's darkTolerance
			tol = 35
		}
		return vlmprio.ColorKey{R: c[0], G: c[1], B: c[2], Tol: tol, Lighting: 3}
	}
	s := vlmprio.PixelSpec{Goal: key(m.Colors.Goal), Gripper: key(m.Colors.Gripper)}
	if m.Colors.Object != m.Colors.Gripper {
		s.Object = key(m.Colors.Object)
	}
	return s
}

// sideCamera looks at the tasks' workspace (hand start (0, 0.6, 0.2) m,
// objects near (0, 0.65, 0.02) m, goals up to y 0.9 m) from the side and a
// little above, so that reaching and carrying move things across the image
// and lifting moves them up it.
func sideCamera(w, h int) render.Camera {
	return render.LookAt(mgl64.Vec3{0.6, 0.74, 0.32}, mgl64.Vec3{0, 0.74, 0.06}, mgl64.Vec3{0, 0, 1}, 45, w, h)
}

// renderedClips runs one episode with the expert or a random policy,
// renders every step with the soft rasterizer and returns the clips.
func renderedClips(t *testing.T, r render.Renderer, name string, expert bool, steps, w, h int, seed uint64) []*vlmprio.Clip {
	t.Helper()
	env, err := tasks.Make(name, tasks.Options{MaxSteps: steps})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	obs, _ := env.Reset(seed)
	pol := episodePolicy(env, expert, seed)
	cam := sideCamera(w, h)
	var sc render.Scene
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	cl := vlmprio.NewClipper(vlmprio.ClipperConfig{Length: 32, Stride: 8, Tail: vlmprio.TailSkip, Task: env.Description(), Family: env.Family()})
	act := make([]float64, tasks.ActDim)
	var clips []*vlmprio.Clip
	for i := 0; ; i++ {
		pol.Act(obs, act)
		var term, trunc bool
		obs, _, term, trunc, _, err = env.Step(act)
		if err != nil {
			t.Fatal(err)
		}
		sc.UpdateFromModel(env.Model(), env.Data(), nil)
		c, _ := render.ResolveCamera(env.Model(), env.Data(), cam)
		if err := r.Render(&sc, c, img); err != nil {
			t.Fatal(err)
		}
		clips = append(clips, cl.Push(0, vlmprio.Step{Episode: int64(seed), Frame: frame.Frame{Image: img, Seq: uint64(i)},
			Ref: replay.Ref{Slot: int32(i)}, Done: term || trunc})...)
		if term || trunc {
			break
		}
	}
	return clips
}

// TestPixelRanksRenderedExpertAboveRandom: on real rendered frames of the
// tasks, the pixel scorer ranks the scripted expert's clips above a random
// policy's clips in ≥ 90% of pairs.
func TestPixelRanksRenderedExpertAboveRandom(t *testing.T) {
	t.Parallel()
	const w, h = 128, 96
	seeds, steps := 2, 160
	if testing.Short() || raceEnabled {
		seeds, steps = 1, 96
	}
	for _, name := range []string{"reach", "push", "pick-place"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r, err := render.New("soft", render.Options{})
			if err != nil {
				t.Skipf("soft renderer unavailable: %v", err)
			}
			defer r.Close()
			meta, err := tasks.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			s := vlmprio.NewPixelScorer(pixelSpecFor(meta))
			var e, rnd []float64
			for k := range seeds {
				for _, expert := range []bool{true, false} {
					seed := uint64(k + 1)
					if !expert {
						seed += 100
					}
					clips := renderedClips(t, r, name, expert, steps, w, h, seed)
					if dir := os.Getenv("VLMPRIO_DUMP"); dir != "" && k == 0 {
						dumpSheet(t, dir+"/"+name+map[bool]string{true: "-expert.png", false: "-random.png"}[expert], clips)
					}
					for _, c := range clips {
						sc, err := s.Score(context.Background(), c)
						if err != nil {
							t.Fatal(err)
						}
						if expert {
							e = append(e, sc.Value)
						} else {
							rnd = append(rnd, sc.Value)
						}
					}
				}
			}
			frac := vlmprio.PairWinFraction(e, rnd)
			t.Logf("%s: pixel ranks rendered expert above random in %.3f of %d pairs", name, frac, len(e)*len(rnd))
			if frac < 0.9 {
				t.Errorf("%s: %.3f of pairs, want ≥ 0.90 (expert %.3f, random %.3f)", name, frac, e, rnd)
			}
		})
	}
}

// dumpSheet writes every 4th frame of the clips' first frames as a PNG
// contact sheet (debugging aid: VLMPRIO_DUMP=dir).
func dumpSheet(t *testing.T, path string, clips []*vlmprio.Clip) {
	c := &vlmprio.Clip{}
	for _, cl := range clips {
		c.Frames = append(c.Frames, cl.Frames[0], cl.Frames[16])
	}
	const W, H = 128, 96
	enc := vlmprio.Encoding{Frames: len(c.Frames), Width: W, Height: H}
	urls, err := vlmprio.EncodeClip(c, enc)
	if err != nil {
		t.Fatal(err)
	}
	_ = urls
	w, h := enc.SheetSize(len(c.Frames))
	sheet := image.NewRGBA(image.Rect(0, 0, w, h))
	cols := w / W
	for k, f := range c.Frames {
		x, y := (k%cols)*W, (k/cols)*H
		for yy := 0; yy < H; yy++ {
			copy(sheet.Pix[(y+yy)*sheet.Stride+4*x:], f.Image.Pix[yy*f.Image.Stride:yy*f.Image.Stride+4*W])
		}
	}
	fo, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fo.Close()
	if err := png.Encode(fo, sheet); err != nil {
		t.Fatal(err)
	}
}
