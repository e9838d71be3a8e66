package render_test

import (
	"image"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/vlmrb/vlmrb/render"
	"github.com/vlmrb/vlmrb/sim"
	"github.com/vlmrb/vlmrb/sim/articulated"
	"github.com/vlmrb/vlmrb/sim/mjcf"
)

// TestModelSceneFK: the scene of the articulated engine puts every drawn
// geom where forward kinematics of the MJCF body tree puts it at the
// same joint coordinates. The reference is mjcf.Model.Kinematics
// (body frames composed from the model's static pos/quat and the joint
// rotations, apart from the engine's Xpos/Xquat) and each geom's pose in
// its body, at random configurations of arm6.xml after stepping.
func TestModelSceneFK(t *testing.T) {
	file := filepath.Join("..", "sim", "mjcf", "testdata", "arm6.xml")
	a, err := mjcf.Load(file, mjcf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := a.Model
	d := articulated.NewData(m)
	sc := render.NewModelScene(a)
	rng := rand.New(rand.NewPCG(1, 2))
	q := make([]float64, len(m.Joints))
	pos, rot := make([]sim.Vec3, len(m.Bodies)), make([]sim.Quat, len(m.Bodies))
	for trial := range 5 {
		articulated.Reset(m, d)
		for j := range m.Joints {
			if m.Joints[j].Type != articulated.Hinge && m.Joints[j].Type != articulated.Slide {
				t.Fatalf("joint %d is %v: the test sets hinge and slide joints only", j, m.Joints[j].Type)
			}
			d.Qpos[m.QposAdr(j)] = 2 * (rng.Float64() - 0.5)
		}
		for range 10 * trial { // and the state the engine steps to
			articulated.Step(m, d)
		}
		articulated.Forward(m, d)
		for j := range m.Joints {
			q[j] = d.Qpos[m.QposAdr(j)]
		}
		if err := a.Kinematics(q, pos, rot); err != nil {
			t.Fatal(err)
		}
		s := sc.Update(d)
		if err := s.Validate(); err != nil {
			t.Fatal(err)
		}
		k := 0
		for i := range a.Geoms {
			g := &a.Geoms[i]
			if g.Group >= 3 || g.RGBA[3] == 0 {
				continue
			}
			want := pos[g.Body].Add(rot[g.Body].Rotate(g.Pos))
			wantRot := rot[g.Body].Mul(g.Rot)
			if k >= len(s.Objects) {
				t.Fatalf("trial %d: the scene has %d objects, geom %q is missing", trial, len(s.Objects), g.Name)
			}
			o := s.Objects[k]
			k++
			got := sim.V3(o.Pos[0], o.Pos[1], o.Pos[2])
			if e := got.Sub(want).Norm(); e > 1e-9 {
				t.Errorf("trial %d: geom %q drawn at %v, forward kinematics puts it at %v (%.3g m off)", trial, g.Name, got, want, e)
			}
			// the same orientation: q and −q rotate alike
			dot := o.Rot.W*wantRot.W + o.Rot.V[0]*wantRot.X + o.Rot.V[1]*wantRot.Y + o.Rot.V[2]*wantRot.Z
			if 1-abs(dot) > 1e-9 {
				t.Errorf("trial %d: geom %q drawn rotated by %v, forward kinematics gives %v", trial, g.Name, o.Rot, wantRot)
			}
		}
		if k != len(s.Objects) {
			t.Errorf("trial %d: %d objects drawn, %d visible geoms", trial, len(s.Objects), k)
		}
	}
	// and it draws: the soft renderer covers pixels from the model's camera
	r, err := render.New("soft", render.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	img := image.NewRGBA(image.Rect(0, 0, 64, 64))
	seg := make([]int32, 64*64)
	if err := r.RenderBuffers(sc.Update(d), render.ModelCamera(a, d, 0, 64, 64), render.Buffers{RGB: img, Seg: seg}); err != nil {
		t.Fatal(err)
	}
	ids := map[int32]bool{}
	for _, id := range seg {
		ids[id] = true
	}
	if len(ids) < 4 {
		t.Errorf("the arm from camera %q covers %d segmentation ids, want the floor, background and several links", a.Cameras[0].Name, len(ids))
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
