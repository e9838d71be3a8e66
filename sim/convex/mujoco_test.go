package convex

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// mjScene is what scripts/mujoco-contacts.mjs prints for a scene in
// testdata/mujoco: MuJoCo 3.3.8's compiled geoms, its contacts after
// mj_forward, and its body mass properties.
type mjScene struct {
	Mujoco string `json:"mujoco"`
	Geoms  []struct {
		Type   int       `json:"type"`
		Body   int       `json:"body"`
		Size   []float64 `json:"size"`
		Pos    []float64 `json:"pos"`
		Mat    []float64 `json:"mat"`
		Margin float64   `json:"margin"`
		Gap    float64   `json:"gap"`
		Vert   []float64 `json:"vert"`
		Face   []int32   `json:"face"`
	} `json:"geoms"`
	Contacts []struct {
		Geom1, Geom2  int
		Dist          float64
		Pos           []float64
		Frame         []float64
		IncludeMargin float64 `json:"includemargin"`
	} `json:"contacts"`
	Bodies []struct {
		Mass    float64   `json:"mass"`
		Inertia []float64 `json:"inertia"`
	} `json:"bodies"`
}

func loadScene(t *testing.T, name string) *mjScene {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "mujoco", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var s mjScene
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if s.Mujoco != "3.3.8" {
		t.Fatalf("%s.json is from MuJoCo %s; regenerate it with scripts/mujoco-contacts.sh (3.3.8)", name, s.Mujoco)
	}
	return &s
}

func v3(a []float64) Vec3 { return Vec3{a[0], a[1], a[2]} }

func meshVerts(flat []float64) []Vec3 {
	v := make([]Vec3, len(flat)/3)
	for i := range v {
		v[i] = v3(flat[3*i:])
	}
	return v
}

// TestContactsAgainstMuJoCo collides every geom pair of the scenes in
// testdata/mujoco as MuJoCo does (geom order by type, margin and gap the
// larger of the two) and compares contact count, dist, position and normal
// with MuJoCo 3.3.8's output for the same compiled geoms.
func TestContactsAgainstMuJoCo(t *testing.T) {
	// to rounding (the zero Collider), and stopped at MuJoCo 3.3.8's own
	// ccd_tolerance and ccd_iterations, as the articulated engine runs it
	modes := []struct {
		name string
		c    Collider
	}{{"rounding", Collider{}}, {"ccd_tolerance", Collider{Tolerance: 1e-6, MaxIterations: 35}}}
	for _, mode := range modes {
		for _, name := range []string{"plane", "pairs", "random", "resting", "capsulebox", "boxbox"} {
			t.Run(mode.name+"/"+name, func(t *testing.T) { testContactsAgainstMuJoCo(t, name, mode.c) })
		}
	}
}

