package grid

import (
	"fmt"
	"image"
	"math/rand/v2"

	"github.com/vlmrb/vlmrb/control"
)

// Object indices (MiniGrid's OBJECT_TO_IDX).
const (
	ObjUnseen uint8 = 0
	ObjEmpty  uint8 = 1
	ObjWall   uint8 = 2
	ObjFloor  uint8 = 3
	ObjDoor   uint8 = 4
	ObjKey    uint8 = 5
	ObjBall   uint8 = 6
	ObjBox    uint8 = 7
	ObjGoal   uint8 = 8
	ObjLava   uint8 = 9
	ObjAgent  uint8 = 10
	numObj          = 11
)

// Colour indices (MiniGrid's COLOR_TO_IDX).
const (
	Red    uint8 = 0
	Green  uint8 = 1
	Blue   uint8 = 2
	Purple uint8 = 3
	Yellow uint8 = 4
	Grey   uint8 = 5
	numCol       = 6
)

// Door states (MiniGrid's Door.encode).
const (
	DoorOpen   uint8 = 0
	DoorClosed uint8 = 1
	DoorLocked uint8 = 2
)

// Action is one of MiniGrid's seven actions (MiniGridEnv.Actions).
type Action int

// The actions, in MiniGrid's order.
const (
	Left    Action = 0 // turn left: direction −1 mod 4
	Right   Action = 1 // turn right: direction +1 mod 4
	Forward Action = 2 // move to the front cell if it is empty, an open door or the goal
	Pickup  Action = 3 // pick up the object in front when carrying nothing
	Drop    Action = 4 // put the carried object on the empty front cell
	Toggle  Action = 5 // open/close (or unlock with the key) the door in front
	Done    Action = 6 // no-op
	// NumActions is the size of the discrete action space.
	NumActions = 7
)

var actionNames = [NumActions]string{"left", "right", "forward", "pickup", "drop", "toggle", "done"}

// String returns MiniGrid's name of the action.
func (a Action) String() string {
	if a >= 0 && int(a) < NumActions {
		return actionNames[a]
	}
	return fmt.Sprintf("Action(%d)", int(a))
}

// Directions: 0 right (+x), 1 down (+y), 2 left (−x), 3 up (−y)
// (MiniGrid's DIR_TO_VEC; y grows downwards).
var dirVec = [4][2]int{{1, 0}, {0, 1}, {-1, 0}, {0, -1}}

// DirVec returns the unit step (dx, dy) of direction d (0..3).
func DirVec(d int) (dx, dy int) { return dirVec[d&3][0], dirVec[d&3][1] }

// Cell is one grid cell as MiniGrid encodes it: object index, colour index
// and state (door state; 0 otherwise). An empty cell (MiniGrid's None) is
// {ObjEmpty, 0, 0}.
type Cell struct{ Obj, Color, State uint8 }

var (
	emptyCell = Cell{Obj: ObjEmpty}
	wallCell  = Cell{Obj: ObjWall, Color: Grey}
	goalCell  = Cell{Obj: ObjGoal, Color: Green}
	keyCell   = Cell{Obj: ObjKey, Color: Yellow}
)

// canOverlap is WorldObj.can_overlap: the agent may stand on empty cells,
// the goal and open doors.
func (c Cell) canOverlap() bool {
	switch c.Obj {
	case ObjEmpty, ObjGoal, ObjFloor, ObjLava:
		return true
	case ObjDoor:
		return c.State == DoorOpen
	}
	return false
}

// seeBehind is WorldObj.see_behind: walls and closed or locked doors
// occlude.
func (c Cell) seeBehind() bool {
	switch c.Obj {
	case ObjWall:
		return false
	case ObjDoor:
		return c.State == DoorOpen
	}
	return true
}

// Layout is one episode's DoorKey layout: the splitting wall's column,
// the door's row, the key cell, the agent's cell and direction. The goal
// is always at (Size−2, Size−2).
type Layout struct {
	Size           int // grid side including the outer walls (cells)
	Split, DoorRow int
	KeyX, KeyY     int
	AgentX, AgentY int
	Dir            int
}

// View selects the observation.
type View int

