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
		{"push", "mujoco", `engine "mujoco" is not one of articulated`},
		{"push", tasks.EngineSim, `engine "sim" (the tabletop's old engine, maximal-coordinate) was removed; the tabletop runs on the articulated engine`},
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

// A tabletop run whose config says engine sim, or none (runs before the
// old engine's removal recorded ""), is a run of the old engine; runs
// since record articulated, and runs of other tasks never are. Demos
// recorded without an engine are the old engine's, and do not fit a run
// on the articulated engine.
func TestOldEngine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		task, engine string
		old          bool
	}{
		{"push", "", true},
		{"push", tasks.EngineSim, true},
		{"push", tasks.EngineArticulated, false},
		{"push-v3", "", true}, // MetaWorld's name of push
		{"doorkey-5x5", "", false},
	} {
		c := DefaultConfig()
		c.Task, c.Engine = tc.task, tc.engine
		if got := OldEngine(&c); got != tc.old {
			t.Errorf("task %s engine %q: OldEngine %v, want %v", tc.task, tc.engine, got, tc.old)
		}
	}
	if err := OldEngineError("RUN", "evaluate"); !strings.Contains(err.Error(), "--engine articulated") || !strings.Contains(err.Error(), "transfer") {
		t.Errorf("OldEngineError: %v", err)
	}
	c := DefaultConfig()
	c.Task = "push"
	c.Reward = "dense"
	for _, tc := range []struct {
		recorded string
		fits     bool
	}{{"", false}, {tasks.EngineSim, false}, {tasks.EngineArticulated, true}} {
		err := RecordMeta{Task: "push", Engine: tc.recorded, Reward: c.EnvReward()}.Fits(&c)
		if (err == nil) != tc.fits {
			t.Errorf("demos recorded on engine %q: Fits %v, want fit %v", tc.recorded, err, tc.fits)
		}
	}
}
