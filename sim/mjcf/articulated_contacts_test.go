package mjcf

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vlmrb/vlmrb/sim/articulated"
)

// mjContacts is what scripts/mujoco-contacts.mjs prints for a scene:
// MuJoCo 3.3.8's compiled geoms and its contacts after mj_forward.
type mjContacts struct {
	Mujoco string `json:"mujoco"`
	Geoms  []struct {
		Type int       `json:"type"`
		Body int       `json:"body"`
		Pos  []float64 `json:"pos"`
		Mat  []float64 `json:"mat"`
	} `json:"geoms"`
	Contacts []struct {
		Geom1, Geom2  int
		Dist          float64
		Pos           []float64
		Frame         []float64
		IncludeMargin float64   `json:"includemargin"`
		Dim           int       `json:"dim"`
		Friction      []float64 `json:"friction"`
		SolRef        []float64 `json:"solref"`
		SolImp        []float64 `json:"solimp"`
	} `json:"contacts"`
}

// TestArticulatedContactsAgainstMuJoCo loads scenes written for it
// (testdata/contacts) for the articulated engine and compares Forward's
// contacts with MuJoCo 3.3.8's after mj_forward on the same files: which
// geom pairs touch (the weld, parent and exclude filters, bitmasks,
// filterparent, margins), how many contacts each pair has, and each
// contact's dist, position, normal, includemargin and mixed parameters
// (condim, friction, solref, solimp).
func TestArticulatedContactsAgainstMuJoCo(t *testing.T) {
	for _, name := range []string{"filters", "filterparent", "gripper_static", "pairs"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("testdata", "contacts", name+".xml")
			b, err := os.ReadFile(strings.TrimSuffix(path, ".xml") + ".json")
			if err != nil {
				t.Fatal(err)
			}
			var mj mjContacts
			if err := json.Unmarshal(b, &mj); err != nil {
				t.Fatal(err)
			}
			if mj.Mujoco != "3.3.8" {
				t.Fatalf("%s.json is from MuJoCo %s; regenerate it with scripts/mujoco-contacts.sh", name, mj.Mujoco)
			}
			a, err := Load(path, Options{Lenient: true})
			if err != nil {
				t.Fatal(err)
			}
			m := a.Model
			if len(m.Geoms) != len(mj.Geoms) {
				t.Fatalf("%d collision geoms, MuJoCo has %d", len(m.Geoms), len(mj.Geoms))
			}
			d := articulated.NewData(m)
			articulated.Forward(m, d)
			for g := range m.Geoms {
				if int(m.Geoms[g].Type) != mj.Geoms[g].Type || m.Geoms[g].Body != mj.Geoms[g].Body {
					t.Errorf("geom %d: type %d on body %d, MuJoCo %d on %d", g, m.Geoms[g].Type, m.Geoms[g].Body, mj.Geoms[g].Type, mj.Geoms[g].Body)
				}
				// a mesh's frame is at its centroid, computed from float32
				// vertices in MuJoCo
				if e := conDist3(d.GeomXpos[g], mj.Geoms[g].Pos); e > 1e-8 {
					t.Errorf("geom %d: position %v, MuJoCo %v", g, d.GeomXpos[g], mj.Geoms[g].Pos)
				}
			}
			type pair struct{ g1, g2 int }
			ours, theirs := map[pair][]int{}, map[pair][]int{}
			for i, c := range d.Contacts {
				ours[pair{c.Geom1, c.Geom2}] = append(ours[pair{c.Geom1, c.Geom2}], i)
			}
			for i, c := range mj.Contacts {
				theirs[pair{c.Geom1, c.Geom2}] = append(theirs[pair{c.Geom1, c.Geom2}], i)
			}
			for p, ks := range theirs {
				if len(ours[p]) != len(ks) {
					t.Errorf("geoms %d–%d: %d contacts, MuJoCo %d", p.g1, p.g2, len(ours[p]), len(ks))
				}
			}
			for p, ks := range ours {
				if len(theirs[p]) == 0 {
					t.Errorf("geoms %d–%d: %d contacts, MuJoCo none", p.g1, p.g2, len(ks))
				}
			}
			for p, ks := range theirs {
				if len(ours[p]) != len(ks) {
					continue
				}
				for _, k := range ks {
					mc := mj.Contacts[k]
					best, bi := math.Inf(1), -1
					for _, i := range ours[p] {
						if e := conDist3(d.Contacts[i].Pos, mc.Pos); e < best {
							best, bi = e, i
						}
					}
					c := d.Contacts[bi]
					curved := m.Geoms[p.g1].Type == 4 || m.Geoms[p.g2].Type == 4 || m.Geoms[p.g1].Type == 5 && m.Geoms[p.g2].Type != 6 || m.Geoms[p.g2].Type == 5 && m.Geoms[p.g1].Type != 0
					tolDist, tolPos, tolNormal := 2e-6, 1e-4, 2e-5
					if curved {
						// GJK/EPA on curved shapes: MuJoCo stops at its
						// ccd_tolerance, 1e-6 m
						tolDist, tolPos, tolNormal = 5e-6, 1e-3, 1e-2
					}
					if math.Abs(c.Dist-mc.Dist) > tolDist || best > tolPos || conDist3([3]float64(c.Frame[:3]), mc.Frame[:3]) > tolNormal {
						t.Errorf("geoms %d–%d: dist %.7f pos %.5f normal %.5f, MuJoCo %.7f %.5f %.5f", p.g1, p.g2,
							c.Dist, c.Pos, c.Frame[:3], mc.Dist, mc.Pos, mc.Frame[:3])
					}
					if c.Condim != mc.Dim || math.Abs(c.IncludeMargin-mc.IncludeMargin) > 1e-12 ||
						conMaxDiff(c.Friction[:], mc.Friction) > 1e-12 || conMaxDiff(c.SolRef[:], mc.SolRef) > 1e-12 || conMaxDiff(c.SolImp[:], mc.SolImp) > 1e-12 {
						t.Errorf("geoms %d–%d: condim %d includemargin %g friction %v solref %v solimp %v, MuJoCo %d %g %v %v %v", p.g1, p.g2,
							c.Condim, c.IncludeMargin, c.Friction, c.SolRef, c.SolImp, mc.Dim, mc.IncludeMargin, mc.Friction, mc.SolRef, mc.SolImp)
					}
				}
			}
			if len(d.Contacts) != len(mj.Contacts) {
				t.Errorf("%d contacts, MuJoCo %d", len(d.Contacts), len(mj.Contacts))
			}
		})
	}
}

func conDist3(a [3]float64, b []float64) float64 {
	return math.Sqrt((a[0]-b[0])*(a[0]-b[0]) + (a[1]-b[1])*(a[1]-b[1]) + (a[2]-b[2])*(a[2]-b[2]))
}

func conMaxDiff(a, b []float64) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	e := 0.0
	for i := range a {
		e = math.Max(e, math.Abs(a[i]-b[i]))
	}
	return e
}
