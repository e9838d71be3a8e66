package tasks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/vlmrb/vlmrb/control"
)

var registry = map[string]func() task{}

func register(name string, f func() task) {
	if _, dup := registry[name]; dup {
		panic("tasks: duplicate task " + name)
	}
	registry[name] = f
}

// Names returns the registered task names in sorted order.
func Names() []string {
	n := make([]string, 0, len(registry))
	for k := range registry {
		n = append(n, k)
	}
	slices.Sort(n)
	return n
}

// Lookup returns the static description of the named task.
func Lookup(name string) (Meta, error) {
	f, ok := registry[name]
	if !ok {
		return Meta{}, &unknownError{what: "task", name: name, known: Names()}
	}
	return withScorerParts(f().meta()), nil
}

type unknownError struct {
	what, name string
	known      []string
}

func (e *unknownError) Error() string {
	return fmt.Sprintf("tasks: unknown %s %q; choose one of: %s", e.what, e.name, strings.Join(e.known, ", "))
}

// MakeVec builds a control.VecEnv of n environments of the named task and
// also returns them (for rendering, experts and progress). The VecEnv owns
// the environments: close it, not them.
func MakeVec(name string, n int, opts Options) (*control.VecEnv, []*Env, error) {
	envs := make([]*Env, n)
	v, err := control.NewVecEnv(n, func(i int) (control.Env, error) {
		e, err := Make(name, opts)
		if err != nil {
			return nil, err
		}
		envs[i] = e
		return e, nil
	})
	if err != nil {
		return nil, nil, err
	}
	return v, envs, nil
}
