package grid

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/vlmrb/vlmrb/control"
)

// layoutA is a fixed DoorKey-5×5 layout (x right, y down):
//
//	y\x 0 1 2 3 4
//	0   W W W W W
//	1   W . D . W     door (2,1), locked
//	2   W A W . W     agent (1,2) facing down (dir 1)
//	3   W K W G W     key (1,3), goal (3,3)
//	4   W W W W W
var layoutA = Layout{Size: 5, Split: 2, DoorRow: 1, KeyX: 1, KeyY: 3, AgentX: 1, AgentY: 2, Dir: 1}

func newA(t *testing.T, opts Options) *Env {
	t.Helper()
	e, err := New(5, opts)
	if err != nil {
		t.Fatal(err)
	}
	e.ResetLayout(layoutA)
	return e
}

// TestRulesScript walks layoutA with a scripted action sequence; every
// expected value is worked out by hand from MiniGrid's rules (see doc.go).
func TestRulesScript(t *testing.T) {
	t.Parallel()
	e := newA(t, Options{})
	if e.MaxSteps() != 250 { // 10·5²
		t.Fatalf("MaxSteps = %d, want 250", e.MaxSteps())
	}
	const (
		none = ObjEmpty
		key  = ObjKey
	)
	steps := []struct {
		a        Action
		x, y, d  int
		carry    uint8
		door     uint8
		term     bool
		why      string
		keyCellX int // where the key lies on the grid (−1: carried)
		keyCellY int
	}{
		{Forward, 1, 2, 1, none, DoorLocked, false, "the key blocks forward", 1, 3},
		{Toggle, 1, 2, 1, none, DoorLocked, false, "toggling a key does nothing", 1, 3},
		{Pickup, 1, 2, 1, key, DoorLocked, false, "pick up the key in front", -1, -1},
		{Left, 1, 2, 0, key, DoorLocked, false, "down → right", -1, -1},
		{Forward, 1, 2, 0, key, DoorLocked, false, "the splitting wall blocks", -1, -1},
		{Left, 1, 2, 3, key, DoorLocked, false, "right → up", -1, -1},
		{Forward, 1, 1, 3, key, DoorLocked, false, "move up into the empty cell", -1, -1},
		{Right, 1, 1, 0, key, DoorLocked, false, "up → right, facing the door", -1, -1},
		{Forward, 1, 1, 0, key, DoorLocked, false, "a locked door blocks", -1, -1},
		{Toggle, 1, 1, 0, key, DoorOpen, false, "the key unlocks and opens the door", -1, -1},
		{Toggle, 1, 1, 0, key, DoorClosed, false, "an unlocked door toggles closed", -1, -1},
		{Forward, 1, 1, 0, key, DoorClosed, false, "a closed door blocks", -1, -1},
		{Toggle, 1, 1, 0, key, DoorOpen, false, "and open again", -1, -1},
		{Forward, 2, 1, 0, key, DoorOpen, false, "step into the open doorway", -1, -1},
		{Forward, 3, 1, 0, key, DoorOpen, false, "through the door", -1, -1},
		{Right, 3, 1, 1, key, DoorOpen, false, "right → down", -1, -1},
		{Drop, 3, 1, 1, none, DoorOpen, false, "drop the key on the empty front cell", 3, 2},
		{Pickup, 3, 1, 1, key, DoorOpen, false, "pick it up again", -1, -1},
		{Forward, 3, 2, 1, key, DoorOpen, false, "move down", -1, -1},
		{Forward, 3, 3, 1, key, DoorOpen, true, "step onto the goal", -1, -1},
	}
	for i, s := range steps {
		r, term, trunc := e.StepIndex(s.a)
		x, y, d := e.Agent()
		if x != s.x || y != s.y || d != s.d {
			t.Fatalf("step %d (%v: %s): agent (%d,%d) dir %d, want (%d,%d) dir %d", i+1, s.a, s.why, x, y, d, s.x, s.y, s.d)
		}
		if e.Carrying().Obj != s.carry {
			t.Fatalf("step %d (%s): carrying %v, want object %d", i+1, s.why, e.Carrying(), s.carry)
		}
		if e.DoorState() != s.door {
			t.Fatalf("step %d (%s): door state %d, want %d", i+1, s.why, e.DoorState(), s.door)
		}
		if term != s.term || trunc {
			t.Fatalf("step %d (%s): terminated %v truncated %v, want %v false", i+1, s.why, term, trunc, s.term)
		}
		if s.keyCellX >= 0 && e.Cell(s.keyCellX, s.keyCellY).Obj != ObjKey {
			t.Fatalf("step %d (%s): no key at (%d,%d)", i+1, s.why, s.keyCellX, s.keyCellY)
		}
		if e.StepCount() != i+1 {
			t.Fatalf("step %d: step count %d", i+1, e.StepCount())
		}
		want := 0.0
		if s.term {
			want = 1 - 0.9*20.0/250 // reached on step 20 of max 250
		}
		if math.Abs(r-want) > 1e-12 {
			t.Fatalf("step %d (%s): reward %g, want %g", i+1, s.why, r, want)
		}
	}
	if e.Stage() != 3 {
		t.Errorf("stage %d after reaching the goal, want 3", e.Stage())
	}
	// the key's old cell is empty after the first pickup
	if e.Cell(1, 3).Obj != ObjEmpty {
		t.Errorf("cell (1,3) = %v after pickup, want empty", e.Cell(1, 3))
	}
}