const (
	// Egocentric is MiniGrid's default 7×7×3 agent view with occlusion,
	// followed by the direction (148 values).
	Egocentric View = iota
	// Full is FullyObsWrapper's size×size×3 grid with the agent cell
	// encoded as (agent, red, direction).
	Full
)

// String returns "egocentric" or "full".
func (v View) String() string {
	if v == Full {
		return "full"
	}
	return "egocentric"
}

// ParseView parses "egocentric" (or "") and "full".
func ParseView(s string) (View, error) {
	switch s {
	case "", "egocentric":
		return Egocentric, nil
	case "full":
		return Full, nil
	}
	return Egocentric, fmt.Errorf("grid: unknown view %q; choose egocentric or full", s)
}

// ViewSize is MiniGrid's agent_view_size.
const ViewSize = 7

// Options configure a DoorKey environment. The zero value is MiniGrid's
// default: egocentric view and max_steps = 10·size².
type Options struct {
	View     View
	MaxSteps int // time limit in steps (0 → 10·size²)
}

// Env is DoorKey-size×size behind control.Env. Make it with New or Make.
type Env struct {
	name     string
	size     int
	opts     Options
	maxSteps int
	spec     control.Spec

	cells    []Cell // size×size, row-major: cells[y*size+x]
	ax, ay   int    // agent cell
	dir      int    // agent direction 0..3
	carrying Cell   // what the agent carries; Obj == ObjEmpty when nothing
	steps    int    // MiniGrid's step_count
	layout   Layout
	doorIdx  int // index of the door cell in cells

	tiles map[tileKey]*image.RGBA // rendered tiles (Render)

	stage   int // highest stage reached this episode (see Stages)
	pcg     *rand.PCG
	rng     *rand.Rand
	started bool
	done    bool
	act     [1]float64
}

// Stages are the DoorKey sub-goals in order, reported as info "stage".
var Stages = []string{"start", "key picked up", "door opened", "goal reached"}

// New returns DoorKey-size×size (size ≥ 5; MiniGrid registers 5, 6, 8 and
// 16, and 12 is the same class).
func New(size int, opts Options) (*Env, error) {
	if size < 5 {
		return nil, fmt.Errorf("grid: DoorKey needs size ≥ 5, got %d", size)
	}
	if opts.MaxSteps < 0 {
		return nil, fmt.Errorf("grid: MaxSteps %d is negative", opts.MaxSteps)
	}
	if opts.View != Egocentric && opts.View != Full {
		return nil, fmt.Errorf("grid: unknown view %d", opts.View)
	}
	e := &Env{name: fmt.Sprintf("doorkey-%dx%d", size, size), size: size, opts: opts,
		cells: make([]Cell, size*size), pcg: rand.NewPCG(0, 0)}
	e.rng = rand.New(e.pcg)
	e.maxSteps = opts.MaxSteps
	if e.maxSteps == 0 {
		e.maxSteps = 10 * size * size
	}
	e.spec = control.DiscreteSpec(e.ObsDim(), NumActions)
	e.spec.MaxEpisodeSteps = e.maxSteps
	e.spec.RewardLow, e.spec.RewardHigh = 0, 1
	lo, hi := make([]float64, e.ObsDim()), make([]float64, e.ObsDim())
	for i, c := range e.Cardinalities() {
		hi[i] = float64(c - 1)
	}
	e.spec.ObsLow, e.spec.ObsHigh = lo, hi
	return e, nil
}

// Name returns the registry name, e.g. "doorkey-8x8".
func (e *Env) Name() string { return e.name }

// Size returns the grid side in cells (outer walls included).
func (e *Env) Size() int { return e.size }

// MaxSteps returns the time limit in steps.
func (e *Env) MaxSteps() int { return e.maxSteps }

// View returns the observation kind.
func (e *Env) View() View { return e.opts.View }

// ObsDim returns the observation length: 7·7·3 + 1 for Egocentric,
// size·size·3 for Full.
func (e *Env) ObsDim() int {
	if e.opts.View == Full {
		return e.size * e.size * 3
	}
	return ViewSize*ViewSize*3 + 1
}

