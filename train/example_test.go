package train_test

import (
	"context"
	"fmt"
	"os"

	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/train"
)

// Run trains SAC on a task from a config validated once by its caller
// (Config.Validated returns the proof Run takes); a Hook in Options sees every transition the
// run stores, every update, evaluation and checkpoint (here it counts the
// successful transitions and keeps the evaluations).
func ExampleRun() {
	dir, err := os.MkdirTemp("", "vlmrb-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer func() { _ = os.RemoveAll(dir) }()

	cfg := rundir.DefaultConfig()
	cfg.Task, cfg.Replay, cfg.Out = "reach", "uniform", dir+"/run"
	cfg.Steps, cfg.NumEnvs, cfg.MaxEpisodeLen = 400, 2, 50
	cfg.SAC.LearningStarts, cfg.SAC.BatchSize, cfg.SAC.Hidden = 200, 32, []int{16, 16}
	cfg.Eval = rundir.EvalConfig{Every: 200, Episodes: 2}

	v, err := cfg.Validated() // the one check; Run does not repeat it
	if err != nil {
		fmt.Println(err)
		return
	}

	var stored, updates int64
	var evals []int64
	hook := train.HookFuncs{
		Step:   func(train.StepEvent) error { stored++; return nil },
		Update: func(train.UpdateEvent) error { updates++; return nil },
		Eval:   func(e train.EvalEvent) error { evals = append(evals, e.Step); return nil },
	}
	res, err := train.Run(context.Background(), v, train.Options{Hooks: []train.Hook{hook}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d env steps: the hook saw %d transitions and %d of %d updates; evaluations at %v\n",
		res.Step, stored, updates, res.Updates, evals)
	// Output:
	// 400 env steps: the hook saw 400 transitions and 202 of 202 updates; evaluations at [200 400]
}