func TestLockedDoorNeedsKey(t *testing.T) {
	t.Parallel()
	e := newA(t, Options{})
	// up, then face the door without the key: toggling leaves it locked
	for _, a := range []Action{Left, Left, Forward, Right} {
		e.StepIndex(a)
	}
	if x, y, d := e.Agent(); x != 1 || y != 1 || d != 0 {
		t.Fatalf("agent (%d,%d) dir %d, want (1,1) facing the door", x, y, d)
	}
	e.StepIndex(Toggle)
	if e.DoorState() != DoorLocked {
		t.Fatalf("door state %d after toggling without a key, want locked", e.DoorState())
	}
	// drop with nothing carried and pickup of a door do nothing
	e.StepIndex(Drop)
	e.StepIndex(Pickup)
	if e.Carrying().Obj != ObjEmpty || e.Cell(2, 1).Obj != ObjDoor {
		t.Fatalf("drop/pickup changed something: carrying %v, door cell %v", e.Carrying(), e.Cell(2, 1))
	}
	// done is a no-op
	e.StepIndex(Done)
	if x, y, d := e.Agent(); x != 1 || y != 1 || d != 0 || e.StepCount() != 8 {
		t.Fatalf("after done: agent (%d,%d) dir %d, steps %d", x, y, d, e.StepCount())
	}
}

func TestDropNeedsEmptyFront(t *testing.T) {
	t.Parallel()
	e := newA(t, Options{})
	e.StepIndex(Pickup) // the key at (1,3)
	e.StepIndex(Left)   // face the splitting wall
	e.StepIndex(Drop)   // front is a wall: nothing happens
	if e.Carrying().Obj != ObjKey {
		t.Fatal("dropped the key onto a wall")
	}
	e.StepIndex(Right) // face down again, front (1,3) is now empty
	e.StepIndex(Drop)
	if e.Carrying().Obj != ObjEmpty || e.Cell(1, 3) != keyCell {
		t.Fatalf("drop on the empty front cell: carrying %v, cell %v", e.Carrying(), e.Cell(1, 3))
	}
}

func TestTruncation(t *testing.T) {
	t.Parallel()
	e := newA(t, Options{MaxSteps: 3})
	for i := 1; i <= 3; i++ {
		r, term, trunc := e.StepIndex(Done)
		if r != 0 || term || trunc != (i == 3) {
			t.Fatalf("step %d: reward %g terminated %v truncated %v; want truncation exactly at step 3", i, r, term, trunc)
		}
	}
	if _, _, _, _, _, err := e.Step([]float64{6}); err != control.ErrNeedsReset {
		t.Fatalf("Step after truncation: err %v, want ErrNeedsReset", err)
	}
}

// Reaching the goal on the last allowed step both terminates and
// truncates (MiniGrid checks step_count ≥ max_steps after the action), and
// the reward is 1 − 0.9·20/20 = 0.1.
func TestGoalOnLastStep(t *testing.T) {
	t.Parallel()
	e := newA(t, Options{MaxSteps: 20})
	script := []Action{Forward, Toggle, Pickup, Left, Forward, Left, Forward, Right, Forward, Toggle,
		Toggle, Forward, Toggle, Forward, Forward, Right, Drop, Pickup, Forward, Forward}
	var r float64
	var term, trunc bool
	for _, a := range script {
		r, term, trunc = e.StepIndex(a)
	}
	if !term || !trunc || math.Abs(r-0.1) > 1e-12 {
		t.Fatalf("last step: reward %g terminated %v truncated %v, want 0.1 true true", r, term, trunc)
	}
}