func testContactsAgainstMuJoCo(t *testing.T, name string, c Collider) {
	sc := loadScene(t, name)
	shapes := make([]*Shape, len(sc.Geoms))
	poses := make([]Pose, len(sc.Geoms))
	for i, g := range sc.Geoms {
		s := &Shape{Kind: Kind(g.Type), Size: v3(g.Size)}
		if s.Kind == Mesh {
			h, err := BuildHull(meshVerts(g.Vert), HullOptions{})
			if err != nil {
				t.Fatal(err)
			}
			s.Hull = h
		}
		shapes[i] = s
		copy(poses[i].Rot[:], g.Mat)
		poses[i].Pos = v3(g.Pos)
	}
	pairs, matched, patches := 0, 0, 0
	// onSurface: w lies on the surface of s (a 1 nm sphere there
	// touches it).
	onSurface := func(w Vec3, s *Shape, p *Pose) bool {
		var c2 Collider
		tiny := &Shape{Kind: Sphere, Size: Vec3{1e-9}}
		con, err := c2.Collide(nil, tiny, &Pose{Pos: w, Rot: Identity}, s, p, 1e-5, 0)
		return err == nil && len(con) == 1 && math.Abs(con[0].Dist) < 1e-7
	}
	var worst [2][3]float64 // polytopes and round cores; curved: dist, normal, pos
	for i := range sc.Geoms {
		for j := i + 1; j < len(sc.Geoms); j++ {
			gi, gj := sc.Geoms[i], sc.Geoms[j]
			if gi.Body == gj.Body {
				continue
			}
			g1, g2 := i, j
			if gi.Type > gj.Type {
				g1, g2 = j, i
			}
			margin, gap := PairMarginGap(sc.Geoms[g1].Margin, sc.Geoms[g1].Gap, sc.Geoms[g2].Margin, sc.Geoms[g2].Gap)
			ours, err := c.Collide(nil, shapes[g1], &poses[g1], shapes[g2], &poses[g2], margin, gap)
			if err != nil {
				t.Fatal(err)
			}
			var theirs []int
			for k, mc := range sc.Contacts {
				if mc.Geom1 == g1 && mc.Geom2 == g2 {
					theirs = append(theirs, k)
				}
			}
			k1, k2 := shapes[g1].Kind, shapes[g2].Kind
			// Ellipsoids and cylinders go through GJK/EPA in both;
			// MuJoCo stops at ccd_tolerance = 1e-6 m, which moves
			// a curved normal by about sqrt(1e-6 m / radius).
			curved := k1 == Ellipsoid || k2 == Ellipsoid || k1 == Cylinder || k2 == Cylinder
			tolDist, tolNormal, tolPos := 2e-6, 2e-5, 1e-4
			if curved {
				tolDist, tolNormal, tolPos = 5e-6, 1e-2, 1e-3
			}
			if curved && c.Tolerance > 0 {
				// both stopped at 1e-6 m, each its own polytope:
				// each normal is off the exact one by up to ~0.0074
				// here (MuJoCo's, measured against ours to rounding)
				tolNormal = 2e-2
			}
			if len(ours) != len(theirs) {
				t.Errorf("geoms %d (%v) – %d (%v): %d contacts, MuJoCo %d", g1, shapes[g1].Kind, g2, shapes[g2].Kind, len(ours), len(theirs))
				continue
			}
			pairs++
			// Match each MuJoCo contact with our nearest one.
			for _, k := range theirs {
				mc := sc.Contacts[k]
				best, bi := math.Inf(1), -1
				for q := range ours {
					if d := ours[q].Pos.Sub(v3(mc.Pos)).Norm(); d < best {
						best, bi = d, q
					}
				}
				o := ours[bi]
				what := fmt.Sprintf("geoms %d-%d %v-%v", g1, g2, shapes[g1].Kind, shapes[g2].Kind)
				// Mesh vertices are float32 in MuJoCo; its GJK/EPA
				// stops at ccd_tolerance 1e-6. Along the normal the
				// point is unique; across it, where the touching set
				// is a segment or a patch (a cylinder lying on a
				// box), any point of it is a solution: 0.1 mm there.
				dp := o.Pos.Sub(v3(mc.Pos))
				nrm := v3(mc.Frame)
				dn := o.Normal().Sub(nrm).Norm()
				patch := false
				if dp.Norm() > tolPos && onSurface(o.Pos.AddScaled(o.Normal(), -o.Dist/2), shapes[g1], &poses[g1]) &&
					onSurface(o.Pos.AddScaled(o.Normal(), o.Dist/2), shapes[g2], &poses[g2]) {
					// Face on face: the touching set is a patch, and
					// MuJoCo's point and ours are both on it.
					patch = true
					patches++
				}
				if math.Abs(o.Dist-mc.Dist) > tolDist || dn > tolNormal || math.Abs(dp.Dot(nrm)) > tolDist || (dp.Norm() > tolPos && !patch) ||
					math.Abs(o.IncludeMargin-mc.IncludeMargin) > 1e-12 {
					t.Errorf("%s: dist %.9f, MuJoCo %.9f; normal %v off by %.2g; pos %v off by %.2g",
						what, o.Dist, mc.Dist, o.Normal(), dn, o.Pos, dp.Norm())
				}
				w := &worst[0]
				if curved {
					w = &worst[1]
				}
				w[0] = math.Max(w[0], math.Abs(o.Dist-mc.Dist))
				w[1] = math.Max(w[1], dn)
				if !patch {
					w[2] = math.Max(w[2], dp.Norm())
				}
				// Tangents follow mju_makeFrame (and plane–capsule's
				// hint); they set the friction directions and move
				// with the normal.
				{
					for k := 3; k < 9; k++ {
						if math.Abs(o.Frame[k]-mc.Frame[k]) > tolNormal {
							t.Errorf("%s: frame %v, MuJoCo %v", what, o.Frame, mc.Frame)
							break
						}
					}
				}
				matched++
			}
		}
	}
	t.Logf("%s: %d geom pairs with MuJoCo %s's contact count, %d contacts compared (%d on a face-face patch, elsewhere than MuJoCo's point); largest difference: dist %.2g m, normal %.2g, position %.2g m (curved pairs: %.2g m, %.2g, %.2g m)",
		name, pairs, sc.Mujoco, matched, patches, worst[0][0], worst[0][1], worst[0][2], worst[1][0], worst[1][1], worst[1][2])
}

// TestMeshInertiaAgainstMuJoCo compares mass and principal moments of the
// meshes of testdata/mujoco/inertia.xml (dented cube as exact, convex and
// shell; a tetrahedron; a vertex-only rock; a deep dent as legacy and as
// the default) with MuJoCo 3.3.8's compiled
// bodies. MuJoCo stores the mesh moved to its centre of mass and principal
// axes, so the COM computed from its vertices must be the origin.
func TestMeshInertiaAgainstMuJoCo(t *testing.T) {
	sc := loadScene(t, "inertia")
	// The rock has no faces: MuJoCo makes them from its hull, and the
	// default (legacy) equals exact on a convex mesh. The last two bodies
	// are a 9 cm deep dent, as legacy and with no attribute: MuJoCo's
	// default is legacy.
	modes := []InertiaMode{InertiaExact, InertiaConvex, InertiaShell, InertiaExact, InertiaConvex, InertiaLegacy, InertiaLegacy}
	for i, mode := range modes {
		g := sc.Geoms[i]
		b := sc.Bodies[g.Body]
		faces := make([][3]int32, len(g.Face)/3)
		for k := range faces {
			faces[k] = [3]int32{g.Face[3*k], g.Face[3*k+1], g.Face[3*k+2]}
		}
		mp, err := MeshInertia(meshVerts(g.Vert), faces, 1000, mode)
		if err != nil {
			t.Fatalf("mesh %d: %v", i, err)
		}
		near(t, "mass", mp.Mass, b.Mass, 1e-6*b.Mass)
		nearVec(t, "com", mp.COM, Vec3{}, 1e-7)
		pm, _ := PrincipalInertia(mp.Inertia)
		want := append([]float64{}, b.Inertia...)
		sort.Float64s(want)
		for k := 0; k < 3; k++ {
			near(t, mode.String()+" principal moment", pm[k], want[k], 1e-5*want[k])
		}
	}
}
