package convex

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

// Hull is a closed convex polyhedron: its vertices, its triangular faces
// (counter-clockwise seen from outside) and their outward unit normals.
// Coplanar faces stay split into triangles, as in MuJoCo's mesh hulls.
type Hull struct {
	Verts   []Vec3
	Faces   [][3]int32
	Normals []Vec3
	// Adj lists, for each vertex, its neighbours along hull edges (the
	// graph MuJoCo keeps in mesh_graph for hill climbing and plane contacts).
	Adj [][]int32
	// RBound is the largest vertex distance from the local origin (m),
	// MuJoCo's geom_rbound for a mesh geom. MuJoCo's geom frame for a mesh
	// is the mesh moved to its centre of mass and principal axes (see
	// MeshInertia and PrincipalInertia): build the hull in that frame, or
	// plane–mesh contacts (which skip points within 0.3·RBound of the
	// first) can differ from MuJoCo's.
	RBound float64
}

// HullOptions tunes BuildHull. The zero value uses the defaults.
type HullOptions struct {
	// Tol is the distance (m) under which a point counts as on a plane.
	// Zero means 1e-9 times the diagonal of the points' bounding box.
	Tol float64
}

// ErrDegenerate is wrapped by BuildHull errors for inputs with no volume.
var ErrDegenerate = errors.New("convex: degenerate point set")

type qhFace struct {
	v       [3]int32
	nb      [3]int32 // face across edge v[i]→v[(i+1)%3]
	n       Vec3
	off     float64 // plane: n·x = off
	outside []int32
	alive   bool
	visit   int32
}

// BuildHull returns the convex hull of pts by Quickhull. Points within the
// tolerance of a face plane are not made vertices, so duplicate, coplanar
// and interior points are dropped. It fails with an error wrapping
// ErrDegenerate when the points have no volume (fewer than 4 points, or all
// within the tolerance of one plane), and with a plain error for NaN or Inf.
func BuildHull(pts []Vec3, opt HullOptions) (*Hull, error) {
	if len(pts) < 4 {
		return nil, fmt.Errorf("%w: %d points; a hull needs at least 4 points not in one plane", ErrDegenerate, len(pts))
	}
	lo, hi := pts[0], pts[0]
	for i, p := range pts {
		if !finite(p) {
			return nil, fmt.Errorf("convex: point %d is %v; every coordinate must be finite", i, p)
		}
		for k := 0; k < 3; k++ {
			lo[k] = math.Min(lo[k], p[k])
			hi[k] = math.Max(hi[k], p[k])
		}
	}
	diag := hi.Sub(lo).Norm()
	tol := opt.Tol
	if tol < 0 || math.IsNaN(tol) {
		return nil, fmt.Errorf("convex: HullOptions.Tol is %v; use 0 for the default or a positive distance in metres", tol)
	}
	if tol == 0 {
		tol = 1e-9 * diag
	}
	if diag <= tol {
		return nil, fmt.Errorf("%w: all %d points lie within %.3g m of each other", ErrDegenerate, len(pts), tol)
	}
	q := &quickhull{pts: pts, tol: tol}
	if err := q.initial(); err != nil {
		return nil, err
	}
	q.run()
	if q.broken {
		return nil, fmt.Errorf("%w: Quickhull lost track of the surface at tolerance %.3g m; retry with a larger HullOptions.Tol", ErrDegenerate, tol)
	}
	return q.result(), nil
}

type quickhull struct {
	pts    []Vec3
	tol    float64
	faces  []qhFace
	stamp  int32
	broken bool // a face lost a neighbour: numerical failure
}

