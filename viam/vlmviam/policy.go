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

// Close releases the agent.
func (p *Policy) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.agent != nil {
		p.agent.Close()
		p.agent = nil
	}
}
