package control_test

import (
	"fmt"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/tasks"
)

// A VecEnv steps two reach tasks in parallel with a policy and resets
// finished episodes in the same call, keeping each final observation in
// Info.FinalObs for the replay buffer.
func Example() {
	vec, err := control.NewVecEnv(2, func(int) (control.Env, error) {
		return tasks.Make("reach", tasks.Options{MaxSteps: 50})
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer func() { _ = vec.Close() }()
	spec := vec.Spec()
	fmt.Printf("obs %d, actions %d in [%g, %g]\n", spec.ObsDim, spec.ActDim, spec.ActLow[0], spec.ActHigh[0])

	// a policy that always pushes the hand up: every episode runs to its
	// 50-step limit and is truncated, not terminated
	up := control.PolicyFunc(func(_, dst []float64) {
		clear(dst)
		dst[2] = 1
	})
	obs, _ := vec.Reset(42)
	actions := [][]float64{make([]float64, spec.ActDim), make([]float64, spec.ActDim)}
	episodes := 0
	for range 120 {
		for i := range actions {
			up.Act(obs[i], actions[i])
		}
		next, _, term, trunc, infos, err := vec.Step(actions)
		if err != nil {
			fmt.Println(err)
			return
		}
		for i := range next {
			if term[i] || trunc[i] {
				episodes++
				if len(infos[i].FinalObs) != spec.ObsDim {
					fmt.Println("final observation missing")
				}
			}
		}
		obs = next
	}
	fmt.Printf("%d episodes ended in 120 steps of 2 envs\n", episodes)
	// Output:
	// obs 39, actions 4 in [-1, 1]
	// 4 episodes ended in 120 steps of 2 envs
}
