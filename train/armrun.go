package train

// Task arm-reach on train.Run: the reach task over an imported MJCF arm
// (tasks.ArmReach) in the SAC runner, with the run directory, checkpoints,
// resume, evaluation and the replay choices of every other SAC task. What
// needs a rendered MetaWorld scene (frame scorers, the VLM rewards,
// evaluation GIFs, recorded demonstrations) is refused or skipped.

import (
	"context"
	"fmt"
	"strings"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/tasks"
)

// taskMeta is the static description of the run's task. For arm-reach
// it also loads the arm and builds the task once, so that a bad model,
// site or actuator is refused before the run directory is written.
func (r *runner) taskMeta() (tasks.Meta, error) {
	if r.cfg.IsArmTask() {
		_, err := rundir.NewArmEnv(&r.cfg)
		if r.cfg.IsArmObjectTask() {
			return tasks.ArmObjectMeta(r.cfg.ArmObjectTask()), err
		}
		return tasks.ArmReachMeta(), err
	}
	meta, err := tasks.Lookup(r.cfg.Task)
	if err != nil {
		return meta, &rundir.ConfigError{Msg: err.Error() + " (robot-train tasks lists them)"}
	}
	return meta, nil
}

// buildArmEnvs makes the arm-reach training envs (a VecEnv over one
// model load each, so no two envs share mutable state) and the
// evaluation env.
func (r *runner) buildArmEnvs() error {
	cfg := &r.cfg
	load := func(warn bool) (rundir.ArmEnv, error) {
		e, err := rundir.NewArmEnv(cfg)
		if err == nil && warn && len(e.Model().Warnings) > 0 {
			r.warnf("%s: ignored %s", cfg.Arm.Model, strings.Join(e.Model().Warnings, "; "))
		}
		return e, err
	}
	r.arm = make([]rundir.ArmEnv, cfg.NumEnvs)
	var err error
	if r.vec, err = control.NewVecEnv(cfg.NumEnvs, func(i int) (control.Env, error) {
		e, err := load(i == 0)
		r.arm[i] = e
		if err != nil {
			return nil, err
		}
		return e, nil
	}); err != nil {
		return err
	}
	r.armEval, err = load(false)
	return err
}

// expert is env i's scripted expert.
func (r *runner) expert(i int) control.Policy {
	if r.arm != nil {
		return r.arm[i].Expert()
	}
	return r.envs[i].Expert()
}

// progress is env i's privileged progress and simulated time (s).
func (r *runner) progress(i int) (float64, float64) {
	if r.arm != nil {
		p, _ := r.arm[i].Progress()
		return p, r.arm[i].Data().Time
	}
	p, _ := r.envs[i].Progress()
	return p, r.envs[i].Data().Time
}

// evaluateArm runs the deterministic policy on the arm-reach evaluation
// env (EvalArm).
func (r *runner) evaluateArm(ctx context.Context) (*rundir.EvalResult, map[string]float64, error) {
	if r.cfg.Eval.GIF && r.camErr == nil {
		r.camErr = fmt.Errorf("task %s", r.cfg.Task)
		r.warnf("no evaluation GIFs on task %s (robot-train render --model films the arm)", r.cfg.Task)
	}
	return rundir.EvalArm(ctx, r.armEval, rundir.AgentPolicy(r.agent), r.cfg.Eval.Episodes, rundir.EvalSeed(r.cfg))
}
