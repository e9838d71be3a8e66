package study

import (
	"fmt"
	"strings"
	"testing"
)

func TestDropRetired(t *testing.T) {
	s := &Spec{Arms: []Arm{{Name: "a"}, {Name: "old", Retired: "ran code that was fixed since"}}}
	runs := []Run{{Arm: "a", Seed: 1}, {Arm: "old", Seed: 1}, {Arm: "a", Seed: 2}, {Arm: "old", Seed: 2}}
	var log []string
	got := s.dropRetired(runs, func(f string, a ...any) { log = append(log, fmt.Sprintf(f, a...)) })
	if len(got) != 2 || got[0].Arm != "a" || got[1].Arm != "a" || got[1].Seed != 2 {
		t.Fatalf("kept %+v", got)
	}
	if len(log) != 1 || !strings.Contains(log[0], "old is retired") || !strings.Contains(log[0], "fixed since") {
		t.Fatalf("log %q", log)
	}
	if runs[1].Arm != "old" {
		t.Fatal("dropRetired modified its input")
	}
}