func (q *quickhull) initial() error {
	pts := q.pts
	// Extreme points along the axes; the farthest pair among them.
	var ext [6]int
	for i, p := range pts {
		for k := 0; k < 3; k++ {
			if p[k] < pts[ext[2*k]][k] {
				ext[2*k] = i
			}
			if p[k] > pts[ext[2*k+1]][k] {
				ext[2*k+1] = i
			}
		}
	}
	i0, i1, best := 0, 0, -1.0
	for a := 0; a < 6; a++ {
		for b := a + 1; b < 6; b++ {
			if d := pts[ext[a]].Sub(pts[ext[b]]).Norm(); d > best {
				best, i0, i1 = d, ext[a], ext[b]
			}
		}
	}
	// Farthest from the line i0–i1.
	dir := pts[i1].Sub(pts[i0]).Unit()
	i2, best := -1, q.tol
	for i, p := range pts {
		r := p.Sub(pts[i0])
		if d := r.Sub(dir.Scale(r.Dot(dir))).Norm(); d > best {
			best, i2 = d, i
		}
	}
	if i2 < 0 {
		return fmt.Errorf("%w: all %d points lie on one line (within %.3g m)", ErrDegenerate, len(pts), q.tol)
	}
	n := pts[i1].Sub(pts[i0]).Cross(pts[i2].Sub(pts[i0])).Unit()
	i3, best := -1, q.tol
	for i, p := range pts {
		if d := math.Abs(p.Sub(pts[i0]).Dot(n)); d > best {
			best, i3 = d, i
		}
	}
	if i3 < 0 {
		return fmt.Errorf("%w: all %d points lie in one plane (within %.3g m); a hull needs volume", ErrDegenerate, len(pts), q.tol)
	}
	// Orient the tetrahedron so that faces point away from the fourth vertex.
	v := [4]int32{int32(i0), int32(i1), int32(i2), int32(i3)}
	if pts[i3].Sub(pts[i0]).Dot(n) > 0 {
		v[1], v[2] = v[2], v[1]
	}
	// Faces: (0,1,2), (0,3,1), (1,3,2), (2,3,0) all counter-clockwise outward.
	tri := [4][3]int32{{v[0], v[1], v[2]}, {v[0], v[3], v[1]}, {v[1], v[3], v[2]}, {v[2], v[3], v[0]}}
	for _, t := range tri {
		q.addFace(t)
	}
	// Neighbours by matching reversed edges.
	for f := 0; f < 4; f++ {
		for e := 0; e < 3; e++ {
			a, b := q.faces[f].v[e], q.faces[f].v[(e+1)%3]
			for g := 0; g < 4; g++ {
				for k := 0; k < 3; k++ {
					if q.faces[g].v[k] == b && q.faces[g].v[(k+1)%3] == a {
						q.faces[f].nb[e] = int32(g)
					}
				}
			}
		}
	}
	all := make([]int32, 0, len(pts))
	for i := range pts {
		if i != i0 && i != i1 && i != i2 && i != i3 {
			all = append(all, int32(i))
		}
	}
	q.assign(all, []int32{0, 1, 2, 3})
	return nil
}

func (q *quickhull) addFace(t [3]int32) int32 {
	a, b, c := q.pts[t[0]], q.pts[t[1]], q.pts[t[2]]
	n := b.Sub(a).Cross(c.Sub(a)).Unit()
	q.faces = append(q.faces, qhFace{v: t, n: n, off: n.Dot(a), alive: true, nb: [3]int32{-1, -1, -1}})
	return int32(len(q.faces) - 1)
}

func (q *quickhull) dist(f int32, p int32) float64 {
	return q.faces[f].n.Dot(q.pts[p]) - q.faces[f].off
}

// assign gives each point to the face it is farthest outside of, if any.
func (q *quickhull) assign(points, faces []int32) {
	for _, p := range points {
		bf, bd := int32(-1), q.tol
		for _, f := range faces {
			if d := q.dist(f, p); d > bd {
				bd, bf = d, f
			}
		}
		if bf >= 0 {
			q.faces[bf].outside = append(q.faces[bf].outside, p)
		}
	}
}

type qhEdge struct {
	a, b  int32 // horizon edge a→b, as in the visible face
	outer int32 // the hidden face across it
}

func (q *quickhull) run() {
	var visible []int32
	var horizon []qhEdge
	var orphans []int32
	for iter := 0; ; iter++ {
		// A face with outside points (lowest index keeps it deterministic).
		cur := int32(-1)
		for f := range q.faces {
			if q.faces[f].alive && len(q.faces[f].outside) > 0 {
				cur = int32(f)
				break
			}
		}
		if cur < 0 || q.broken {
			return
		}
		// Its farthest point is the next hull vertex.
		eye, bd := int32(-1), -1.0
		for _, p := range q.faces[cur].outside {
			if d := q.dist(cur, p); d > bd {
				bd, eye = d, p
			}
		}
		// Visible faces, reached through visible neighbours; horizon in order.
		q.stamp++
		visible = visible[:0]
		horizon = horizon[:0]
		q.faces[cur].visit = q.stamp
		visible = append(visible, cur)
		q.horizonDFS(cur, -1, eye, &visible, &horizon)
		// New faces fanning from the eye to each horizon edge.
		orphans = orphans[:0]
		for _, f := range visible {
			q.faces[f].alive = false
			for _, p := range q.faces[f].outside {
				if p != eye {
					orphans = append(orphans, p)
				}
			}
			q.faces[f].outside = nil
		}
		first := int32(len(q.faces))
		for _, h := range horizon {
			nf := q.addFace([3]int32{h.a, h.b, eye})
			q.faces[nf].nb[0] = h.outer
			of := &q.faces[h.outer]
			for k := 0; k < 3; k++ {
				if of.v[k] == h.b && of.v[(k+1)%3] == h.a {
					of.nb[k] = nf
				}
			}
		}
		nh := int32(len(horizon))
		for i := int32(0); i < nh; i++ {
			// The horizon is a closed loop: face i's edge b→eye borders the
			// face whose horizon edge starts at b, and that face's eye→b edge
			// borders face i.
			for j := int32(0); j < nh; j++ {
				if horizon[j].a == horizon[i].b {
					q.faces[first+i].nb[1] = first + j
					q.faces[first+j].nb[2] = first + i
					break
				}
			}
		}
		newFaces := make([]int32, nh)
		for i := range newFaces {
			newFaces[i] = first + int32(i)
		}
		q.assign(orphans, newFaces)
	}
}

