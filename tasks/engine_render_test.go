package tasks_test

import (
	"bufio"
	"image"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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
		render.FilmedOf(env.Name(), env.Model(), env.Data(), env.Meta().Views), render.DefaultCameraOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer cam.Close()
	img := image.NewRGBA(image.Rect(0, 0, side, side))
	seg := make([]int32, side*side)
	if err := cam.RenderBuffers(env.Model(), env.Data(), render.Buffers{RGB: img, Seg: seg}); err != nil {
		t.Fatal(err)
	}
	if dir := os.Getenv("VLMRB_PNG_DIR"); dir != "" {
		if err := render.WritePNG(filepath.Join(dir, env.Name()+".png"), img); err != nil {
			t.Fatal(err)
		}
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
	body := map[string]int{}
	for i, b := range env.Model().Model.Bodies {
		body[b.Name] = i
	}
	for k, names := range [3][]string{meta.Parts.Gripper, meta.Parts.Object, meta.Parts.Goal} {
		part[k] = map[int32]bool{}
		for _, name := range names {
			b, ok := body[name]
			if !ok || b == 0 {
				// a static geom (sweep-into's hole): the world does not move
				n[k], hits[k] = -1, -1
				continue
			}
			part[k][int32(b)+1] = true
			x := env.Data().Xpos[b]
			p := mgl64.Vec3{x[0], x[1], x[2]}
			c := pv.Mul4x1(mgl64.Vec4{p[0], p[1], p[2], 1})
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

// oldRenders are the old engine's keyed-pixel offsets, per task and part
// (gripper, object, goal), recorded by this test's predecessor
// (TestArticulatedRendersLikeSim at 9b9010e, the last commit with both
// engines: `go test -run TestArticulatedRendersLikeSim -v ./tasks/`, its
// "on sim" lines) — the renders the tabletop's pictures were tuned on.
func oldRenders(t *testing.T) map[string][3][2]float64 {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "sim_render_offsets.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][3][2]float64{}
	parts := map[string]int{"gripper": 0, "object": 1, "goal": 2}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) != 4 || strings.HasPrefix(fs[0], "#") {
			continue
		}
		x, err1 := strconv.ParseFloat(fs[2], 64)
		y, err2 := strconv.ParseFloat(fs[3], 64)
		k, ok := parts[fs[1]]
		if err1 != nil || err2 != nil || !ok {
			t.Fatalf("bad line %q", sc.Text())
		}
		v := out[fs[0]]
		v[k] = [2]float64{x, y}
		out[fs[0]] = v
	}
	return out
}

// Every task renders through the scorer's camera from its MJCF scene as
// the old engine's Go scene rendered: in the scorer's 224×224 task view,
// after 30 expert steps from seed 7, the gripper, the object and the goal
// (parts that are bodies; sweep-into's hole is a static geom) show at
// least 9 pixels of the colour key the pixel scorer looks for, and each
// part's keyed pixels sit where the old engine's sat relative to the
// part's projected bodies (within 4 px, for occlusion and perspective: the
// engines' states differ, the MJCF hand trailing its mocap target by up to
// 2.6 cm where the old one led it by 3 mm). VLMRB_PNG_DIR=DIR saves the
// frames as DIR/TASK.png.
func TestRendersLikeOldEngine(t *testing.T) {
	t.Parallel()
	old := oldRenders(t)
	for _, name := range tasks.Names() {
		t.Run(name, func(t *testing.T) {
			env, err := tasks.Make(name, tasks.Options{})
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
			ref, ok := old[name]
			if !ok {
				t.Fatalf("no old render of %s in testdata/sim_render_offsets.txt", name)
			}
			for k, what := range [3]string{"gripper", "object", "goal"} {
				if n[k] < 0 {
					continue // a static geom
				}
				d := math.Hypot(x[k]-ref[k][0], y[k]-ref[k][1])
				t.Logf("%s: %s %d px, %d in its colour key, at (%.1f, %.1f), %.1f px from the old engine's", name, what, n[k], hits[k], x[k], y[k], d)
				if hits[k] < 9 {
					t.Errorf("%s: %s covers %d px, %d of them in its colour key; want ≥ 9", name, what, n[k], hits[k])
				}
				if d > 4 {
					t.Errorf("%s: the %s's keyed pixels are %.1f px from where the old engine drew them relative to its bodies", name, what, d)
				}
			}
		})
	}
}
