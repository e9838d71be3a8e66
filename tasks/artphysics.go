package tasks

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/sim"
	"github.com/vlmrb/vlmrb/sim/articulated"
	"github.com/vlmrb/vlmrb/sim/mjcf"
)

// The tabletop scenes in MJCF, one file per scene (reach-center uses
// reach's).
//
//go:embed scenes/*.xml
var sceneFS embed.FS

// sceneOf names the MJCF scene of a task.
func sceneOf(task string) string {
	switch task {
	case "reach-center":
		return "reach"
	}
	return task
}

func compileScene(task string) (*mjcf.Model, error) {
	name := sceneOf(task)
	path := "scenes/" + name + ".xml"
	data, err := sceneFS.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("tasks: %s has no MJCF scene (tasks/%s)", task, path)
	}
	var a *mjcf.Model
	if err == nil {
		if a, err = mjcf.Parse(data, "", mjcf.Options{}); err == nil && len(a.Warnings) > 0 {
			err = fmt.Errorf("%v", a.Warnings)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("tasks: scene tasks/%s: %w", path, err)
	}
	return a, nil
}

// artPhysics is the articulated engine on a task's MJCF scene; a is the
// compiled scene, which renderers draw (render.ModelScene) at d's poses.
type artPhysics struct {
	a     *mjcf.Model
	m     *articulated.Model
	d     *articulated.Data
	stale bool // Xpos and Xquat lag qpos or the mocap frames

	bodies, geoms, joints map[string]int
	bodyMocap             []int // mocap index per body, −1 for others
	bodyFree              []int // the body's free joint, −1 for none
}

func newArtPhysics(task string) (*artPhysics, error) {
	a, err := compileScene(task)
	if err != nil {
		return nil, err
	}
	m := a.Model
	p := &artPhysics{a: a, m: m, d: articulated.NewData(m),
		bodies: map[string]int{}, geoms: map[string]int{}, joints: map[string]int{}}
	p.bodyMocap, p.bodyFree = make([]int, len(m.Bodies)), make([]int, len(m.Bodies))
	for i, b := range m.Bodies {
		p.bodies[b.Name] = i
		p.bodyMocap[i], p.bodyFree[i] = -1, -1
	}
	for k, b := range m.MocapBodies {
		p.bodyMocap[b] = k
	}
	for j, jt := range m.Joints {
		p.joints[jt.Name] = j
		if jt.Type == articulated.Free {
			p.bodyFree[jt.Body] = j
		}
	}
	for g, gm := range m.Geoms {
		p.geoms[gm.Name] = g
	}
	p.reset()
	return p, nil
}

func lookup(m map[string]int, name string) (int, bool) {
	id, ok := m[name]
	return id, ok
}

func (p *artPhysics) bodyID(name string) (int, bool)  { return lookup(p.bodies, name) }
func (p *artPhysics) geomID(name string) (int, bool)  { return lookup(p.geoms, name) }
func (p *artPhysics) jointID(name string) (int, bool) { return lookup(p.joints, name) }
func (p *artPhysics) isMocap(b int) bool {
	return b >= 0 && b < len(p.bodyMocap) && p.bodyMocap[b] >= 0
}

func (p *artPhysics) ctrlOf(j int) (int, bool) {
	for k, a := range p.m.Actuators {
		if a.Trn == articulated.TrnJoint && a.Joint == j {
			return k, true
		}
	}
	return -1, false
}

// fresh brings the bodies' frames up to qpos and the mocap frames.
func (p *artPhysics) fresh() {
	if p.stale {
		articulated.Kinematics(p.m, p.d)
		p.stale = false
	}
}

func (p *artPhysics) pos(b int) sim.Vec3 {
	p.fresh()
	x := p.d.Xpos[b]
	return sim.V3(x[0], x[1], x[2])
}

func (p *artPhysics) rot(b int) sim.Quat {
	p.fresh()
	q := p.d.Xquat[b]
	return sim.Quat{W: q[0], X: q[1], Y: q[2], Z: q[3]}
}

func (p *artPhysics) jointPos(j int) float64 { return p.d.Qpos[p.m.QposAdr(j)] }

func (p *artPhysics) mocapPos(b int) sim.Vec3 {
	x := p.d.MocapPos[p.bodyMocap[b]]
	return sim.V3(x[0], x[1], x[2])
}

func (p *artPhysics) place(b int, pos sim.Vec3, q sim.Quat) {
	j := p.bodyFree[b]
	if j < 0 {
		return
	}
	a, v := p.m.QposAdr(j), p.m.DofAdr(j)
	copy(p.d.Qpos[a:a+7], []float64{pos.X, pos.Y, pos.Z, q.W, q.X, q.Y, q.Z})
	clear(p.d.Qvel[v : v+6])
	p.stale = true
}

func (p *artPhysics) teleportMocap(b int, pos sim.Vec3, q sim.Quat) {
	k := p.bodyMocap[b]
	p.d.MocapPos[k] = [3]float64{pos.X, pos.Y, pos.Z}
	p.d.MocapQuat[k] = [4]float64{q.W, q.X, q.Y, q.Z}
	p.stale = true
}

func (p *artPhysics) inContact(a, b int) bool {
	for i := range p.d.Contacts {
		c := &p.d.Contacts[i]
		if c.Geom1 == a && c.Geom2 == b || c.Geom1 == b && c.Geom2 == a {
			return true
		}
	}
	return false
}

func (p *artPhysics) sharedContact(a, b int) bool {
	for i := range p.d.Contacts {
		c := &p.d.Contacts[i]
		var other int
		switch a {
		case c.Geom1:
			other = c.Geom2
		case c.Geom2:
			other = c.Geom1
		default:
			continue
		}
		if other != b && p.inContact(b, other) {
			return true
		}
	}
	return false
}

func (p *artPhysics) reset() {
	articulated.Reset(p.m, p.d)
	p.stale = true
	p.fresh()
}

func (p *artPhysics) control(c *control.EEDelta, a []float64) {
	target := c.Next(a, p.m.Opt.Timestep)
	k := p.bodyMocap[c.Mocap]
	p.d.MocapPos[k] = [3]float64{target.X, target.Y, target.Z}
	p.d.MocapQuat[k] = [4]float64{c.Rot.W, c.Rot.X, c.Rot.Y, c.Rot.Z}
	for i, u := range c.Fingers {
		p.d.Ctrl[u] = c.FingerTarget(i, a[3])
	}
	for range max(c.FrameSkip, 1) {
		articulated.Step(p.m, p.d)
	}
	p.stale = true
	p.fresh()
}

func (p *artPhysics) resetControl(c *control.EEDelta) { c.SetTarget(p.mocapPos(c.Mocap)) }

func (p *artPhysics) timestep() float64 { return p.m.Opt.Timestep }

func (p *artPhysics) warnings() (int, int) {
	w := p.d.Warnings
	return w.Total(), w.BadQpos + w.BadQvel + w.BadQacc
}
