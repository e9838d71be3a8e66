package study

import (
	"bytes"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"github.com/vlmrb/vlmrb/rundir"
	"go.yaml.in/yaml/v3"
)

// TestCommittedRunConfigsKeepTheirMeaning: every run config committed in
// the studies' archives (config.yaml and study-config.yaml of each run)
// and every study's frozen defaults still load under the strict loader,
// and written again they give every key they held its old value. A key
// renamed, moved or re-typed in train's Config (say, by embedding another
// package's config) fails here naming the file and the key; keys added
// since only appear, with their defaults.
func TestCommittedRunConfigsKeepTheirMeaning(t *testing.T) {
	t.Parallel()
	studies, _ := filepath.Glob(filepath.Join("..", "..", "studies", "results", "*", RunsArchive))
	if len(studies) == 0 {
		t.Skip("no committed study archives in this checkout")
	}
	n, seen := 0, map[string]bool{}
	check := func(name string, b []byte) {
		if seen[string(b)] {
			return // a run's config.yaml is mostly its study-config.yaml
		}
		seen[string(b)] = true
		n++
		c := rundir.DefaultConfig()
		if err := rundir.LoadConfig(bytes.NewReader(b), &c); err != nil {
			t.Errorf("%s: %v", name, err)
			return
		}
		out, err := yaml.Marshal(c) // what SaveConfig writes, less its secrets (none here)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var was, now map[string]any
		if err := yaml.Unmarshal(b, &was); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := yaml.Unmarshal(out, &now); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		fw, fn := flattenKeys(was, ""), flattenKeys(now, "")
		var bad []string
		for k, v := range fw {
			if got, ok := fn[k]; !ok || !reflect.DeepEqual(got, v) {
				bad = append(bad, k)
			}
		}
		sort.Strings(bad)
		if len(bad) > 0 {
			t.Errorf("%s: keys read and written differently: %v", name, bad)
		}
	}
	for _, a := range studies {
		dir := filepath.Dir(a)
		files, err := ReadRunsArchive(dir)
		if err != nil {
			t.Fatal(err)
		}
		for p, b := range files {
			if base := path.Base(p); base == "config.yaml" || base == configFile {
				check(filepath.Join(dir, filepath.FromSlash(p)), b)
			}
		}
		if b, err := os.ReadFile(filepath.Join(dir, DefaultsFile)); err == nil {
			check(filepath.Join(dir, DefaultsFile), b)
		}
	}
	t.Logf("%d distinct committed configs", n)
}