func TestStepControlEnv(t *testing.T) {
	t.Parallel()
	e := newA(t, Options{})
	spec := e.Spec()
	if err := spec.Validate(); err != nil {
		t.Fatal(err)
	}
	if spec.Discrete != NumActions || spec.ActDim != 1 {
		t.Fatalf("spec: Discrete %d ActDim %d, want 7 and 1", spec.Discrete, spec.ActDim)
	}
	// 3.4 rounds to 3 (pickup); out-of-range values clip to 0..6
	_, _, _, _, info, err := e.Step([]float64{3.4})
	if err != nil {
		t.Fatal(err)
	}
	if e.Carrying().Obj != ObjKey || info.Get("stage") != 1 {
		t.Fatalf("3.4 did not act as pickup: carrying %v stage %g", e.Carrying(), info.Get("stage"))
	}
	if _, _, _, _, _, err := e.Step([]float64{math.NaN()}); err == nil {
		t.Fatal("NaN action accepted")
	}
	if _, _, _, _, _, err := e.Step([]float64{-5}); err != nil { // clips to left
		t.Fatal(err)
	}
	if _, _, d := e.Agent(); d != 0 {
		t.Fatalf("−5 should clip to left (dir 1 → 0), dir %d", d)
	}
}

// egoWant builds an expected egocentric image from visible cells listed as
// view (i, j) → triple; everything else is unseen (0,0,0).
func egoWant(cells map[[2]int][3]uint8) [ViewSize * ViewSize * 3]uint8 {
	var img [ViewSize * ViewSize * 3]uint8
	for ij, c := range cells {
		o := (ij[0]*ViewSize + ij[1]) * 3
		img[o], img[o+1], img[o+2] = c[0], c[1], c[2]
	}
	return img
}

var (
	wW = [3]uint8{ObjWall, Grey, 0}
	wE = [3]uint8{ObjEmpty, 0, 0}
	wK = [3]uint8{ObjKey, Yellow, 0}
	wG = [3]uint8{ObjGoal, Green, 0}
)

// The view cells and their visibility below are worked out by hand from
// get_view_exts/slice/rotate_left (view (i,j) = agent + d·(6−j) + r·(i−3))
// and process_vis's two sweeps per row.
func TestEgocentricOcclusion(t *testing.T) {
	t.Parallel()
	e := newA(t, Options{})
	// facing down from (1,2): view (i,j) is world (4−i, 8−j). Rows j=6,5,4
	// (world y=2,3,4) are visible through columns i=2..4 only: the walls
	// at world x=0 and x=2 stop the sideways sweeps, and the bottom wall
	// row j=4 stops everything beyond. The goal (3,3) is behind the
	// splitting wall and stays unseen.
	want := egoWant(map[[2]int][3]uint8{
		{2, 6}: wW, {3, 6}: wE, {4, 6}: wW,
		{2, 5}: wW, {3, 5}: wK, {4, 5}: wW,
		{2, 4}: wW, {3, 4}: wW, {4, 4}: wW,
	})
	var got [ViewSize * ViewSize * 3]uint8
	e.Egocentric(&got)
	if got != want {
		t.Fatalf("start view\n got %v\nwant %v", got, want)
	}
	obs := e.Observe(nil)
	if len(obs) != 148 || obs[147] != 1 {
		t.Fatalf("obs length %d, direction %g; want 148 and 1", len(obs), obs[147])
	}

	// after pickup the agent's cell shows the carried key and the key's
	// old cell is empty
	e.StepIndex(Pickup)
	want = egoWant(map[[2]int][3]uint8{
		{2, 6}: wW, {3, 6}: wK, {4, 6}: wW,
		{2, 5}: wW, {3, 5}: wE, {4, 5}: wW,
		{2, 4}: wW, {3, 4}: wW, {4, 4}: wW,
	})
	e.Egocentric(&got)
	if got != want {
		t.Fatalf("after pickup\n got %v\nwant %v", got, want)
	}

	// standing in the open doorway (2,1) facing right: view (i,j) is world
	// (8−j, i−2). The open door lets the sweep through: row j=5 (world
	// x=3) is visible from i=2 (top wall) to i=6 (bottom wall) with the
	// goal at i=5; row j=4 is the right outer wall.
	for _, a := range []Action{Left, Left, Forward, Right, Toggle, Forward} {
		e.StepIndex(a)
	}
	if x, y, d := e.Agent(); x != 2 || y != 1 || d != 0 {
		t.Fatalf("agent (%d,%d) dir %d, want (2,1) facing right", x, y, d)
	}
	want = egoWant(map[[2]int][3]uint8{
		{2, 6}: wW, {3, 6}: wK, {4, 6}: wW,
		{2, 5}: wW, {3, 5}: wE, {4, 5}: wE, {5, 5}: wG, {6, 5}: wW,
		{2, 4}: wW, {3, 4}: wW, {4, 4}: wW, {5, 4}: wW, {6, 4}: wW,
	})
	e.Egocentric(&got)
	if got != want {
		t.Fatalf("in the doorway\n got %v\nwant %v", got, want)
	}
}

