package vlmviam

import (
	"errors"
	"fmt"
	"sync"

	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/sac"
	"github.com/vlmrb/vlmrb/tasks"
)

// Policy is a loaded vlmrb checkpoint: a SAC agent acting deterministically
// (the policy robot-train eval runs). Act is safe for concurrent use.
type Policy struct {
	Dir      string        // run directory
	Config   rundir.Config // the run's config (task, reward, episode length)
	Manifest *rundir.Manifest

	mu    sync.Mutex
	agent *sac.Agent
}

// LoadPolicy loads the newest verified checkpoint of the run in dir.
func LoadPolicy(dir string) (*Policy, error) {
	a, cfg, man, err := rundir.LoadAgent(dir)
	if err != nil {
		if tasks.IsDiscrete(cfg.Task) {
			return nil, fmt.Errorf("checkpoint %q is a DQN run of the grid task %q, which has no arm to drive; use a SAC run of a manipulation task: %w", dir, cfg.Task, err)
		}
		return nil, fmt.Errorf("load checkpoint %q: %w", dir, err)
	}
	if cfg.IsArmObjectTask() {
		a.Close()
		return nil, fmt.Errorf("checkpoint %q is task %s, which the Viam module does not drive: its policy moves a gripper and sees a cube that the rig does not report; use a run of arm-reach or of a tabletop task", dir, cfg.Task)
	}
	// an arm-reach run speaks its arm's joints (armTaskDriver)
	if !cfg.IsArmTask() && (a.ObsDim() != tasks.ObsDim || a.ActDim() != tasks.ActDim) {
		a.Close()
		return nil, fmt.Errorf("checkpoint %q maps %d observations to %d actions; the Viam rig speaks the tasks' %d → %d", dir, a.ObsDim(), a.ActDim(), tasks.ObsDim, tasks.ActDim)
	}
	return &Policy{Dir: dir, Config: cfg, Manifest: man, agent: a}, nil
}

// ErrPolicyClosed is returned by Act after Close (a reconfigure replaced
// the policy while a caller still held it).
var ErrPolicyClosed = errors.New("vlmrb: policy was closed")

// Act writes the deterministic action for obs into dst.
func (p *Policy) Act(obs, dst []float64) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.agent == nil {
		return ErrPolicyClosed
	}
	p.agent.Act(dst, obs, true)
	return nil
}

// Task returns the run's task name.
func (p *Policy) Task() string { return p.Config.Task }

// EpisodeLen is the run's episode length in control steps.
func (p *Policy) EpisodeLen() int {
	if p.Config.MaxEpisodeLen > 0 {
		return p.Config.MaxEpisodeLen
	}
	return rundir.DefaultConfig().MaxEpisodeLen
}

// Step returns the env step of the loaded checkpoint (0 when unknown).
func (p *Policy) Step() int64 {
	if p.Manifest == nil {
		return 0
	}
	return p.Manifest.Step
}

// TrainedEngine names the physics the run was trained on: tasks.EngineSim
// for a tabletop run of the removed old engine (rundir.OldEngine), else
// tasks.EngineArticulated, the engine every task now runs on.
func (p *Policy) TrainedEngine() string {
	if rundir.OldEngine(&p.Config) {
		return tasks.EngineSim
	}
	return tasks.EngineArticulated
}

// CheckEngine applies robot-train eval's rule to a runner about to drive
// this policy. simWorld says the runner drives vlmrb's simulated world
// (sim_reset: a vlmrb:vlmrb:sim-arm, which runs on the articulated
// engine); engine is the engine the caller asked for ("" or
// tasks.EngineArticulated; sim is refused); ask says how the caller asks
// for it (a flag or a config key), for the refusal's words. A run trained
// on the old engine is refused in the simulated world unless engine is
// articulated, and then runs as a transfer: the returned note is
// rundir.TransferNote. On a real robot (simWorld false) no engine applies
// and nothing is refused; the note says what the run was trained on.
// Runs of the articulated engine get "" and nil.
func (p *Policy) CheckEngine(simWorld bool, engine, ask string) (string, error) {
	if err := rundir.CheckEngine(p.Config.Task, engine); err != nil {
		return "", err
	}
	if !rundir.OldEngine(&p.Config) {
		return "", nil
	}
	if !simWorld {
		return "the policy was trained on the old engine sim (a real robot has no engine: nothing to check)", nil
	}
	if engine == "" {
		return "", fmt.Errorf("checkpoint %q was trained on the tabletop's old engine sim, which was removed; "+
			"to drive vlmrb's simulated world (articulated engine) with it, set %s (a transfer: other physics than it trained on)", p.Dir, ask)
	}
	return rundir.TransferNote, nil
}

// Close releases the agent.
func (p *Policy) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.agent != nil {
		p.agent.Close()
		p.agent = nil
	}
}
