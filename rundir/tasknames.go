package rundir

import (
	"github.com/vlmrb/vlmrb/tasks"
	_ "github.com/vlmrb/vlmrb/tasks/grid" // registers the DoorKey family into tasks
)

// TaskNames returns every task a run can train: the manipulation tasks,
// the DoorKey grid tasks and arm-reach (an imported MJCF arm, --model).
//
// Deprecated: use tasks.AllNames.
func TaskNames() []string { return tasks.AllNames() }

// CanonicalTask returns vlmrb's name for a task named by MetaWorld
// (reach-v3) or MiniGrid (MiniGrid-DoorKey-8x8-v0), and any other name as
// it is.
//
// Deprecated: use tasks.Canonical.
func CanonicalTask(name string) string { return tasks.Canonical(name) }

// checkTask is nil for a task a run can train and otherwise a
// *ConfigError naming the closest tasks and all of them.
func checkTask(name string) error { return asConfigError(tasks.CheckName(name)) }

// asConfigError wraps a factory's plain error as a *ConfigError (a user
// error, exit status 2); nil stays nil.
func asConfigError(err error) error {
	if err == nil {
		return nil
	}
	return &ConfigError{Msg: err.Error()}
}

// UnknownTaskError is checkTask's message for name as an error (nil when
// the task exists), for commands that take a task name.
//
// Deprecated: use tasks.CheckName.
func UnknownTaskError(name string) error { return checkTask(name) }
