package layers

import (
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// modulePath is the core module; nested modules (viam, onnx/gonnxcheck) live
// under it with import paths that follow their directories.
const modulePath = "github.com/vlmrb/vlmrb"

// floor is one storey of DESIGN's dependency direction. A package may import
// packages on strictly lower floors (and internal/ leaves), never its own floor
// or a higher one. A name ending in "/..." matches that folder and everything
// below it.
type floor struct {
	what string
	pkgs []string
}

// floors is the order as built (docs/architecture.md), listed bottom first;
// top first, an import pointing down:
// cmd → train/study → train → rundir → {vlmreward, vlmprio, sac, dqn, tasks/grid} → tasks → control
// → onnx/policy → onnx → {replay, nn, render, hw, lerobot} → sim/mjcf → sim/articulated → {sim, sim/convex, frame, stats}.
// It refines DESIGN.md's order, splitting floors where packages of one floor
// import each other (tasks imports control; tasks/grid registers into tasks),
// and places rundir, which DESIGN sketched as a runs package above train,
// below it (see the comment at its floor).
var floors = []floor{
	{"ground: spatial math, collision geometry, the frame type and result statistics", []string{"sim", "sim/convex", "frame", "stats"}},
	{"the robot engine over collision geometry", []string{"sim/articulated"}},
	{"model import onto the engine", []string{"sim/mjcf"}},
	{"storage, networks, cameras and dataset formats", []string{"replay", "nn", "render", "hw", "lerobot"}},
	{"the policy format over networks", []string{"onnx"}},
	{"policy adapters over the format", []string{"onnx/policy"}},
	{"the control-stack face", []string{"control"}},
	{"the task registry and its tabletop tasks", []string{"tasks"}},
	{"task families, algorithms, scoring and rewards", []string{"tasks/grid", "sac", "dqn", "vlmprio", "vlmreward"}},
	// rundir sits below the loop, not above it as DESIGN.md first sketched:
	// the loop writes what rundir defines (the config, its validation, the
	// checkpoint layout, the metrics log), so a package above train could
	// not own them without a cycle; and front ends that only read runs
	// (eval, export, render, score, record, viam, python) import rundir and
	// never the loop.
	{"the run directory: its config, checkpoints and metrics; evaluate, load, export, record", []string{"rundir"}},
	{"the loop", []string{"train"}},
	{"studies over runs", []string{"train/study"}},
	// onnx/onnxfixture builds the ONNX checks' policies from trained-shape
	// agents of every family: test tooling beside its consumers
	// (onnx/gonnxcheck, scripts/onnx-check.sh), above the algorithms.
	{"front ends and check tooling", []string{"cmd/...", "bench/...", "viam/...", "python/...", "onnx/gonnxcheck", "onnx/onnxfixture/...", "scripts/..."}},
}

// noTrain lists front ends that only read runs, tasks, cameras or scorers:
// they must not import the loop (issue 48: `train` is the loop).
var noTrain = []string{"viam/...", "python/..."}

// trainPkgs are the packages noTrain forbids.
var trainPkgs = []string{"train", "train/..."}

// allowed lists today's known violations, "from -> to", each with the issue
// that removes it. When an import is removed, delete its line: a stale entry
// fails the test, so this list can only shrink.
var allowed = map[string]string{
	// issue 48: onnx/policy is an adapter above sac and dqn sitting in the
	// low policy-format library; it moves beside the algorithms.
	"onnx/policy -> control": "issue 48",
	"onnx/policy -> dqn":     "issue 48",
	"onnx/policy -> sac":     "issue 48",
}

func matches(pattern, pkg string) bool {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return pkg == base || strings.HasPrefix(pkg, base+"/")
	}
	return pattern == pkg
}

// floorOf returns the index of pkg's floor, or -1 when no floor names it.
// The most specific pattern wins, so "onnx/gonnxcheck" is not read as "onnx".
func floorOf(pkg string) int {
	best, bestLen := -1, -1
	for i, f := range floors {
		for _, p := range f.pkgs {
			if matches(p, pkg) && len(p) > bestLen {
				best, bestLen = i, len(p)
			}
		}
	}
	return best
}

func isInternal(pkg string) bool { return matches("internal/...", pkg) }

// sameTree reports whether from and to sit under one "/..." pattern.
func sameTree(from, to string) bool {
	for _, f := range floors {
		for _, p := range f.pkgs {
			if strings.HasSuffix(p, "/...") && matches(p, from) && matches(p, to) {
				return true
			}
		}
	}
	return false
}

func anyMatch(patterns []string, pkg string) bool {
	for _, p := range patterns {
		if matches(p, pkg) {
			return true
		}
	}
	return false
}

