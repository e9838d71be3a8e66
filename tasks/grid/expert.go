package grid

// Planner is DoorKey's scripted expert: at every step it picks the
// current sub-goal (the key while the door is locked and the agent holds
// nothing; the door while it is closed; else the goal) and takes the first
// action of a shortest plan found by breadth-first search over (cell,
// direction) with the actions left, right and forward. Facing the key it
// picks it up; facing the door it toggles it. It reads the environment's
// state, not the observation, so it solves every layout from any state
// the rules allow (a key dropped anywhere, a door closed again).
type Planner struct {
	Env *Env

	parent []int32 // per (cell, direction) state: previous state·8 + action, −1 unvisited
	queue  []int32
}

// Expert returns the planner for e.
func Expert(e *Env) *Planner { return &Planner{Env: e} }

// Act writes the planner's action index into dst[0]; obs is ignored.
func (p *Planner) Act(obs, dst []float64) { dst[0] = float64(p.Next()) }

// Next returns the planner's next action.
func (p *Planner) Next() Action {
	e := p.Env
	door := e.cells[e.doorIdx]
	carrying := e.carrying.Obj == ObjKey
	switch {
	case door.State == DoorOpen:
		if a, ok := p.plan(func(x, y, _ int) bool { return e.Cell(x, y).Obj == ObjGoal }, Forward); ok {
			return a
		}
	case door.State == DoorLocked && !carrying:
		// find the key on the grid and face it
		if a, ok := p.plan(func(x, y, _ int) bool { return e.Cell(x, y).Obj == ObjKey }, Pickup); ok {
			return a
		}
	default:
		// closed door, or locked with the key in hand: face it and toggle
		if a, ok := p.plan(func(x, y, _ int) bool { return y*e.size+x == e.doorIdx }, Toggle); ok {
			return a
		}
	}
	return Done
}

// plan searches for the shortest action sequence after which the cell in
// front of the agent satisfies target, then returns its first action, or
// final when the agent already faces such a cell (for the goal, final is
// Forward, which steps onto it).
func (p *Planner) plan(target func(x, y, d int) bool, final Action) (Action, bool) {
	e := p.Env
	n := e.size
	states := n * n * 4
	if len(p.parent) != states {
		p.parent = make([]int32, states)
		p.queue = make([]int32, 0, states)
	}
	for i := range p.parent {
		p.parent[i] = -1
	}
	facing := func(s int32) bool {
		c, d := int(s)/4, int(s)%4
		x, y := c%n+dirVec[d][0], c/n+dirVec[d][1]
		return target(x, y, d)
	}
	start := int32((e.ay*n+e.ax)*4 + e.dir)
	if facing(start) {
		return final, true
	}
	// parent[s] = previous state*8 + action that led here
	p.parent[start] = start * 8
	p.queue = append(p.queue[:0], start)
	for h := 0; h < len(p.queue); h++ {
		s := p.queue[h]
		c, d := int(s)/4, int(s)%4
		x, y := c%n, c/n
		next := [3]int32{
			int32(c*4 + (d+3)&3), // left
			int32(c*4 + (d+1)&3), // right
			-1,                   // forward
		}
		fx, fy := x+dirVec[d][0], y+dirVec[d][1]
		if f := e.Cell(fx, fy); f.canOverlap() && f.Obj != ObjGoal && f.Obj != ObjLava {
			next[2] = int32((fy*n+fx)*4 + d)
		}
		for a, t := range next {
			if t < 0 || p.parent[t] >= 0 {
				continue
			}
			p.parent[t] = s*8 + int32(a)
			if facing(t) {
				// walk back to the first action
				for {
					prev, act := p.parent[t]/8, Action(p.parent[t]%8)
					if prev == start {
						return act, true
					}
					t = prev
				}
			}
			p.queue = append(p.queue, t)
		}
	}
	return Done, false
}
