package vlmprio_test

import (
	"context"
	"image"
	"os"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/vlmrb/vlmrb/frame"
	"github.com/vlmrb/vlmrb/render"
	"github.com/vlmrb/vlmrb/replay"
	"github.com/vlmrb/vlmrb/tasks"
	"github.com/vlmrb/vlmrb/vlmprio"
)

// scorerFrames renders one episode (expert or random policy) the way train
// renders scorer frames: the task's scorer view(s) tiled into a side×side
// frame, scenery (arm, table legs, floor, backdrop) on, shadows and 4×
// anti-aliasing. It returns the clips of 32 frames every 8 steps.
func scorerFrames(t *testing.T, r render.Renderer, name string, expert bool, steps, side int, seed uint64) []*vlmprio.Clip {
	t.Helper()
	env, err := tasks.Make(name, tasks.Options{MaxSteps: steps})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	obs, _ := env.Reset(seed)
	pol := episodePolicy(env, expert, seed)
	vs := env.Meta().Views
	st := &render.Style{Scenery: true}
	var sc render.Scene
	cl := vlmprio.NewClipper(vlmprio.ClipperConfig{Length: 32, Stride: 8, Tail: vlmprio.TailSkip, Task: env.Description(), Family: env.Family()})
	act := make([]float64, tasks.ActDim)
	var clips []*vlmprio.Clip
	for i := 0; ; i++ {
		sc.UpdateFromModel(env.Model(), env.Data(), st)
		img := image.NewRGBA(image.Rect(0, 0, side, side))
		for k, v := range vs {
			x0, x1 := k*side/len(vs), (k+1)*side/len(vs)
			cam := render.LookAt(mgl64.Vec3{v.Eye.X, v.Eye.Y, v.Eye.Z}, mgl64.Vec3{v.Target.X, v.Target.Y, v.Target.Z},
				mgl64.Vec3{0, 0, 1}, v.FovY, x1-x0, side)
			if err := r.Render(&sc, cam, img.SubImage(image.Rect(x0, 0, x1, side)).(*image.RGBA)); err != nil {
				t.Fatal(err)
			}
		}
		pol.Act(obs, act)
		var term, trunc bool
		obs, _, term, trunc, _, err = env.Step(act)
		if err != nil {
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

// TestPixelRanksSceneryExpertAboveRandom: on scorer frames of every task
// (224×224, scenery, shadows, MSAA), the pixel scorer ranks the expert's
// clips above a random policy's in ≥ 90% of (expert, random) pairs, and
// never fails on a clip where something is hidden.
func TestPixelRanksSceneryExpertAboveRandom(t *testing.T) {
	t.Parallel()
	const side = 224
	// one seed of 160 steps per policy by default (17 clips each, 289
	// pairs); VLMRB_SWEEP=1 runs two seeds of 200 steps
	seeds, steps := 1, 160
	if os.Getenv("VLMRB_SWEEP") != "" {
		seeds, steps = 2, 200
	}
	if testing.Short() || raceEnabled {
		steps = 96
	}
	names := tasks.Names()
	if n := os.Getenv("VLMPRIO_TASK"); n != "" {
		names = []string{n}
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// EGL when it starts (faster), else the soft renderer: both
			// draw the same image within 8/255 (render's parity tests)
			r, err := render.New("auto", render.Options{Shadows: true, MSAA: 4, Logf: func(string, ...any) {}})
			if err != nil {
				t.Fatal(err)
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
					clips := scorerFrames(t, r, name, expert, steps, side, seed)
					if dir := os.Getenv("VLMPRIO_DUMP"); dir != "" && k == 0 {
						dumpSheet(t, dir+"/"+name+map[bool]string{true: "-expert.png", false: "-random.png"}[expert], clips)
					}
					for _, c := range clips {
						sc, err := s.Score(context.Background(), c)
						if err != nil {
							t.Fatalf("clip %d–%d: %v", c.Start, c.End, err)
						}
						if os.Getenv("VLMPRIO_DEBUG") != "" {
							f, _ := s.Features(c)
							t.Logf("expert=%v clip %3d: %.3f conf %.2f %v", expert, c.Start, sc.Value, sc.Confidence, f)
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
			t.Logf("%s: pixel ranks expert above random in %.3f of %d pairs", name, frac, len(e)*len(rnd))
			if frac < 0.9 {
				t.Errorf("%s: %.3f of pairs, want ≥ 0.90 (expert %.3f, random %.3f)", name, frac, e, rnd)
			}
		})
	}
}
