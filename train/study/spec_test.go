package study

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vlmrb/vlmrb/rundir"
)

const gridYAML = `
name: grid
base:
  reward: sparse
  steps: 2000
  sac: {hidden: [32, 32], batch_size: 32}
tasks: [reach, window-open, push]
task_set:
  push: {steps: 4000}
arms:
  - name: uniform
    set: {replay: uniform}
  - name: lam25
    set: {replay: vlmrb, scorer: oracle, buffer.lambda_max: 0.25}
seeds: [3, 1, 2]
`

func TestSpecOverlays(t *testing.T) {
	s, err := ParseSpec([]byte(gridYAML))
	if err != nil {
		t.Fatal(err)
	}
	runs, err := s.Runs("out")
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 3*2*3 {
		t.Fatalf("%d runs, want 18", len(runs))
	}
	// canonical order: task, arm, seed in file order
	if runs[0].ID() != "reach/uniform/s3" || runs[1].ID() != "reach/uniform/s1" || runs[3].ID() != "reach/lam25/s3" {
		t.Errorf("order: %s %s %s", runs[0].ID(), runs[1].ID(), runs[3].ID())
	}
	for _, r := range runs {
		c := r.Config
		if c.Task != r.Task || c.Seed != r.Seed || c.Reward != "sparse" || c.SAC.Hidden[0] != 32 || c.SAC.BatchSize != 32 {
			t.Errorf("%s: base not applied: %+v", r.ID(), c)
		}
		// an untouched nested key keeps its default
		if d := rundir.DefaultConfig().SAC.Gamma; c.SAC.Gamma != d {
			t.Errorf("%s: sac.gamma %v, want the default %v", r.ID(), c.SAC.Gamma, d)
		}
		wantSteps := int64(2000)
		if r.Task == "push" {
			wantSteps = 4000
		}
		if c.Steps != wantSteps {
			t.Errorf("%s: steps %d, want %d", r.ID(), c.Steps, wantSteps)
		}
		switch r.Arm {
		case "uniform":
			if c.Replay != "uniform" || c.Buffer.VLMRB.LambdaMax != 0.5 {
				t.Errorf("%s: replay %s λ %v", r.ID(), c.Replay, c.Buffer.VLMRB.LambdaMax)
			}
		case "lam25":
			if c.Replay != "vlmrb" || c.Scorer != "oracle" || c.Buffer.VLMRB.LambdaMax != 0.25 {
				t.Errorf("%s: replay %s scorer %s λ %v", r.ID(), c.Replay, c.Scorer, c.Buffer.VLMRB.LambdaMax)
			}
		}
		if want := "out/runs/" + r.ID(); c.Out != want {
			t.Errorf("out %s, want %s", c.Out, want)
		}
	}
}

func TestSpecErrors(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{strings.Replace(gridYAML, "buffer.lambda_max", "buffer.lamda_max", 1), "lamda_max"},
		{strings.Replace(gridYAML, "name: grid", "name: a/b", 1), "name"},
		{strings.Replace(gridYAML, "seeds: [3, 1, 2]", "seeds: [3, 1, 3]", 1), "seed \"3\" appears twice"},
		{strings.Replace(gridYAML, "{replay: uniform}", "{replay: uniform, seed: 4}", 1), "sets \"seed\""},
		{strings.Replace(gridYAML, "push: {steps: 4000}", "drawer: {steps: 4000}", 1), "not in tasks"},
		{strings.Replace(gridYAML, "{replay: uniform}", "{replay: unifrom}", 1), "unifrom"},
		{gridYAML + "\nbogus: 1\n", "bogus"},
		{gridYAML + "\n---\nname: two\n", "more than one YAML document"},
		{gridYAML + "\nbaseline: nope\n", "baseline"},
		// a 300-character arm name would fail at mkdir after other runs trained
		{strings.Replace(gridYAML, "name: lam25", "name: "+strings.Repeat("a", 300), 1), "at most 100"},
	} {
		_, err := ParseSpec([]byte(c.yaml))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("want an error with %q, got %v", c.want, err)
		}
	}
}

// Shards 1/N..N/N partition the grid: every run exactly once.
func TestShardsPartition(t *testing.T) {
	s, err := ParseSpec([]byte(gridYAML))
	if err != nil {
		t.Fatal(err)
	}
	runs, _ := s.Runs("")
	for _, n := range []int{1, 2, 3, 5, 18, 25} {
		seen := map[string]int{}
		for k := 1; k <= n; k++ {
			sh, err := ParseShard(fmt.Sprintf("%d/%d", k, n))
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range sh.Select(runs) {
				seen[r.ID()]++
			}
		}
		if len(seen) != len(runs) {
			t.Errorf("N=%d: %d distinct runs, want %d", n, len(seen), len(runs))
		}
		for id, c := range seen {
			if c != 1 {
				t.Errorf("N=%d: %s in %d shards", n, id, c)
			}
		}
	}
	for _, bad := range []string{"0/3", "4/3", "3", "a/b", "1/0"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q) accepted", bad)
		}
	}
}

func TestFilterSelects(t *testing.T) {
	s, err := ParseSpec([]byte(gridYAML))
	if err != nil {
		t.Fatal(err)
	}
	runs, _ := s.Runs("")
	f := Filter{Arms: ParseList(" lam25 ,"), Tasks: ParseList("reach,push")}
	if err := f.Check(s); err != nil {
		t.Fatal(err)
	}
	got := f.Select(runs)
	if len(got) != 2*3 { // one arm × two tasks × three seeds
		t.Fatalf("%d runs selected, want 6", len(got))
	}
	for _, r := range got {
		if r.Arm != "lam25" || r.Task == "window-open" {
			t.Errorf("selected %s", r.ID())
		}
	}
	if n := len((Filter{}).Select(runs)); n != len(runs) {
		t.Errorf("empty filter kept %d of %d runs", n, len(runs))
	}
	// a filtered study still shards into disjoint parts that cover it
	seen := map[string]int{}
	for k := 1; k <= 4; k++ {
		for _, r := range (Shard{k, 4}).Select(got) {
			seen[r.ID()]++
		}
	}
	if len(seen) != len(got) {
		t.Errorf("shards of the filtered grid cover %d runs, want %d", len(seen), len(got))
	}
	for _, bad := range []Filter{{Arms: []string{"lam-25"}}, {Tasks: []string{"drawer-open"}}} {
		err := bad.Check(s)
		if err == nil || !strings.Contains(err.Error(), "it has") {
			t.Errorf("Check(%+v) = %v, want an error listing the study's names", bad, err)
		}
	}
}
