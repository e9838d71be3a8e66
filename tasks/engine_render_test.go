package tasks_test

import (
	"image"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/vlmrb/vlmrb/render"
	"github.com/vlmrb/vlmrb/tasks"
	"github.com/vlmrb/vlmrb/vlmprio"
)

// keyMatches is vlmprio.ColorKey's documented rule: the pixel rescaled to
// the key's brightness (when the two differ by at most a factor Lighting,
// and the key is neither dark, R+G+B < 60, nor neutral) lies within RGB
// distance Tol of the key.
func keyMatches(k vlmprio.ColorKey, r, g, b float64) bool {
	kr, kg, kb := float64(k.R), float64(k.G), float64(k.B)
	ks, ps := kr+kg+kb, r+g+b
	lo, hi := min(k.R, k.G, k.B), max(k.R, k.G, k.B)
	neutral := 10*int(hi-lo) < int(k.R)+int(k.G)+int(k.B)
	if k.Lighting > 1 && ks >= 60 && !neutral {
		if ps == 0 || ps < ks/k.Lighting || ps > ks*k.Lighting {
			return false
		}
		r, g, b = r*ks/ps, g*ks/ps, b*ks/ps
	}
	return math.Hypot(math.Hypot(r-kr, g-kg), b-kb) <= k.Tol
}

// partPixels renders env's current state through the scorer's task camera
// and returns, per part (gripper, object, goal), its segmented pixel
// count, how many of those pixels match the part's colour key (what the
// pixel scorer segments; a goal's pale floor pad and pole share its id but
// not its key) and the centroid of the matching ones.
//
// The centroids are relative to where the camera projects the mean
// position of the part's bodies, so that they say how the renderer draws
// the state, whichever state the engine reached.
func partPixels(t *testing.T, env *tasks.Env) (n, hits [3]int, cx, cy [3]float64) {
	t.Helper()
	const side = 224
	cam, err := render.OpenTaskCamera("soft", render.TaskCamera, "standard", side, side,
		render.FilmedOf(env.Name(), env.Model(), env.State(), env.Meta().Views), render.DefaultCameraOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer cam.Close()
	img := image.NewRGBA(image.Rect(0, 0, side, side))
	seg := make([]int32, side*side)
	if err := cam.RenderBuffers(env.Model(), env.State(), render.Buffers{RGB: img, Seg: seg}); err != nil {
		t.Fatal(err)
	}
	meta := env.Meta()
	c := meta.Colors
	spec := vlmprio.ScenePixelSpec(c.Goal, c.Gripper, c.Object)
	keys := [3]vlmprio.ColorKey{spec.Gripper, spec.Object, spec.Goal}
	if !keys[1].Enabled() {
		keys[1] = spec.Gripper
	}
	view := cam.Camera()
	pv := view.Proj().Mul4(view.View())
	var part [3]map[int32]bool
	var at [3]mgl64.Vec3 // projected part position (px)
	for k, names := range [3][]string{meta.Parts.Gripper, meta.Parts.Object, meta.Parts.Goal} {
		part[k] = map[int32]bool{}
		for _, name := range names {
			b, ok := env.Model().Body(name)
			if !ok {
				// a static shape (sweep-into's hole): the world does not
				// move on either engine
				n[k], hits[k] = -1, -1
				continue
			}
			part[k][int32(b)+1] = true
			p := env.State().Bodies[b].Pos
			c := pv.Mul4x1(mgl64.Vec4{p.X, p.Y, p.Z, 1})
			at[k] = at[k].Add(mgl64.Vec3{(c[0]/c[3] + 1) / 2 * side, (1 - c[1]/c[3]) / 2 * side, 1})
		}
	}
	for i, id := range seg {
		for k := range part {
			if !part[k][id] {
				continue
			}
			if n[k] < 0 {
				continue
			}
			n[k]++
			p := img.Pix[4*i : 4*i+3]
			if keyMatches(keys[k], float64(p[0]), float64(p[1]), float64(p[2])) {
				hits[k]++
				cx[k] += float64(i % side)
				cy[k] += float64(i / side)
			}
		}
	}
	for k := range n {
		if hits[k] > 0 && n[k] >= 0 {
			cx[k] = cx[k]/float64(hits[k]) - at[k][0]/at[k][2]
			cy[k] = cy[k]/float64(hits[k]) - at[k][1]/at[k][2]
		}
	}
	return n, hits, cx, cy
}

// A task on the articulated engine renders through the same camera and
// scorer path as on sim: for every task, in the scorer's 224×224 task
// view, after 30 expert steps from the same seed, the gripper, the object
// and the goal (parts that are bodies; sweep-into's hole is a static
// shape) show at least 9 pixels of the colour key the pixel scorer looks
// for on both engines, and each part's keyed pixels sit where the old
// engine's sit relative to the part's projected bodies (within 4 px, for
// occlusion and perspective). The engines' states differ — the MJCF hand
// trails its mocap target by up to 2.6 cm where sim's trails by 4 mm —
// but the renderer must draw both alike.
func TestArticulatedRendersLikeSim(t *testing.T) {
	t.Parallel()
	for _, name := range tasks.Names() {
		t.Run(name, func(t *testing.T) {
			var cx, cy [2][3]float64
			for i, engine := range tasks.Engines() {
				env, err := tasks.Make(name, tasks.Options{Engine: engine})
				if err != nil {
					t.Fatal(err)
				}
				obs, _ := env.Reset(7)
				pol, act := env.Expert(), make([]float64, tasks.ActDim)
				for range 30 {
					pol.Act(obs, act)
					if obs, _, _, _, _, err = env.Step(act); err != nil {
						t.Fatal(err)
					}
				}
				n, hits, x, y := partPixels(t, env)
				cx[i], cy[i] = x, y
				for k, what := range [3]string{"gripper", "object", "goal"} {
					if n[k] < 0 {
						continue // a static shape
					}
					t.Logf("%s on %s: %s %d px, %d in its colour key, at (%.1f, %.1f)", name, engine, what, n[k], hits[k], x[k], y[k])
					if hits[k] < 9 {
						t.Errorf("%s on %s: %s covers %d px, %d of them in its colour key; want ≥ 9", name, engine, what, n[k], hits[k])
					}
				}
			}
			for k, what := range [3]string{"gripper", "object", "goal"} {
				if cx[0][k] == 0 && cy[0][k] == 0 {
					continue // a static shape
				}
				d := math.Hypot(cx[0][k]-cx[1][k], cy[0][k]-cy[1][k])
				t.Logf("%s: %s keyed pixels %.1f px from sim's", name, what, d)
				if d > 4 {
					t.Errorf("%s: the %s's keyed pixels are %.1f px from where sim draws them relative to its bodies", name, what, d)
				}
			}
		})
	}
}