func TestFullObservation(t *testing.T) {
	t.Parallel()
	e := newA(t, Options{View: Full})
	obs := e.Observe(nil)
	if len(obs) != 5*5*3 {
		t.Fatalf("full obs length %d, want 75", len(obs))
	}
	at := func(x, y int) [3]float64 {
		o := (x*5 + y) * 3
		return [3]float64{obs[o], obs[o+1], obs[o+2]}
	}
	for _, c := range []struct {
		x, y int
		want [3]float64
	}{
		{1, 2, [3]float64{10, 0, 1}}, // agent, red, facing down
		{2, 1, [3]float64{4, 4, 2}},  // yellow locked door
		{1, 3, [3]float64{5, 4, 0}},  // yellow key
		{3, 3, [3]float64{8, 1, 0}},  // green goal
		{3, 2, [3]float64{1, 0, 0}},  // empty
		{0, 0, [3]float64{2, 5, 0}},  // grey wall
		{2, 3, [3]float64{2, 5, 0}},  // splitting wall
	} {
		if got := at(c.x, c.y); got != c.want {
			t.Errorf("full obs at (%d,%d) = %v, want %v", c.x, c.y, got, c.want)
		}
	}
}

func TestLayoutsBySeed(t *testing.T) {
	t.Parallel()
	for _, n := range Sizes {
		e, err := New(n, Options{})
		if err != nil {
			t.Fatal(err)
		}
		splits := map[int]bool{}
		rows := map[int]bool{}
		distinct := map[Layout]bool{}
		for seed := uint64(0); seed < 2000; seed++ {
			l := e.DrawLayout(seed)
			if l != e.DrawLayout(seed) {
				t.Fatalf("size %d seed %d: two draws differ", n, seed)
			}
			// MiniGrid's ranges: split in [2, n−2), door row in [1, n−2),
			// agent and key on distinct interior cells left of the wall
			if l.Split < 2 || l.Split >= n-2 || l.DoorRow < 1 || l.DoorRow >= n-2 {
				t.Fatalf("size %d seed %d: layout %+v out of MiniGrid's ranges", n, seed, l)
			}
			for _, p := range [][2]int{{l.AgentX, l.AgentY}, {l.KeyX, l.KeyY}} {
				if p[0] < 1 || p[0] >= l.Split || p[1] < 1 || p[1] > n-2 {
					t.Fatalf("size %d seed %d: cell %v outside the left room of %+v", n, seed, p, l)
				}
			}
			if l.AgentX == l.KeyX && l.AgentY == l.KeyY {
				t.Fatalf("size %d seed %d: key under the agent", n, seed)
			}
			splits[l.Split], rows[l.DoorRow], distinct[l] = true, true, true
		}
		// 2000 draws reach every split column and door row (each has
		// probability ≥ 1/(n−4) ≥ 1/12 per draw)
		if len(splits) != n-4 || len(rows) != n-3 {
			t.Errorf("size %d: %d split columns and %d door rows seen, want %d and %d", n, len(splits), len(rows), n-4, n-3)
		}
		if len(distinct) < 10 {
			t.Errorf("size %d: only %d distinct layouts in 2000 seeds", n, len(distinct))
		}
		// Reset uses the seed's layout
		e.Reset(7)
		if e.Layout() != e.DrawLayout(7) {
			t.Errorf("size %d: Reset(7) layout differs from DrawLayout(7)", n)
		}
	}
}

func TestExpertAlwaysSucceeds(t *testing.T) {
	t.Parallel()
	for _, n := range Sizes {
		e, err := New(n, Options{})
		if err != nil {
			t.Fatal(err)
		}
		p := Expert(e)
		for seed := uint64(0); seed < 200; seed++ {
			e.Reset(seed)
			// half the episodes start from a state scrambled by random
			// actions (keys dropped, doors toggled), still inside the limit
			if seed%2 == 1 {
				for k := range 30 {
					a := Action((seed*31 + uint64(k)*17) % NumActions)
					if _, term, _ := e.StepIndex(a); term {
						break
					}
				}
				if e.done {
					continue
				}
			}
			for {
				r, term, trunc := e.StepIndex(p.Next())
				if term {
					if r <= 0 {
						t.Fatalf("size %d seed %d: terminated with reward %g", n, seed, r)
					}
					break
				}
				if trunc {
					t.Fatalf("size %d seed %d: expert truncated at %d steps (layout %+v)", n, seed, e.StepCount(), e.Layout())
				}
			}
		}
	}
}

