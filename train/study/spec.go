package study

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/vlmrb/vlmrb/internal/safefile"
	"github.com/vlmrb/vlmrb/rundir"
	"go.yaml.in/yaml/v3"
)

// Spec is a study file: a grid of tasks × arms × seeds over a base
// configuration. Every overlay (base, a task's, an arm's) holds keys of a
// train config file, nested (`buffer: {lambda_max: 0.25}`) or dotted
// (`buffer.lambda_max: 0.25`); they are applied in the order defaults →
// base → task → arm, then task, seed and run directory are set.
type Spec struct {
	Name        string                    `yaml:"name"`
	Description string                    `yaml:"description"`
	Base        map[string]any            `yaml:"base"`
	Tasks       []string                  `yaml:"tasks"`
	TaskSet     map[string]map[string]any `yaml:"task_set"` // per-task overlays
	Arms        []Arm                     `yaml:"arms"`
	Seeds       []uint64                  `yaml:"seeds"`
	Baseline    string                    `yaml:"baseline"`  // arm the report compares against (default: the first)
	Metric      string                    `yaml:"metric"`    // learning-curve metric (default eval/success_rate)
	BLASCore    string                    `yaml:"blas_core"` // OpenBLAS kernel the runs are pinned to (default: see BLASCoreFile)

	src      []byte // the file as read (copied into the study directory)
	defaults []byte // frozen defaults (YAML) the grid resolves against; nil: rundir.DefaultConfig
}

// Arm is a named overlay of config keys.
type Arm struct {
	Name string         `yaml:"name"`
	Set  map[string]any `yaml:"set"`
	// Retired, when set, says why the arm's runs can no longer be
	// regenerated (e.g. the code they ran was fixed since): `study run`
	// never starts or resumes them; the report still shows the runs there are.
	Retired string `yaml:"retired"`
}

// Run is one cell of the grid.
type Run struct {
	Task   string
	Arm    string
	Seed   uint64
	Config rundir.Config // resolved (Out is the run directory)
}

// ID is the run's path below the study's runs/ directory: TASK/ARM/sSEED.
func (r Run) ID() string { return fmt.Sprintf("%s/%s/s%d", r.Task, r.Arm, r.Seed) }

// DefaultMetric is the curve a report aggregates unless the spec names another.
const DefaultMetric = "eval/success_rate"

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// maxNameLen bounds a study, task or arm name: each is a directory name
// (at most 255 bytes on common file systems) of every run's path.
const maxNameLen = 100

// maxSpecBytes bounds a study file (a grid spec is a few KB).
const maxSpecBytes = 1 << 20

// LoadSpec reads and checks a study file. Every run of the grid is
// resolved against rundir.DefaultConfig and validated, so a typo in any
// overlay is reported before anything runs.
func LoadSpec(path string) (*Spec, error) {
	// a FIFO or device (/dev/zero) is refused unread; a file growing
	// past the limit while it is read is cut off and refused
	b, err := safefile.ReadFile(path, maxSpecBytes)
	if errors.Is(err, safefile.ErrTooLarge) {
		return nil, fmt.Errorf("study: %s is larger than %d bytes, the limit for a study file", path, maxSpecBytes)
	}
	if err != nil {
		return nil, fmt.Errorf("study: %w", err)
	}
	s, err := ParseSpec(b)
	if err != nil {
		return nil, fmt.Errorf("study %s: %w", path, err)
	}
	return s, nil
}

// ParseSpec decodes and checks a study spec.
func ParseSpec(b []byte) (*Spec, error) {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	var s Spec
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%w (keys: name, description, base, tasks, task_set, arms, seeds, baseline, metric)", err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, fmt.Errorf("more than one YAML document: a study file holds one")
	}
	if err := s.check(); err != nil {
		return nil, err
	}
	if _, err := s.Runs(""); err != nil {
		return nil, err
	}
	s.src = append([]byte(nil), b...)
	return &s, nil
}

func (s *Spec) check() error {
	if s.Name == "" || !nameRE.MatchString(s.Name) || len(s.Name) > maxNameLen {
		return fmt.Errorf("name %q: give the study a name of letters, digits, '.', '_' or '-'", s.Name)
	}
	if len(s.Tasks) == 0 || len(s.Arms) == 0 || len(s.Seeds) == 0 {
		return fmt.Errorf("a study needs at least one task, one arm and one seed (tasks: %d, arms: %d, seeds: %d)", len(s.Tasks), len(s.Arms), len(s.Seeds))
	}
	if err := unique("task", s.Tasks); err != nil {
		return err
	}
	arms := make([]string, len(s.Arms))
	for i, a := range s.Arms {
		arms[i] = a.Name
	}
	if err := unique("arm", arms); err != nil {
		return err
	}
	seeds := make([]string, len(s.Seeds))
	for i, v := range s.Seeds {
		seeds[i] = strconv.FormatUint(v, 10)
	}
	if err := unique("seed", seeds); err != nil {
		return err
	}
	for t := range s.TaskSet {
		if !contains(s.Tasks, t) {
			return fmt.Errorf("task_set has %q, which is not in tasks %v", t, s.Tasks)
		}
	}
	if s.Baseline != "" && !contains(arms, s.Baseline) {
		return fmt.Errorf("baseline %q is not one of the arms %v", s.Baseline, arms)
	}
	return nil
}

