package tasks

import "github.com/vlmrb/vlmrb/sim"

// View is a scorer camera: a pinhole at Eye looking at Target with world +z
// up and a vertical field of view FovY (degrees). Positions are in m in the
// task's world frame. render.LookAt turns it into a render.Camera.
type View struct {
	Eye, Target sim.Vec3
	FovY        float64
}

// Parts name what a task's frames must show for a scorer to judge them:
// the gripper, the manipulated object and the goal or target. Each entry is
// a body name, or the name of a static shape (all static shapes belong to
// the world body, so they are named one by one).
type Parts struct {
	Gripper, Object, Goal []string
}

// gripperParts are the bodies of the two-finger hand every task shares.
var gripperParts = []string{"hand", "right finger", "left finger"}

// defaultView looks at the tasks' workspace from the front left and above,
// the robot's side of the table, where the key light falls on the faces it
// sees: at 224×224 the gripper, a 4 cm puck and the goal markers all cover
// tens to hundreds of pixels through every expert episode, and nothing the
// arm does hides them (tasks_test's TestScorerViewsShowParts checks it).
var defaultView = View{Eye: sim.V3(-0.65, 0.2, 0.6), Target: sim.V3(0.02, 0.74, 0.07), FovY: 42}

// scorerParts holds each task's parts and scorer views. One view suffices
// for every task so far; a task whose parts one view cannot keep in sight
// lists two, and the scorer frame tiles them side by side.
var scorerParts = map[string]struct {
	object, goal []string
	views        []View
}{
	"reach":                {gripperParts, []string{"green goal"}, []View{defaultView}},
	"reach-center":         {gripperParts, []string{"green goal"}, []View{defaultView}},
	"push":                 {[]string{"red puck"}, []string{"green goal"}, []View{defaultView}},
	"pick-place":           {[]string{"red puck"}, []string{"green goal"}, []View{defaultView}},
	"sweep-into":           {[]string{"green cube"}, []string{"black hole"}, []View{defaultView}},
	"button-press-topdown": {[]string{"red button"}, []string{"button box"}, []View{defaultView}},
	"door-open":            {[]string{"safe door"}, []string{"green goal"}, []View{defaultView}},
	"drawer-open":          {[]string{"drawer"}, []string{"green goal"}, []View{defaultView}},
	"window-open":          {[]string{"window sash"}, []string{"green goal"}, []View{defaultView}},
}

// withScorerParts fills m's Parts and Views from scorerParts (a task
// missing there gets the default view and the gripper only).
func withScorerParts(m Meta) Meta {
	p, ok := scorerParts[m.Name]
	m.Parts = Parts{Gripper: gripperParts}
	m.Views = []View{defaultView}
	if ok {
		m.Parts.Object, m.Parts.Goal, m.Views = p.object, p.goal, p.views
	}
	return m
}