func TestRegistry(t *testing.T) {
	t.Parallel()
	names := Names()
	if len(names) != 5 || names[0] != "doorkey-5x5" || names[4] != "doorkey-16x16" {
		t.Fatalf("Names() = %v", names)
	}
	e, err := Make("doorkey-12x12", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if e.Size() != 12 || e.MaxSteps() != 1440 {
		t.Fatalf("doorkey-12x12: size %d max steps %d, want 12 and 10·12² = 1440", e.Size(), e.MaxSteps())
	}
	if _, err := Make("doorkey-7x7", Options{}); err == nil {
		t.Fatal("doorkey-7x7 is not registered")
	}
	if _, err := New(4, Options{}); err == nil {
		t.Fatal("size 4 accepted")
	}
}

// TestMatchesMiniGrid replays testdata/minigrid_trace.json, written by
// MiniGrid's own DoorKeyEnv (testdata/minigrid_trace.py) on fixed layouts
// under random actions, and requires the same egocentric image,
// direction, position, reward and flags after every step.
func TestMatchesMiniGrid(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("testdata", "minigrid_trace.json"))
	if err != nil {
		t.Fatal(err)
	}
	var traces []struct {
		Layout struct {
			Size, Split, Door, Kx, Ky, Ax, Ay, Dir int
		}
		MaxSteps int `json:"max_steps"`
		Steps    []struct {
			A           int
			Img         []uint8
			Dir         int
			R           float64
			Term, Trunc bool
			Pos         [2]int
			Reset       bool
		}
	}
	if err := json.Unmarshal(b, &traces); err != nil {
		t.Fatal(err)
	}
	if len(traces) == 0 {
		t.Fatal("empty trace file")
	}
	for ti, tr := range traces {
		l := tr.Layout
		lay := Layout{Size: l.Size, Split: l.Split, DoorRow: l.Door, KeyX: l.Kx, KeyY: l.Ky, AgentX: l.Ax, AgentY: l.Ay, Dir: l.Dir}
		e, err := New(l.Size, Options{MaxSteps: tr.MaxSteps})
		if err != nil {
			t.Fatal(err)
		}
		e.ResetLayout(lay)
		var img [ViewSize * ViewSize * 3]uint8
		for si, s := range tr.Steps {
			r, term, trunc := e.StepIndex(Action(s.A))
			e.Egocentric(&img)
			x, y, d := e.Agent()
			if string(img[:]) != string(s.Img) || d != s.Dir || x != s.Pos[0] || y != s.Pos[1] {
				t.Fatalf("trace %d step %d (action %v): agent (%d,%d) dir %d, want (%d,%d) dir %d\n got %v\nwant %v",
					ti, si, Action(s.A), x, y, d, s.Pos[0], s.Pos[1], s.Dir, img, s.Img)
			}
			if math.Abs(r-s.R) > 1e-12 || term != s.Term || trunc != s.Trunc {
				t.Fatalf("trace %d step %d: reward %g term %v trunc %v, MiniGrid %g %v %v", ti, si, r, term, trunc, s.R, s.Term, s.Trunc)
			}
			if s.Reset {
				e.ResetLayout(lay)
			}
		}
	}
}

// TestObservationBounds is the env checker: over random episodes every
// observation stays inside the spec's bounds (the Cardinalities), Reset is
// reproducible, and rewards stay in [0, 1].
func TestObservationBounds(t *testing.T) {
	t.Parallel()
	for _, view := range []View{Egocentric, Full} {
		e, err := New(8, Options{View: view})
		if err != nil {
			t.Fatal(err)
		}
		spec := e.Spec()
		first, _ := e.Reset(3)
		again, _ := e.Reset(3)
		for i := range first {
			if first[i] != again[i] {
				t.Fatalf("%v: Reset(3) not reproducible at %d", view, i)
			}
		}
		act := []float64{0}
		for k := range 3000 {
			act[0] = float64((k * 7919) % NumActions)
			obs, r, term, trunc, _, err := e.Step(act)
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range obs {
				if v < spec.ObsLow[i] || v > spec.ObsHigh[i] || v != math.Trunc(v) {
					t.Fatalf("%v: obs[%d] = %g outside [%g, %g] or not a code", view, i, v, spec.ObsLow[i], spec.ObsHigh[i])
				}
			}
			if r < spec.RewardLow || r > spec.RewardHigh {
				t.Fatalf("reward %g outside [0, 1]", r)
			}
			if term || trunc {
				e.Reset(uint64(k))
			}
		}
	}
}
