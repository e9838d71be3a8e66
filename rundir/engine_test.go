package rundir

import (
	"strings"
	"testing"

	"github.com/vlmrb/vlmrb/tasks"
)

// The engine key reaches the tabletop Env's options, and a bad value or a
// task it does not apply to is a ConfigError saying what to do.
func TestEngineKey(t *testing.T) {
	t.Parallel()
	c := DefaultConfig()
	c.Task, c.Out = "push", t.TempDir()
	if err := SetConfigKey(&c, "engine", tasks.EngineArticulated); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Validated(); err != nil {
		t.Fatalf("push on the articulated engine: %v", err)
	}
	if o := c.TaskOptions(tasks.Sparse); o.Engine != tasks.EngineArticulated || o.Reward != tasks.Sparse || o.MaxSteps != c.MaxEpisodeLen {
		t.Errorf("TaskOptions %+v", o)
	}
	for _, tc := range []struct{ task, engine, want string }{
		{"push", "mujoco", `engine "mujoco" is not one of sim, articulated`},
		{"doorkey-5x5", tasks.EngineArticulated, "applies to the tabletop tasks"},
	} {
		c := DefaultConfig()
		c.Task, c.Out, c.Engine = tc.task, t.TempDir(), tc.engine
		_, err := c.Validated()
		if _, ok := err.(*ConfigError); !ok || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("task %s engine %s: error %v, want a ConfigError saying %q", tc.task, tc.engine, err, tc.want)
		}
	}
}
