package study

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/tasks"
)

const freezeYAML = `
name: freeze
base: {reward: sparse, steps: 1000}
tasks: [reach]
arms:
  - name: plain
    set: {}
  - name: floor
    set: {sac.alpha_min: 0.05}
seeds: [1, 2]
`

// A new study freezes train's defaults; a study directory that predates the
// file gets them back from a run it started (the keys the study file sets
// removed), so code whose defaults changed since resolves the same grid.
func TestFreezeDefaults(t *testing.T) {
	s, err := ParseSpec([]byte(freezeYAML))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := s.freezeDefaults(dir, true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, DefaultsFile)); err != nil {
		t.Fatal("no defaults file written")
	}
	runs, err := s.Runs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if w := rundir.DefaultConfig().VLM.Width; runs[0].Config.VLM.Width != w {
		t.Errorf("fresh study: vlm.width %d, want the default %d", runs[0].Config.VLM.Width, w)
	}

	// legacy: a run of arm "floor" was started when vlm.width defaulted to 77
	legacy := t.TempDir()
	s2, _ := ParseSpec([]byte(freezeYAML))
	old, _ := s2.Runs(legacy)
	started := old[2] // reach/floor/s1
	started.Config.VLM.Width = 77
	b, err := encodeConfig(started.Config)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(started.Config.Out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(started.Config.Out, configFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s2.freezeDefaults(legacy, true); err != nil {
		t.Fatal(err)
	}
	runs, err = s2.Runs(legacy)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		if r.Config.VLM.Width != 77 {
			t.Errorf("%s: vlm.width %d, want the frozen 77", r.ID(), r.Config.VLM.Width)
		}
		want := 0.0
		if r.Arm == "floor" {
			want = 0.05
		}
		if r.Config.SAC.AlphaMin != want || r.Config.Steps != 1000 || r.Config.Seed != r.Seed {
			t.Errorf("%s: alpha_min %v steps %d seed %d: an arm's key leaked into the defaults", r.ID(), r.Config.SAC.AlphaMin, r.Config.Steps, r.Config.Seed)
		}
		if _, err := checkConfig(r); err != nil {
			t.Errorf("%s: %v", r.ID(), err)
		}
	}
}

func TestConfigDiff(t *testing.T) {
	old := []byte("a: 1\nsac: {hidden: [128, 128], gamma: 0.99}\nremoved: x\n")
	same := []byte("a: 1\nsac: {hidden: [128, 128], gamma: 0.99, added: true}\n")
	changed := []byte("a: 1\nsac: {hidden: [64, 64], gamma: 0.99}\n")
	if d, _, err := configDiff(old, same); err != nil || len(d) != 0 {
		t.Errorf("added/removed keys counted as a change: %v %v", d, err)
	}
	d, _, err := configDiff(old, changed)
	if err != nil || len(d) != 1 || !strings.HasPrefix(d[0], "sac.hidden") {
		t.Errorf("diff %v %v, want sac.hidden", d, err)
	}
	// only a larger steps extends a study
	for _, c := range []struct {
		now  string
		want bool
	}{
		{"steps: 2000\nseed: 1\n", true},
		{"steps: 500\nseed: 1\n", false},
		{"steps: 2000\nseed: 2\n", false},
		{"steps: 1000\nseed: 1\n", false},
	} {
		if _, raised, err := configDiff([]byte("steps: 1000\nseed: 1\n"), []byte(c.now)); err != nil || raised != c.want {
			t.Errorf("steps 1000 seed 1 → %q: raised %v (%v), want %v", c.now, raised, err, c.want)
		}
	}
}

// A study whose frozen defaults predate vlm.lag resolves it to 0 (each
// score written when ready, what its runs did), a new study to the
// current default, and a study file's own setting wins in both.
func TestKeysAddedAfterAStudyBegan(t *testing.T) {
	spec := freezeYAML + "\n" // arms plain and floor; add one that sets the key
	spec = strings.Replace(spec, "seeds: [1, 2]", "  - name: lagged\n    set: {vlm.lag: 7}\nseeds: [1, 2]", 1)
	s, err := ParseSpec([]byte(spec))
	if err != nil {
		t.Fatal(err)
	}
	fresh := t.TempDir()
	if err := s.freezeDefaults(fresh, true); err != nil {
		t.Fatal(err)
	}
	old := t.TempDir()
	b, err := os.ReadFile(filepath.Join(fresh, DefaultsFile))
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(l) != "lag: 64" {
			kept = append(kept, l)
		}
	}
	if len(kept) != len(strings.Split(string(b), "\n"))-1 {
		t.Fatalf("frozen defaults hold no single \"lag: 64\" line:\n%s", b)
	}
	if err := os.WriteFile(filepath.Join(old, DefaultsFile), []byte(strings.Join(kept, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]int{fresh: rundir.DefaultConfig().VLM.Scoring.Lag, old: 0} {
		s, _ := ParseSpec([]byte(spec))
		if err := s.freezeDefaults(dir, true); err != nil {
			t.Fatal(err)
		}
		runs, err := s.Runs(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range runs {
			w := want
			if r.Arm == "lagged" {
				w = 7
			}
			if r.Config.VLM.Scoring.Lag != w {
				t.Errorf("%s (%s study): vlm.lag %d, want %d", r.ID(), map[bool]string{true: "new", false: "old"}[dir == fresh], r.Config.VLM.Scoring.Lag, w)
			}
		}
	}
}

// A study one of whose runs was trained on the tabletop's old engine
// (its config.yaml says engine "" or sim on a tabletop task) cannot go on:
// its remaining runs would train on the articulated engine. A run that
// recorded engine articulated, or one not started, passes.
func TestCheckEngineRefusesOldEngineStudies(t *testing.T) {
	t.Parallel()
	s, err := ParseSpec([]byte(freezeYAML))
	if err != nil {
		t.Fatal(err)
	}
	runs, err := s.Runs(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := checkEngine(runs[0]); err != nil {
		t.Fatalf("a run not started: %v", err)
	}
	for _, tc := range []struct {
		engine string
		ok     bool
	}{{"", false}, {tasks.EngineSim, false}, {tasks.EngineArticulated, true}} {
		c := runs[0].Config
		c.Engine = tc.engine
		if err := os.MkdirAll(c.Out, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := rundir.SaveConfig(filepath.Join(c.Out, "config.yaml"), &c); err != nil {
			t.Fatal(err)
		}
		err := checkEngine(runs[0])
		if (err == nil) != tc.ok || err != nil && !strings.Contains(err.Error(), "old engine sim") {
			t.Errorf("a run of reach recorded with engine %q: %v, want ok %v", tc.engine, err, tc.ok)
		}
	}
}
