package tasks

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/vlmrb/vlmrb/internal/suggest"
)

// Family is a task family that registers into this package's registry
// beside the tabletop tasks, so that one registry answers "which tasks
// exist, which are discrete, what is this name called here" for every front
// end. tasks/grid registers the DoorKey family from its init: import
// tasks/grid (or a package that does) for its names to be known.
type Family struct {
	Name     string          // e.g. "doorkey"
	Names    func() []string // the family's registered task names
	Discrete bool            // discrete action space (a DQN learner)
}

var families []Family

// RegisterFamily adds a task family to the registry. A name that another
// family or a tabletop task already uses is programmer misuse and panics.
func RegisterFamily(f Family) {
	for _, n := range f.Names() {
		if _, dup := registry[n]; dup || familyOf(n) != nil || slices.Contains(armNames, n) {
			panic("tasks: family " + f.Name + " registers task " + n + " twice")
		}
	}
	families = append(families, f)
}

func familyOf(name string) *Family {
	for i := range families {
		if slices.Contains(families[i].Names(), name) {
			return &families[i]
		}
	}
	return nil
}

// armNames are the tasks over an imported MJCF arm (--model): reach, and
// pick and push with the arm's own gripper (armobject.go).
var armNames = []string{ArmReachName, ArmPickName, ArmPushName}

// AllNames returns every task a run can train: the tabletop tasks (sorted),
// then each registered family's, then the tasks over an imported MJCF arm
// (arm-reach, panda-pick, panda-push).
func AllNames() []string {
	out := Names()
	for _, f := range families {
		out = append(out, f.Names()...)
	}
	return append(out, armNames...)
}

// IsDiscrete reports whether the task has a discrete action space (a
// registered family marked Discrete, such as tasks/grid's DoorKey tasks).
func IsDiscrete(name string) bool {
	f := familyOf(name)
	return f != nil && f.Discrete
}

// InFamily reports whether name is a task of the registered family.
func InFamily(name, family string) bool {
	f := familyOf(name)
	return f != nil && f.Name == family
}

// Other projects' names for our tasks: MetaWorld's (reach-v3, push-v2,
// pick-place-v3-goal-observable, …) and MiniGrid's (MiniGrid-DoorKey-8x8-v0).
var (
	metaworldName = regexp.MustCompile(`^(.+)-v[0-9]+(-goal-(?:observable|hidden))?$`)
	minigridName  = regexp.MustCompile(`^minigrid-doorkey-([0-9]+x[0-9]+)-v[0-9]+$`)
)

// Canonical returns vlmrb's name for a task named by MetaWorld (reach-v3)
// or MiniGrid (MiniGrid-DoorKey-8x8-v0), and any other name as it is.
func Canonical(name string) string {
	known := AllNames()
	if slices.Contains(known, name) {
		return name
	}
	if m := minigridName.FindStringSubmatch(strings.ToLower(name)); m != nil {
		if c := "doorkey-" + m[1]; slices.Contains(known, c) {
			return c
		}
	}
	if m := metaworldName.FindStringSubmatch(name); m != nil && slices.Contains(Names(), m[1]) {
		return m[1]
	}
	return name
}

// CheckName is nil for a task a run can train and otherwise an error naming
// the vlmrb name of an alias, or the closest tasks and all of them.
func CheckName(name string) error {
	known := AllNames()
	if slices.Contains(known, name) {
		return nil
	}
	if c := Canonical(name); c != name {
		return fmt.Errorf("task %q is %s in vlmrb: pass --task %s", name, c, c)
	}
	return fmt.Errorf("unknown task %q%s (tasks: %s; MetaWorld's names such as reach-v3 and MiniGrid's such as MiniGrid-DoorKey-8x8-v0 are accepted; robot-train tasks describes them)",
		name, suggest.DidYouMean("", suggest.Closest(name, known)), strings.Join(known, ", "))
}

// Describe returns the description of the tabletop task name (or its
// MetaWorld alias). An unknown name, or a task of another family, is an
// error that lists the known tasks of every family.
func Describe(name string) (Meta, error) {
	m, err := Lookup(Canonical(name))
	if err != nil {
		if terr := CheckName(name); terr != nil {
			return m, terr
		}
		var others []string
		for _, f := range families {
			others = append(others, f.Names()...)
		}
		return m, errors.New(err.Error() + "; or the grid tasks " + strings.Join(others, ", "))
	}
	return m, nil
}

// RunEpisodeSteps is the episode length, in control steps, that training,
// evaluation and rendering share unless told otherwise (shorter than
// MetaWorld's DefaultMaxSteps).
const RunEpisodeSteps = 200

// MakeEnv makes one env of the tabletop task name (or its MetaWorld alias).
// reward is dense or sparse ("" keeps the task's default); maxSteps is the
// time limit in control steps (0: RunEpisodeSteps). An unknown task or
// reward is an error saying what to pass instead.
func MakeEnv(name, reward string, maxSteps int) (*Env, error) {
	return MakeEnvOn(name, reward, maxSteps, "")
}

// MakeEnvOn is MakeEnv on the named physics engine (Options.Engine: ""
// or EngineArticulated; EngineSim is refused with ErrEngineRemoved).
func MakeEnvOn(name, reward string, maxSteps int, engine string) (*Env, error) {
	if _, err := Describe(name); err != nil {
		return nil, err
	}
	if maxSteps == 0 {
		maxSteps = RunEpisodeSteps
	}
	opts := Options{MaxSteps: maxSteps, Engine: engine}
	if reward != "" {
		var err error
		if opts.Reward, err = ParseRewardMode(reward); err != nil {
			return nil, err
		}
	}
	return Make(Canonical(name), opts)
}
