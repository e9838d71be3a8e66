package convex

import (
	"encoding/json"
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
	for _, name := range []string{"plane", "pairs"} {
		t.Run(name, func(t *testing.T) {
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
			var c Collider
			pairs, matched, worstPos := 0, 0, 0.0
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
						what := shapes[g1].Kind.String() + "-" + shapes[g2].Kind.String()
						// Mesh vertices are float32 in MuJoCo; its GJK/EPA
						// stops at ccd_tolerance 1e-6.
						near(t, what+" dist", o.Dist, mc.Dist, 2e-6)
						nearVec(t, what+" normal", o.Normal(), v3(mc.Frame), 2e-5)
						// Along the normal the point is unique; across it,
						// where the touching set is a segment or a patch
						// (a cylinder lying on a box), any point of it is a
						// solution: allow 0.1 mm there.
						dp := o.Pos.Sub(v3(mc.Pos))
						nrm := v3(mc.Frame)
						near(t, what+" pos along normal", dp.Dot(nrm), 0, 2e-6)
						nearVec(t, what+" pos", o.Pos, v3(mc.Pos), 1e-4)
						if dp.Norm() > worstPos {
							worstPos = dp.Norm()
						}
						near(t, what+" includemargin", o.IncludeMargin, mc.IncludeMargin, 1e-12)
						matched++
					}
				}
			}
			t.Logf("%s: %d geom pairs agree with MuJoCo %s, %d contacts matched, largest position difference %.2g m", name, pairs, sc.Mujoco, matched, worstPos)
		})
	}
}

// TestMeshInertiaAgainstMuJoCo compares mass and principal moments of the
// meshes of testdata/mujoco/inertia.xml (dented cube as exact, convex and
// shell; a tetrahedron; a vertex-only rock) with MuJoCo 3.3.8's compiled
// bodies. MuJoCo stores the mesh moved to its centre of mass and principal
// axes, so the COM computed from its vertices must be the origin.
func TestMeshInertiaAgainstMuJoCo(t *testing.T) {
	sc := loadScene(t, "inertia")
	modes := []InertiaMode{InertiaExact, InertiaConvex, InertiaShell, InertiaExact, InertiaConvex}
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
