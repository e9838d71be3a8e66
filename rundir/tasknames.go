package rundir

import (
	"github.com/vlmrb/vlmrb/tasks"
	_ "github.com/vlmrb/vlmrb/tasks/grid" // registers the DoorKey family into tasks
)

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

// TaskOptions are the tabletop Env's options of this run for env reward
// r: the episode limit and the engine.
func (c *Config) TaskOptions(r tasks.RewardMode) tasks.Options {
	return tasks.Options{Reward: r, MaxSteps: c.MaxEpisodeLen, Engine: c.Engine}
}