// violations checks a graph (package → the project packages it imports, both
// relative to the module root) against the floors and returns one line per
// import that breaks them, sorted. It is pure so the test can feed it
// synthetic graphs.
func violations(graph map[string][]string) []string {
	var out []string
	for from, imports := range graph {
		if !isInternal(from) && floorOf(from) < 0 {
			out = append(out, fmt.Sprintf("%s: on no floor; add it to floors in internal/layers/layers_test.go where DESIGN.md places it", from))
			continue
		}
		for _, to := range imports {
			switch {
			case isInternal(from):
				if !isInternal(to) {
					out = append(out, fmt.Sprintf("%s -> %s: internal/ holds only leaves; move the code that needs %s out of internal/", from, to, to))
				}
			case isInternal(to):
				// leaves may be imported from any floor
			case sameTree(from, to):
				// a front end and its own helpers
			case floorOf(to) < 0:
				out = append(out, fmt.Sprintf("%s -> %s: %s is on no floor; add it to floors", from, to, to))
			case floorOf(to) >= floorOf(from):
				out = append(out, fmt.Sprintf("%s -> %s: %q (floor %d) may import only floors below it, and %s is on floor %d (%q); move the code to the package that owns it",
					from, to, floors[floorOf(from)].what, floorOf(from), to, floorOf(to), floors[floorOf(to)].what))
			case anyMatch(noTrain, from) && anyMatch(trainPkgs, to):
				out = append(out, fmt.Sprintf("%s -> %s: this front end only reads runs, tasks, cameras or scorers; import the package that owns the factory, not the loop", from, to))
			}
		}
	}
	sort.Strings(out)
	return out
}

// edge returns the allow-list key of a violation line.
func edge(v string) string {
	k, _, _ := strings.Cut(v, ":")
	return k
}

// moduleRoot walks up from the test's directory to the folder whose go.mod
// declares the core module.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && strings.HasPrefix(string(b), "module "+modulePath+"\n") {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("the core go.mod not found above the test directory")
		}
		dir = parent
	}
}

// importGraph parses the imports of every non-test Go file under root,
// nested modules included, and keeps those of the project.
func importGraph(t *testing.T, root string) map[string][]string {
	t.Helper()
	sets := map[string]map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		from := filepath.ToSlash(rel)
		if sets[from] == nil {
			sets[from] = map[string]bool{}
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if to, ok := strings.CutPrefix(p, modulePath+"/"); ok {
				sets[from][to] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	graph := map[string][]string{}
	for from, set := range sets {
		for to := range set {
			graph[from] = append(graph[from], to)
		}
		sort.Strings(graph[from])
	}
	return graph
}

// TestImportsPointDown fails when a package imports a package on its own
// floor or above, when internal/ imports outside internal/, when a front end
// that only reads runs imports train, or when an allow-list entry no longer
// matches a real import.
func TestImportsPointDown(t *testing.T) {
	root := moduleRoot(t)
	graph := importGraph(t, root)
	if len(graph) < 20 {
		t.Fatalf("found only %d packages under %s; the walk is broken", len(graph), root)
	}
	seen := map[string]bool{}
	for _, v := range violations(graph) {
		if _, ok := allowed[edge(v)]; ok {
			seen[edge(v)] = true
			continue
		}
		t.Error(v)
	}
	for k, why := range allowed {
		if !seen[k] {
			t.Errorf("allow-list entry %q (%s) matches no upward import any more: delete it from allowed", k, why)
		}
	}
}

// TestViolationsOnSyntheticGraphs proves the checker catches what it must and
// passes what it must, without editing real code.
func TestViolationsOnSyntheticGraphs(t *testing.T) {
	cases := []struct {
		name  string
		graph map[string][]string
		want  []string // allow-list keys of the expected violations
	}{
		{"downward imports pass", map[string][]string{
			"train":           {"sac", "tasks", "vlmprio", "replay", "sim", "internal/atomicfile"},
			"tasks":           {"control", "sim", "sim/mjcf"},
			"cmd/robot-train": {"train", "train/study", "render"},
		}, nil},
		{"ground importing the loop", map[string][]string{"sim": {"train"}}, []string{"sim -> train"}},
		{"same floor", map[string][]string{"vlmprio": {"sac"}}, []string{"vlmprio -> sac"}},
		{"render importing hw", map[string][]string{"render": {"hw"}}, []string{"render -> hw"}},
		{"internal importing a project package", map[string][]string{"internal/newhelper": {"sac"}}, []string{"internal/newhelper -> sac"}},
		{"internal importing internal", map[string][]string{"internal/curveplot": {"internal/atomicfile"}}, nil},
		{"viam importing train", map[string][]string{"viam/vlmviam": {"train", "tasks"}}, []string{"viam/vlmviam -> train"}},
		{"python importing train", map[string][]string{"python/capi": {"train", "rundir"}}, []string{"python/capi -> train"}},
		{"the run directory importing the loop", map[string][]string{"rundir": {"train"}}, []string{"rundir -> train"}},
		{"the loop over the run directory", map[string][]string{"train": {"rundir"}, "viam/vlmviam": {"rundir"}}, nil},
		{"a new package on no floor", map[string][]string{"newpkg": {"sim"}}, []string{"newpkg"}},
		{"a front end and its helpers", map[string][]string{"viam/cmd/vlmrb-viam": {"viam/vlmviam"}}, nil},
		{"nested module beats its parent", map[string][]string{"onnx/gonnxcheck": {"onnx", "train"}}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, v := range violations(c.graph) {
				got = append(got, edge(v))
			}
			if strings.Join(got, "|") != strings.Join(c.want, "|") {
				t.Errorf("violations = %q, want %q", got, c.want)
			}
		})
	}
}
