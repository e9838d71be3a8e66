package train

import (
	"regexp"
	"slices"
	"strings"

	"github.com/vlmrb/vlmrb/internal/suggest"
	"github.com/vlmrb/vlmrb/tasks"
	"github.com/vlmrb/vlmrb/tasks/grid"
)

// TaskNames returns every task a run can train: the manipulation tasks,
// the DoorKey grid tasks and arm-reach (an imported MJCF arm, --model).
func TaskNames() []string {
	out := append(tasks.Names(), grid.Names()...)
	return append(out, tasks.ArmReachName)
}

// Other projects' names for our tasks: MetaWorld's (reach-v3, push-v2,
// pick-place-v3-goal-observable, …) and MiniGrid's (MiniGrid-DoorKey-8x8-v0).
var (
	metaworldName = regexp.MustCompile(`^(.+)-v[0-9]+(-goal-(?:observable|hidden))?$`)
	minigridName  = regexp.MustCompile(`^minigrid-doorkey-([0-9]+x[0-9]+)-v[0-9]+$`)
)

// CanonicalTask returns vlmrb's name for a task named by MetaWorld
// (reach-v3) or MiniGrid (MiniGrid-DoorKey-8x8-v0), and any other name as
// it is.
func CanonicalTask(name string) string {
	known := TaskNames()
	if slices.Contains(known, name) {
		return name
	}
	if m := minigridName.FindStringSubmatch(strings.ToLower(name)); m != nil {
		if c := "doorkey-" + m[1]; slices.Contains(known, c) {
			return c
		}
	}
	if m := metaworldName.FindStringSubmatch(name); m != nil && slices.Contains(tasks.Names(), m[1]) {
		return m[1]
	}
	return name
}

// checkTask is nil for a task a run can train and otherwise a
// *ConfigError naming the closest tasks and all of them.
func checkTask(name string) error {
	known := TaskNames()
	if slices.Contains(known, name) {
		return nil
	}
	if c := CanonicalTask(name); c != name {
		return badf("task %q is %s in vlmrb: pass --task %s", name, c, c)
	}
	return badf("unknown task %q%s (tasks: %s; MetaWorld's names such as reach-v3 and MiniGrid's such as MiniGrid-DoorKey-8x8-v0 are accepted; robot-train tasks describes them)",
		name, suggest.DidYouMean("", suggest.Closest(name, known)), strings.Join(known, ", "))
}

// UnknownTaskError is checkTask's message for name as an error (nil when
// the task exists), for commands that take a task name.
func UnknownTaskError(name string) error { return checkTask(name) }
