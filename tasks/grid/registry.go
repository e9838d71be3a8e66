package grid

import (
	"fmt"
	"strings"

	"github.com/vlmrb/vlmrb/tasks"
)

// The DoorKey tasks join the one task registry in package tasks, so that
// tasks.AllNames, tasks.IsDiscrete and tasks.Canonical know them.
func init() {
	tasks.RegisterFamily(tasks.Family{Name: Family, Names: Names, Discrete: true})
}

// Sizes are the registered DoorKey sizes (MiniGrid registers 5, 6, 8 and
// 16; the VLM-RB paper adds 12).
var Sizes = []int{5, 6, 8, 12, 16}

// Family is the prompt-template family of the grid tasks.
const Family = "doorkey"

// Mission is MiniGrid DoorKey's mission string.
const Mission = "use the key to open the door and then get to the goal"

// Meta is a grid task's static description.
type Meta struct {
	Name        string // registry name, e.g. "doorkey-8x8"
	Size        int    // grid side (cells, outer walls included)
	Description string // MiniGrid's mission string, used in VLM prompts
	Family      string
	Stages      []string
}

// Names returns the registered grid task names, smallest grid first.
func Names() []string {
	n := make([]string, len(Sizes))
	for i, s := range Sizes {
		n[i] = fmt.Sprintf("doorkey-%dx%d", s, s)
	}
	return n
}

// IsGrid reports whether name is a registered grid task.
func IsGrid(name string) bool {
	_, err := Lookup(name)
	return err == nil
}

// Lookup returns the static description of the named grid task.
func Lookup(name string) (Meta, error) {
	for _, s := range Sizes {
		if name == fmt.Sprintf("doorkey-%dx%d", s, s) {
			return Meta{Name: name, Size: s, Description: Mission,
				Family: Family, Stages: Stages}, nil
		}
	}
	return Meta{}, fmt.Errorf("grid: unknown task %q; choose one of: %s", name, strings.Join(Names(), ", "))
}

// Make builds the named grid task.
func Make(name string, opts Options) (*Env, error) {
	m, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	return New(m.Size, opts)
}
