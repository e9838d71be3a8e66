package study

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/vlmrb/vlmrb/internal/atomicfile"
	"github.com/vlmrb/vlmrb/internal/safefile"
	"github.com/vlmrb/vlmrb/rundir"
	"go.yaml.in/yaml/v3"
)

// DefaultsFile holds a study's frozen defaults: the values of train's
// defaults when the study began. A study outlives code changes (it resumes
// in later sessions, with newer binaries), and every run of one grid must
// resolve against the same defaults, so the grid is resolved against this
// file, not against the running binary's rundir.DefaultConfig. Keys added
// to the code later take their current defaults.
const DefaultsFile = "study-defaults.yaml"

// keysAdded are train keys added after studies here began whose default
// changes what a run does, each with the value that reproduces the code
// before the key existed. A study whose frozen defaults lack such a key
// began before it, so its runs resolve it to that value, not to the
// current default ("keys added later take their current defaults" holds
// for the others, which change nothing unless set).
var keysAdded = []struct {
	key    string
	before func(*rundir.Config)
}{
	// 2026-12-04: scores written a fixed number of steps after their clip;
	// before, each was written when its worker finished
	{"vlm.lag", func(c *rundir.Config) { c.VLM.Scoring.Lag = 0 }},
}

// applyKeysAdded sets, in cfg, every key of keysAdded that frozen (a
// study's frozen defaults) does not hold to its value from before.
func applyKeysAdded(frozen []byte, cfg *rundir.Config) error {
	var m map[string]any
	if err := yaml.Unmarshal(frozen, &m); err != nil {
		return fmt.Errorf("study defaults: %w", err)
	}
	flat := flattenKeys(m, "")
	for _, k := range keysAdded {
		if _, ok := flat[k.key]; !ok {
			k.before(cfg)
		}
	}
	return nil
}

// freezeDefaults loads dir's frozen defaults into s, creating them on the
// first run: from rundir.DefaultConfig for a new study, or, for a study
// directory that predates the file, from the config of a run it already
// started with every key the study file sets removed (what remains is what
// the defaults were then). With write false (a dry run) they are loaded or
// computed the same way but nothing is written.
func (s *Spec) freezeDefaults(dir string, write bool) error {
	path := filepath.Join(dir, DefaultsFile)
	b, err := safefile.ReadFile(path, rundir.MaxConfigBytes)
	if err == nil {
		s.defaults = b
		return nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("study: %w", err)
	}
	var frozen []byte
	started, err := s.startedConfig(dir)
	if err != nil {
		return err
	}
	if started != nil {
		flat := flattenKeys(started, "")
		for k := range s.overlayKeys() {
			for fk := range flat {
				if fk == k || strings.HasPrefix(fk, k+".") {
					delete(flat, fk)
				}
			}
		}
		for _, k := range []string{"task", "seed", "out"} {
			delete(flat, k)
		}
		nested, err := expandDots(flat)
		if err != nil {
			return err
		}
		if frozen, err = yaml.Marshal(nested); err != nil {
			return err
		}
	} else {
		if frozen, err = yaml.Marshal(rundir.DefaultConfig()); err != nil {
			return err
		}
	}
	head := "# train's defaults when this study began (robot-train study run resolves every run against them)\n"
	if write {
		if err := atomicfile.WriteBytes(path, append([]byte(head), frozen...)); err != nil {
			return fmt.Errorf("study: %w", err)
		}
	}
	s.defaults = frozen
	return nil
}

// startedConfig returns the config (as a YAML map) of the first run of the
// grid that has been started in dir, or nil.
func (s *Spec) startedConfig(dir string) (map[string]any, error) {
	for _, task := range s.Tasks {
		for _, arm := range s.Arms {
			for _, seed := range s.Seeds {
				id := Run{Task: task, Arm: arm.Name, Seed: seed}.ID()
				b, err := safefile.ReadFile(filepath.Join(dir, "runs", filepath.FromSlash(id), configFile), rundir.MaxConfigBytes)
				if err != nil {
					continue
				}
				var m map[string]any
				if err := yaml.Unmarshal(b, &m); err != nil {
					return nil, fmt.Errorf("study: %s: %w", id, err)
				}
				return m, nil
			}
		}
	}
	return nil, nil
}

// overlayKeys is every dotted key the study file sets in base, task_set or
// an arm.
func (s *Spec) overlayKeys() map[string]bool {
	keys := map[string]bool{}
	add := func(m map[string]any) {
		x, err := expandDots(m)
		if err != nil {
			return
		}
		for k := range flattenKeys(x, "") {
			keys[k] = true
		}
	}
	add(s.Base)
	for _, m := range s.TaskSet {
		add(m)
	}
	for _, a := range s.Arms {
		add(a.Set)
	}
	return keys
}

// flatten turns nested maps into dotted keys; lists and scalars are leaves.
func flattenKeys(m map[string]any, prefix string) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		key := k
		if prefix != "" {
			key = prefix + "." + k
		}
		if sub, ok := v.(map[string]any); ok {
			for sk, sv := range flattenKeys(sub, key) {
				out[sk] = sv
			}
			continue
		}
		out[key] = v
	}
	return out
}

// configDiff lists the keys whose values differ between two encoded
// configs, over the keys both have (a key only one has was added to or
// removed from the code in between and says nothing about the run), out
// aside. stepsRaised: the one difference is a larger `steps`.
func configDiff(old, now []byte) (diff []string, stepsRaised bool, err error) {
	var a, b map[string]any
	if err := yaml.Unmarshal(old, &a); err != nil {
		return nil, false, err
	}
	if err := yaml.Unmarshal(now, &b); err != nil {
		return nil, false, err
	}
	fa, fb := flattenKeys(a, ""), flattenKeys(b, "")
	var keys []string
	for k, va := range fa {
		if k == "out" {
			continue // a study directory may be moved or named by another path
		}
		if vb, ok := fb[k]; ok && !reflect.DeepEqual(va, vb) {
			keys = append(keys, k)
			diff = append(diff, fmt.Sprintf("%s: %v → %v", k, va, vb))
		}
	}
	sort.Strings(diff)
	if len(keys) == 1 && keys[0] == "steps" {
		so, okA := toInt(fa["steps"])
		sn, okB := toInt(fb["steps"])
		stepsRaised = okA && okB && sn > so
	}
	return diff, stepsRaised, nil
}

// toInt reads a YAML-decoded integer (steps); false for anything else.
func toInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int:
		return int64(x), true
	case int64:
		return x, true
	case uint64:
		return int64(x), true
	case float64:
		return int64(x), x == float64(int64(x))
	}
	return 0, false
}
