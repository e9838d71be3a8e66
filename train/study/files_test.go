package study

import (
	"path/filepath"
	"testing"
)

// Every committed study file parses and resolves to valid configs (a typo
// in an arm would otherwise surface hours into a study).
func TestCommittedStudiesLoad(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "studies", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no study files found in studies/")
	}
	for _, f := range files {
		s, err := LoadSpec(f)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		runs, _ := s.Runs("")
		t.Logf("%s: %d tasks × %d arms × %d seeds = %d runs", filepath.Base(f), len(s.Tasks), len(s.Arms), len(s.Seeds), len(runs))
	}
}