// Cardinalities returns, per observation element, the number of values it
// takes (all observations are categorical codes): 11 objects, 6 colours,
// 4 states (door states 0–2; the agent's direction in Full), and 4
// directions for Egocentric's last element. A learner one-hots each
// element with these widths.
func (e *Env) Cardinalities() []int {
	c := make([]int, e.ObsDim())
	for i := 0; i+2 < len(c); i += 3 {
		c[i], c[i+1], c[i+2] = numObj, numCol, 4
	}
	if e.opts.View == Egocentric {
		c[len(c)-1] = 4
	}
	return c
}

// Spec returns the discrete spec: ObsDim categorical observations, seven
// actions, the time limit and rewards in [0, 1].
func (e *Env) Spec() control.Spec { return e.spec }

// Description returns MiniGrid's mission string.
func (e *Env) Description() string {
	return Mission
}

// Cell returns the cell at (x, y); outside the grid it is a wall, as
// MiniGrid's Grid.slice pads.
func (e *Env) Cell(x, y int) Cell {
	if x < 0 || y < 0 || x >= e.size || y >= e.size {
		return wallCell
	}
	return e.cells[y*e.size+x]
}

// Agent returns the agent's cell and direction.
func (e *Env) Agent() (x, y, dir int) { return e.ax, e.ay, e.dir }

// Carrying returns the carried object (Obj == ObjEmpty when nothing).
func (e *Env) Carrying() Cell { return e.carrying }

// DoorState returns the door's state (DoorOpen, DoorClosed or DoorLocked).
func (e *Env) DoorState() uint8 { return e.cells[e.doorIdx].State }

// StepCount returns MiniGrid's step_count of the running episode.
func (e *Env) StepCount() int { return e.steps }

// Layout returns the episode's initial layout.
func (e *Env) Layout() Layout { return e.layout }

// Stage returns the highest stage (index into Stages) reached this episode.
func (e *Env) Stage() int { return e.stage }

// Reset draws a new layout from seed as MiniGrid's DoorKeyEnv._gen_grid
// does and returns the first observation.
func (e *Env) Reset(seed uint64) ([]float64, control.Info) {
	e.ResetLayout(e.DrawLayout(seed))
	return e.Observe(nil), e.info(false)
}

// DrawLayout returns the layout Reset(seed) uses, drawing in _gen_grid's
// order: split column in [2, size−2), the agent's cell uniformly on empty
// cells of columns [0, split) by rejection, its direction in [0, 4), the
// door row in [1, size−2), and the key's cell on empty cells of columns
// [0, split) other than the agent's.
func (e *Env) DrawLayout(seed uint64) Layout {
	e.pcg.Seed(seed, 0x646f_6f72_6b65_79) // "doorkey"
	n := e.size
	l := Layout{Size: n}
	randInt := func(lo, hi int) int { return lo + e.rng.IntN(hi-lo) }
	l.Split = randInt(2, n-2)
	// wall_rect and vert_wall leave the interior cells of columns 1..split−1 free
	free := func(x, y int) bool { return x > 0 && x < l.Split && y > 0 && y < n-1 }
	for {
		x, y := randInt(0, l.Split), randInt(0, n)
		if free(x, y) {
			l.AgentX, l.AgentY = x, y
			break
		}
	}
	l.Dir = randInt(0, 4)
	l.DoorRow = randInt(1, n-2)
	for {
		x, y := randInt(0, l.Split), randInt(0, n)
		if free(x, y) && (x != l.AgentX || y != l.AgentY) {
			l.KeyX, l.KeyY = x, y
			break
		}
	}
	return l
}

