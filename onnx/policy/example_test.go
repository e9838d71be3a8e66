package policy_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/onnx/policy"
	"github.com/vlmrb/vlmrb/sac"
)

// Export an agent's deterministic actor, load the file back and act.
func Example() {
	cfg := sac.DefaultConfig()
	cfg.Hidden, cfg.Seed = []int{32, 32}, 1
	agent, _ := sac.New(cfg, 3, 2)
	defer agent.Close()

	m, err := policy.SAC(agent, control.BoxSpec(3, 2, -1, 1), policy.Info{Task: "my-task", Run: "runs/x", Step: 1000})
	if err != nil {
		panic(err)
	}
	dir, _ := os.MkdirTemp("", "policy")
	defer func() { _ = os.RemoveAll(dir) }()
	path := filepath.Join(dir, "policy.onnx")
	if err := m.WriteFile(path); err != nil {
		panic(err)
	}

	p, err := policy.Load(path)
	if err != nil {
		panic(err)
	}
	obs := []float64{0.1, -0.2, 0.3}
	got, want := make([]float64, 2), make([]float64, 2)
	p.Act(obs, got)
	agent.Act(want, obs, true)
	fmt.Println(p.Kind, p.Task, p.Step, "opset", p.Model.OpsetVersion())
	fmt.Println("same action as the agent:", got[0] == want[0] && got[1] == want[1])
	// Output:
	// sac_actor_deterministic my-task 1000 opset 13
	// same action as the agent: true
}
