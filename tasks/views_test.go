package tasks_test

import (
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/render"
	"github.com/vlmrb/vlmrb/sim/articulated"
	"github.com/vlmrb/vlmrb/sim/mjcf"
	"github.com/vlmrb/vlmrb/tasks"
)

// The bar for scorer frames: at 224×224 the gripper, the object and
// the goal each cover at least minPartPixels pixels in at least
// minVisibleFrac of the frames of an expert episode.
const (
	scorerSide     = 224
	minPartPixels  = 9
	minVisibleFrac = 0.9
)

// partIDs resolves part names to segmentation ids: a moving body's id is
// its index + 1 (render.FromModel); a static geom (of the world body) gets
// an id of its own through Style.IDs, starting at next.
func partIDs(t *testing.T, a *mjcf.Model, names []string, st *render.Style, next int32) map[int32]bool {
	t.Helper()
	ids := map[int32]bool{}
	for i, n := range names {
		if b := slices.IndexFunc(a.Model.Bodies, func(b articulated.Body) bool { return b.Name == n }); b > 0 {
			ids[int32(b)+1] = true
			continue
		}
		if !slices.ContainsFunc(a.Geoms, func(g mjcf.Geom) bool { return g.Name == n }) {
			t.Fatalf("part %q is neither a body nor a geom", n)
		}
		st.IDs[n] = next + int32(i)
		ids[next+int32(i)] = true
	}
	return ids
}

// viewCameras turns a task's views into cameras tiling a w×h frame side by
// side, as train's scorer camera does.
func viewCameras(vs []tasks.View, w, h int) []render.Camera {
	cams := make([]render.Camera, len(vs))
	for i, v := range vs {
		x0, x1 := i*w/len(vs), (i+1)*w/len(vs)
		cams[i] = render.LookAt(mgl64.Vec3{v.Eye.X, v.Eye.Y, v.Eye.Z}, mgl64.Vec3{v.Target.X, v.Target.Y, v.Target.Z},
			mgl64.Vec3{0, 0, 1}, v.FovY, x1-x0, h)
	}
	return cams
}

// TestScorerViewsShowParts renders every task's expert episode (the full
// 500 steps, every 4th frame, two seeds) at 224×224 with the segmentation
// buffer, scenery on, and checks that gripper, object and goal are each in
// view in at least 90% of the frames.
func TestScorerViewsShowParts(t *testing.T) {
	t.Parallel()
	every, seeds := 4, 2
	if testing.Short() {
		every, seeds = 10, 1
	}
	r, err := render.New("soft", render.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, name := range tasks.Names() {
		t.Run(name, func(t *testing.T) {
			env, err := tasks.Make(name, tasks.Options{})
			if err != nil {
				t.Fatal(err)
			}
			meta := env.Meta()
			if len(meta.Views) == 0 || len(meta.Parts.Gripper) == 0 || len(meta.Parts.Object) == 0 || len(meta.Parts.Goal) == 0 {
				t.Fatalf("%s has no scorer views or parts: %+v", name, meta.Parts)
			}
			st := &render.Style{Scenery: true, IDs: map[string]int32{}}
			parts := [3]map[int32]bool{
				partIDs(t, env.Model(), meta.Parts.Gripper, st, 1<<24),
				partIDs(t, env.Model(), meta.Parts.Object, st, 1<<24+100),
				partIDs(t, env.Model(), meta.Parts.Goal, st, 1<<24+200),
			}
			cams := viewCameras(meta.Views, scorerSide, scorerSide)
			var sc render.Scene
			var frames int
			var seen, least [3]int
			least = [3]int{1 << 30, 1 << 30, 1 << 30}
			for seed := range seeds {
				obs, _ := env.Reset(control.EpisodeSeed(uint64(seed), 0, 0))
				pol := env.Expert()
				act := make([]float64, tasks.ActDim)
				for step := 0; ; step++ {
					if step%every == 0 {
						sc.UpdateFromModel(env.Model(), env.Data(), st)
						var px [3]int
						for _, cam := range cams {
							seg := make([]int32, cam.Width*cam.Height)
							if err := r.RenderBuffers(&sc, cam, render.Buffers{Seg: seg}); err != nil {
								t.Fatal(err)
							}
							for _, id := range seg {
								for k := range parts {
									if parts[k][id] {
										px[k]++
									}
								}
							}
						}
						frames++
						for k := range px {
							if px[k] >= minPartPixels {
								seen[k]++
							}
							least[k] = min(least[k], px[k])
						}
					}
					pol.Act(obs, act)
					var term, trunc bool
					obs, _, term, trunc, _, err = env.Step(act)
					if err != nil {
						t.Fatal(err)
					}
					if term || trunc {
						break
					}
				}
			}
			for k, what := range [3]string{"gripper", "object", "goal"} {
				frac := float64(seen[k]) / float64(frames)
				t.Logf("%s: %s covers ≥ %d px in %.3f of %d frames (fewest %d px)", name, what, minPartPixels, frac, frames, least[k])
				if frac < minVisibleFrac {
					t.Errorf("%s: %s covers ≥ %d px in only %.3f of the frames, want ≥ %.2f", name, what, minPartPixels, frac, minVisibleFrac)
				}
			}
		})
	}
}