// ResetLayout starts an episode on a given layout (for tests and
// replays). It panics if the layout does not fit the grid: that is a
// programming error, not user input.
func (e *Env) ResetLayout(l Layout) {
	n := e.size
	okCell := func(x, y int) bool { return x > 0 && x < l.Split && y > 0 && y < n-1 }
	if l.Size != n || l.Split < 2 || l.Split > n-3 || l.DoorRow < 1 || l.DoorRow > n-3 ||
		!okCell(l.AgentX, l.AgentY) || !okCell(l.KeyX, l.KeyY) || (l.KeyX == l.AgentX && l.KeyY == l.AgentY) || l.Dir < 0 || l.Dir > 3 {
		panic(fmt.Sprintf("grid: layout %+v does not fit DoorKey-%d", l, n))
	}
	for i := range e.cells {
		e.cells[i] = emptyCell
	}
	for i := range n {
		e.cells[i] = wallCell           // top row
		e.cells[(n-1)*n+i] = wallCell   // bottom row
		e.cells[i*n] = wallCell         // left column
		e.cells[i*n+n-1] = wallCell     // right column
		e.cells[i*n+l.Split] = wallCell // splitting wall
	}
	e.cells[(n-2)*n+n-2] = goalCell
	e.doorIdx = l.DoorRow*n + l.Split
	e.cells[e.doorIdx] = Cell{Obj: ObjDoor, Color: Yellow, State: DoorLocked}
	e.cells[l.KeyY*n+l.KeyX] = keyCell
	e.ax, e.ay, e.dir = l.AgentX, l.AgentY, l.Dir
	e.carrying = emptyCell
	e.steps, e.stage = 0, 0
	e.layout = l
	e.started, e.done = true, false
}

// StepIndex applies action a with MiniGrid's rules and returns the reward
// and the episode flags. It does not allocate. It panics when no episode
// is running (call Reset) or a is not one of the seven actions.
func (e *Env) StepIndex(a Action) (reward float64, terminated, truncated bool) {
	if !e.started || e.done {
		panic("grid: StepIndex on an ended or unstarted episode; call Reset")
	}
	// step_count increments before the action applies
	e.steps++
	fx, fy := e.ax+dirVec[e.dir][0], e.ay+dirVec[e.dir][1]
	fi := fy*e.size + fx // the border walls keep the front cell inside the grid
	front := e.cells[fi]
	switch a {
	case Left:
		e.dir = (e.dir + 3) & 3
	case Right:
		e.dir = (e.dir + 1) & 3
	case Forward:
		if front.canOverlap() {
			e.ax, e.ay = fx, fy
		}
		if front.Obj == ObjGoal {
			terminated = true
			reward = 1 - 0.9*float64(e.steps)/float64(e.maxSteps)
			e.stage = 3
		}
		if front.Obj == ObjLava {
			terminated = true
		}
	case Pickup:
		if front.Obj == ObjKey || front.Obj == ObjBall || front.Obj == ObjBox {
			if e.carrying.Obj == ObjEmpty {
				e.carrying = front
				e.cells[fi] = emptyCell
				e.stage = max(e.stage, 1)
			}
		}
	case Drop:
		if front.Obj == ObjEmpty && e.carrying.Obj != ObjEmpty {
			e.cells[fi] = e.carrying
			e.carrying = emptyCell
		}
	case Toggle:
		if front.Obj == ObjDoor {
			switch front.State {
			case DoorLocked:
				// unlock and open only with a key of the door's colour
				if e.carrying.Obj == ObjKey && e.carrying.Color == front.Color {
					e.cells[fi].State = DoorOpen
				}
			case DoorOpen:
				e.cells[fi].State = DoorClosed
			case DoorClosed:
				e.cells[fi].State = DoorOpen
			}
			if e.cells[fi].State == DoorOpen {
				e.stage = max(e.stage, 2)
			}
		}
	case Done:
	default:
		panic(fmt.Sprintf("grid: unknown action %d", int(a)))
	}
	if e.steps >= e.maxSteps {
		truncated = true
	}
	e.done = terminated || truncated
	return reward, terminated, truncated
}

// Step applies action[0] (an action index as a float, clipped to [0, 6]
// and rounded) and returns the new observation, the reward and the
// episode flags. Info values: "success" (1 on the step that reaches the
// goal), "stage" (index into Stages) and "progress" (stage/3).
func (e *Env) Step(action []float64) ([]float64, float64, bool, bool, control.Info, error) {
	if !e.started || e.done {
		return nil, 0, false, false, control.Info{}, control.ErrNeedsReset
	}
	if err := e.spec.ClipAction(e.act[:], action); err != nil {
		return nil, 0, false, false, control.Info{}, err
	}
	r, term, trunc := e.StepIndex(Action(e.spec.ActionIndex(e.act[:])))
	return e.Observe(nil), r, term, trunc, e.info(term && r > 0), nil
}

