package tasks_test

import (
	"fmt"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/tasks"
)

func ExampleMake() {
	env, err := tasks.Make("pick-place", tasks.Options{Reward: tasks.Sparse})
	if err != nil {
		panic(err)
	}
	obs, _ := env.Reset(1)
	spec := env.Spec()
	fmt.Println(len(obs), spec.ActDim, spec.MaxEpisodeSteps, env.Family())
	fmt.Println(env.Description())
	fmt.Println(env.Stages())
	// Output:
	// 39 4 500 pick_place
	// pick up the red puck and place it on the green goal
	// [start reached grasped lifted placed]
}

// A VecEnv of scripted experts: when an episode ends, the environment is
// reset in the same Step and the episode's last observation is kept in
// Infos[i].FinalObs.
func ExampleMake_vecEnv() {
	envs := make([]*tasks.Env, 2)
	v, err := control.NewVecEnv(2, func(i int) (control.Env, error) {
		e, err := tasks.Make("reach", tasks.Options{MaxSteps: 50, TerminateOnSuccess: true})
		envs[i] = e
		return e, err
	})
	if err != nil {
		panic(err)
	}
	defer func() { _ = v.Close() }()
	obs, _ := v.Reset(7)
	acts := [][]float64{make([]float64, 4), make([]float64, 4)}
	successes := 0
	for range 200 {
		for i := range acts {
			envs[i].Expert().Act(obs[i], acts[i])
		}
		var term []bool
		var infos []control.Info
		obs, _, term, _, infos, err = v.Step(acts)
		if err != nil {
			panic(err)
		}
		for i := range term {
			if term[i] && infos[i].FinalValues["success"] == 1 && len(infos[i].FinalObs) == tasks.ObsDim {
				successes++
			}
		}
	}
	fmt.Println(successes > 4)
	// Output: true
}