func unique(kind string, names []string) error {
	seen := map[string]bool{}
	for _, n := range names {
		if kind != "seed" && !nameRE.MatchString(n) {
			return fmt.Errorf("%s name %q: use letters, digits, '.', '_' or '-'", kind, n)
		}
		if len(n) > maxNameLen {
			return fmt.Errorf("%s name %.20q… is %d characters long: at most %d (it names a directory)", kind, n, len(n), maxNameLen)
		}
		if seen[n] {
			return fmt.Errorf("%s %q appears twice", kind, n)
		}
		seen[n] = true
	}
	return nil
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// BaselineArm is the arm the report compares against.
func (s *Spec) BaselineArm() string {
	if s.Baseline != "" {
		return s.Baseline
	}
	return s.Arms[0].Name
}

// MetricKey is the metric the report aggregates.
func (s *Spec) MetricKey() string {
	if s.Metric != "" {
		return s.Metric
	}
	return DefaultMetric
}

// SpecFile is the copy of the study file kept in a study directory.
const SpecFile = "study.yaml"

// LoadDir reads the study file kept in a study directory by Runner.Run,
// with the study's frozen defaults.
func LoadDir(dir string) (*Spec, error) {
	s, err := LoadSpec(filepath.Join(dir, SpecFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("study: %s has no %s: is it the --out directory of `robot-train study run`?", dir, SpecFile)
	}
	if err != nil {
		return nil, err
	}
	b, err := safefile.ReadFile(filepath.Join(dir, DefaultsFile), rundir.MaxConfigBytes)
	switch {
	case err == nil:
		s.defaults = b
	case !errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("study: %w", err)
	}
	return s, nil
}

// Runs expands the grid in its canonical order (task, then arm, then seed,
// each in the file's order) with run directories below dir/runs. Sharding
// and the report rely on this order.
func (s *Spec) Runs(dir string) ([]Run, error) {
	var out []Run
	for _, task := range s.Tasks {
		for _, arm := range s.Arms {
			for _, seed := range s.Seeds {
				r := Run{Task: task, Arm: arm.Name, Seed: seed}
				cfg, err := s.resolve(task, arm, seed, filepath.Join(dir, "runs", filepath.FromSlash(r.ID())))
				if err != nil {
					return nil, fmt.Errorf("run %s: %w", r.ID(), err)
				}
				r.Config = cfg
				out = append(out, r)
			}
		}
	}
	return out, nil
}

// resolve applies defaults → base → task overlay → arm overlay and fixes
// task, seed and run directory; the result is validated.
func (s *Spec) resolve(task string, arm Arm, seed uint64, out string) (rundir.Config, error) {
	merged := map[string]any{}
	for _, o := range []struct {
		what string
		m    map[string]any
	}{{"base", s.Base}, {"task_set." + task, s.TaskSet[task]}, {"arm " + arm.Name, arm.Set}} {
		for _, k := range []string{"task", "seed", "out"} {
			if _, ok := o.m[k]; ok {
				return rundir.Config{}, fmt.Errorf("%s sets %q: the study sets task, seed and out itself (use tasks:, seeds: and --out)", o.what, k)
			}
		}
		x, err := expandDots(o.m)
		if err != nil {
			return rundir.Config{}, fmt.Errorf("%s: %w", o.what, err)
		}
		deepMerge(merged, x)
	}
	y, err := yaml.Marshal(merged)
	if err != nil {
		return rundir.Config{}, err
	}
	cfg := rundir.DefaultConfig()
	if s.defaults != nil {
		// leniently: a key removed from the code since the study began is dropped
		if err := yaml.Unmarshal(s.defaults, &cfg); err != nil {
			return cfg, fmt.Errorf("study defaults: %w", err)
		}
		if err := applyKeysAdded(s.defaults, &cfg); err != nil {
			return cfg, err
		}
	}
	if err := rundir.LoadConfig(bytes.NewReader(y), &cfg); err != nil {
		return cfg, err
	}
	cfg.Task, cfg.Seed, cfg.Out = task, seed, out
	if cfg.Out == "" {
		cfg.Out = "."
	}
	// the study file is this config's edge: checked here, once; the
	// training child it is handed to reads it from a file, its own edge
	_, err = cfg.Validated()
	return cfg, err
}

// expandDots turns {"a.b": 1, "a": {"c": 2}} into {"a": {"b": 1, "c": 2}}.
func expandDots(m map[string]any) (map[string]any, error) {
	out := map[string]any{}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := m[k]
		if sub, ok := v.(map[string]any); ok {
			e, err := expandDots(sub)
			if err != nil {
				return nil, err
			}
			v = e
		}
		parts := strings.Split(k, ".")
		cur := out
		for i, p := range parts {
			if p == "" {
				return nil, fmt.Errorf("key %q has an empty part", k)
			}
			if i == len(parts)-1 {
				if old, ok := cur[p].(map[string]any); ok {
					if nv, ok := v.(map[string]any); ok {
						deepMerge(old, nv)
						break
					}
				}
				cur[p] = v
				break
			}
			next, ok := cur[p].(map[string]any)
			if !ok {
				next = map[string]any{}
				cur[p] = next
			}
			cur = next
		}
	}
	return out, nil
}

// deepMerge writes src over dst; nested maps merge, anything else replaces.
func deepMerge(dst, src map[string]any) {
	for k, v := range src {
		if sv, ok := v.(map[string]any); ok {
			if dv, ok := dst[k].(map[string]any); ok {
				deepMerge(dv, sv)
				continue
			}
			c := map[string]any{}
			deepMerge(c, sv)
			dst[k] = c
			continue
		}
		dst[k] = v
	}
}