func (e *Env) info(success bool) control.Info {
	s := 0.0
	if success {
		s = 1
	}
	return control.Info{Values: map[string]float64{
		"success": s, "stage": float64(e.stage), "progress": float64(e.stage) / 3,
	}}
}

// Close does nothing; an Env holds no resources.
func (e *Env) Close() error { return nil }

// Observe writes the observation (ObsDim values) into dst, allocating it
// when dst is nil, and returns it.
func (e *Env) Observe(dst []float64) []float64 {
	if dst == nil {
		dst = make([]float64, e.ObsDim())
	}
	if len(dst) < e.ObsDim() {
		panic("grid: Observe dst shorter than ObsDim")
	}
	if e.opts.View == Full {
		e.fullObs(dst)
	} else {
		var img [ViewSize * ViewSize * 3]uint8
		e.Egocentric(&img)
		for i, v := range img {
			dst[i] = float64(v)
		}
		dst[len(img)] = float64(e.dir)
	}
	return dst
}

// fullObs is FullyObsWrapper: grid.encode() indexed [x][y][channel], the
// agent's cell replaced by (agent, red, direction).
func (e *Env) fullObs(dst []float64) {
	n := e.size
	for x := range n {
		for y := range n {
			c := e.cells[y*n+x]
			o := (x*n + y) * 3
			dst[o], dst[o+1], dst[o+2] = float64(c.Obj), float64(c.Color), float64(c.State)
		}
	}
	o := (e.ax*n + e.ay) * 3
	dst[o], dst[o+1], dst[o+2] = float64(ObjAgent), float64(Red), float64(e.dir)
}

// Egocentric writes MiniGrid's gen_obs()["image"] into img, laid out as
// numpy's (7, 7, 3) array: index (i·7 + j)·3 + channel, i the view column
// (left to right as the agent sees), j the view row (0 farthest ahead; the
// agent sits at (3, 6) looking towards j = 0).
//
// The view cell (i, j) is the world cell agent + d·(6−j) + r·(i−3), with d
// the direction vector and r = (−d_y, d_x) the agent's right: the
// composition of Grid.slice over get_view_exts and dir+1 rotate_left
// calls. Cells outside the grid are walls. Visibility is
// Grid.process_vis from the agent's cell; hidden cells encode as
// (0, 0, 0); the agent's own cell shows what it carries (or empty).
func (e *Env) Egocentric(img *[ViewSize * ViewSize * 3]uint8) {
	const sz, hs = ViewSize, ViewSize / 2
	dx, dy := dirVec[e.dir][0], dirVec[e.dir][1]
	rx, ry := -dy, dx
	var view [sz][sz]Cell // [i][j]
	for j := range sz {
		f := sz - 1 - j
		for i := range sz {
			s := i - hs
			view[i][j] = e.Cell(e.ax+dx*f+rx*s, e.ay+dy*f+ry*s)
		}
	}
	// process_vis: sweep rows from the agent's row up, propagating
	// visibility sideways and forwards through cells that do not occlude
	var mask [sz][sz]bool
	mask[hs][sz-1] = true
	for j := sz - 1; j >= 0; j-- {
		for i := 0; i < sz-1; i++ {
			if !mask[i][j] || !view[i][j].seeBehind() {
				continue
			}
			mask[i+1][j] = true
			if j > 0 {
				mask[i+1][j-1] = true
				mask[i][j-1] = true
			}
		}
		for i := sz - 1; i >= 1; i-- {
			if !mask[i][j] || !view[i][j].seeBehind() {
				continue
			}
			mask[i-1][j] = true
			if j > 0 {
				mask[i-1][j-1] = true
				mask[i][j-1] = true
			}
		}
	}
	view[hs][sz-1] = e.carrying // emptyCell when carrying nothing
	for i := range sz {
		for j := range sz {
			o := (i*sz + j) * 3
			if mask[i][j] {
				c := view[i][j]
				img[o], img[o+1], img[o+2] = c.Obj, c.Color, c.State
			} else {
				img[o], img[o+1], img[o+2] = 0, 0, 0
			}
		}
	}
}
