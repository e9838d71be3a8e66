package main

import (
	"errors"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/render"
	"github.com/vlmrb/vlmrb/tasks"
)

// The factories of the front ends that only read tasks, cameras and
// policies, from the packages that own them (tasks, render, control).
// Their plain errors are the user's (exit 2), except a renderer that
// cannot open, which is the machine's (exit 1).

// userErr marks a factory's plain error as a usage error.
func userErr(err error) error {
	if err == nil {
		return nil
	}
	return &usageError{err.Error()}
}

// describeTask is tasks.Describe; an unknown task is a usage error.
func describeTask(name string) (tasks.Meta, error) {
	m, err := tasks.Describe(name)
	return m, userErr(err)
}

// makeTaskEnv is tasks.MakeEnvOn; an unknown task, reward or engine is a
// usage error.
func makeTaskEnv(name, reward string, maxSteps int, engine string) (*tasks.Env, error) {
	e, err := tasks.MakeEnvOn(name, reward, maxSteps, engine)
	return e, userErr(err)
}

// scriptedPolicy is tasks.ScriptedPolicy; an unknown name is a usage error.
func scriptedPolicy(name string, env *tasks.Env, seed uint64) (control.Policy, error) {
	p, err := tasks.ScriptedPolicy(name, env, seed)
	return p, userErr(err)
}

// openTaskCamera is render.OpenTaskCamera on a task env: a bad camera,
// theme or size is a usage error, a renderer that cannot open a failure.
func openTaskCamera(backend, camera, theme string, w, h int, env *tasks.Env, opts render.CameraOptions) (*render.SimCamera, error) {
	c, err := render.OpenTaskCamera(backend, camera, theme, w, h, render.FilmedOf(env.Name(), env.Model(), env.Data(), env.Meta().Views), opts)
	var rerr *render.RendererError
	if err != nil && !errors.As(err, &rerr) {
		return nil, userErr(err)
	}
	return c, err
}