// horizonDFS walks the visible region from face f (entered from face from)
// and appends the horizon edges in counter-clockwise order around the eye.
func (q *quickhull) horizonDFS(f, from, eye int32, visible *[]int32, horizon *[]qhEdge) {
	// Start at the edge after the one we came through, so edges come in order.
	start := 0
	if from >= 0 {
		for k := 0; k < 3; k++ {
			if q.faces[f].nb[k] == from {
				start = k + 1
			}
		}
	}
	for j := 0; j < 3; j++ {
		k := (start + j) % 3
		if from >= 0 && j == 2 {
			break // the edge we came through
		}
		nb := q.faces[f].nb[k]
		if nb < 0 {
			q.broken = true
			continue
		}
		if q.faces[nb].visit == q.stamp {
			continue
		}
		if q.faces[nb].alive && q.dist(nb, eye) > q.tol {
			q.faces[nb].visit = q.stamp
			*visible = append(*visible, nb)
			q.horizonDFS(nb, f, eye, visible, horizon)
			continue
		}
		*horizon = append(*horizon, qhEdge{a: q.faces[f].v[k], b: q.faces[f].v[(k+1)%3], outer: nb})
	}
}

func (q *quickhull) result() *Hull {
	remap := make(map[int32]int32)
	h := &Hull{}
	for _, f := range q.faces {
		if !f.alive {
			continue
		}
		var t [3]int32
		for k, v := range f.v {
			id, ok := remap[v]
			if !ok {
				id = int32(len(h.Verts))
				remap[v] = id
				h.Verts = append(h.Verts, q.pts[v])
			}
			t[k] = id
		}
		h.Faces = append(h.Faces, t)
		h.Normals = append(h.Normals, f.n)
	}
	h.Adj = make([][]int32, len(h.Verts))
	for _, t := range h.Faces {
		for k := 0; k < 3; k++ {
			a, b := t[k], t[(k+1)%3]
			h.Adj[a] = append(h.Adj[a], b) // each edge appears once per direction
		}
	}
	for i := range h.Adj {
		sort.Slice(h.Adj[i], func(x, y int) bool { return h.Adj[i][x] < h.Adj[i][y] })
		h.RBound = math.Max(h.RBound, h.Verts[i].Norm())
	}
	return h
}

// Volume returns the enclosed volume (m³) by signed tetrahedra.
func (h *Hull) Volume() float64 {
	v := 0.0
	for _, t := range h.Faces {
		v += h.Verts[t[0]].Dot(h.Verts[t[1]].Cross(h.Verts[t[2]]))
	}
	return v / 6
}

// hillClimbMin is the vertex count from which Support walks the hull graph
// instead of scanning every vertex.
const hillClimbMin = 32

// Support returns the index of the vertex farthest along dir (local frame).
// Large hulls are searched by hill climbing on the vertex graph, which on a
// convex polytope ends at a global maximum (a vertex whose neighbours are
// all no farther has the whole polytope behind its supporting plane).
func (h *Hull) Support(dir Vec3) int {
	if len(h.Verts) < hillClimbMin || len(h.Adj) != len(h.Verts) {
		best, bi := math.Inf(-1), 0
		for i, v := range h.Verts {
			if d := v.Dot(dir); d > best {
				best, bi = d, i
			}
		}
		return bi
	}
	cur := 0
	best := h.Verts[0].Dot(dir)
	for steps := 0; steps < len(h.Verts); steps++ {
		next := -1
		for _, j := range h.Adj[cur] {
			if d := h.Verts[j].Dot(dir); d > best {
				best, next = d, int(j)
			}
		}
		if next < 0 {
			break
		}
		cur = next
	}
	return cur
}
