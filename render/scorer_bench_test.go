package render_test

import (
	"fmt"
	"image"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/internal/cputime"
	"github.com/vlmrb/vlmrb/render"
	"github.com/vlmrb/vlmrb/sim/articulated"
	"github.com/vlmrb/vlmrb/tasks"
)

// pushStates records 100 states of an expert push episode (every 2nd
// control step), so benchmarks redraw a moving scene.
func pushStates(b *testing.B) (*tasks.Env, []*articulated.Data) {
	b.Helper()
	env, err := tasks.Make("push", tasks.Options{})
	if err != nil {
		b.Fatal(err)
	}
	obs, _ := env.Reset(control.EpisodeSeed(1, 0, 0))
	pol := env.Expert()
	act := make([]float64, tasks.ActDim)
	var states []*articulated.Data
	for i := 0; i < 200; i++ {
		pol.Act(obs, act)
		if obs, _, _, _, _, err = env.Step(act); err != nil {
			b.Fatal(err)
		}
		if i%2 == 0 {
			d := env.Data() // what a renderer reads: the bodies' frames and the time
			states = append(states, &articulated.Data{Xpos: slices.Clone(d.Xpos), Xquat: slices.Clone(d.Xquat), Time: d.Time})
		}
	}
	return env, states
}

// BenchmarkScorerFrame measures what a scorer frame costs end to end:
// render.Scene from the simulator state (UpdateFromModel, scenery included
// when on), drawing and readback into an *image.RGBA, from the task's
// scorer view, for push's expert episode — the counterpart of MuJoCo's
// mjv_updateScene + mjr_render + mjr_readPixels in
// research/anchors/mujoco_bench. Options, from bare to the scorer
// default: bare (no scenery), arm (scenery: arm, legs, floor, backdrop),
// arm_shadow, arm_shadow_msaa4.
//
//	go test ./render -run '^$' -bench ScorerFrame -benchtime 2s
func BenchmarkScorerFrame(b *testing.B) {
	env, states := pushStates(b)
	v := env.Meta().Views[0]
	for _, be := range []string{"egl", "soft"} {
		for _, mode := range []struct {
			name    string
			scenery bool
			opts    render.Options
		}{
			{"bare", false, render.Options{}},
			{"arm", true, render.Options{}},
			{"arm_shadow", true, render.Options{Shadows: true}},
			{"arm_shadow_msaa4", true, render.Options{Shadows: true, MSAA: 4}},
		} {
			for _, size := range []int{84, 128, 224} {
				b.Run(fmt.Sprintf("%s/%s/%d", be, mode.name, size), func(b *testing.B) {
					r, err := render.New(be, mode.opts)
					if err != nil {
						b.Skipf("%s: %v", be, err)
					}
					defer func() { _ = r.Close() }()
					cam := render.LookAt(mgl64.Vec3{v.Eye.X, v.Eye.Y, v.Eye.Z}, mgl64.Vec3{v.Target.X, v.Target.Y, v.Target.Z},
						mgl64.Vec3{0, 0, 1}, v.FovY, size, size)
					st := &render.Style{Scenery: mode.scenery}
					var sc render.Scene
					img := image.NewRGBA(image.Rect(0, 0, size, size))
					for i := 0; i < 10; i++ { // warm up (shader JIT, mesh cache)
						sc.UpdateFromModel(env.Model(), states[i], st)
						_ = r.Render(&sc, cam, img)
					}
					b.ResetTimer()
					cpu0 := cputime.Process()
					for i := 0; i < b.N; i++ {
						sc.UpdateFromModel(env.Model(), states[i%len(states)], st)
						if err := r.Render(&sc, cam, img); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "frames/s")
					if c := cputime.Process() - cpu0; c > 0 {
						b.ReportMetric(c.Seconds()/float64(b.N)*1e6, "cpu-µs/frame")
					}
					b.ReportMetric(float64(len(sc.Objects)), "objects")
				})
			}
		}
	}
}
