package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// record writes a dataset that train --demos takes; a second record into
// the same directory is refused; --demos N still means scripted episodes.
func TestRecordThenTrainWithDemos(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ds := filepath.Join(dir, "ds")
	code, out, errOut := runCLI(t, "record", "--task", "reach", "--policy", "expert", "--episodes", "2", "--num-envs", "2",
		"--max-episode-len", "30", "--cameras", "", "--lerobot", ds, "--json")
	if code != 0 {
		t.Fatalf("record: exit %d: %s", code, errOut)
	}
	var rep recordReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("record --json: %v: %s", err, out)
	}
	if rep.Episodes != 2 || rep.Frames != 60 || len(rep.Lengths) != 2 || rep.Codec != "" {
		t.Fatalf("report %+v", rep)
	}
	if code, _, errOut := runCLI(t, "record", "--task", "reach", "--episodes", "1", "--cameras", "", "--lerobot", ds); code != 1 || !strings.Contains(errOut, "already exists") {
		t.Fatalf("second record: exit %d: %s", code, errOut)
	}
	run := filepath.Join(dir, "run")
	// record's defaults are train's: no --reward on either side
	code, out, errOut = runCLI(t, "train", "--task", "reach", "--steps", "100", "--num-envs", "2",
		"--max-episode-len", "30", "--learning-starts", "80", "--hidden", "8,8", "--batch-size", "16", "--eval-episodes", "1",
		"--demos", ds, "--out", run, "--quiet")
	if code != 0 {
		t.Fatalf("train --demos %s: exit %d: %s\n%s", ds, code, errOut, out)
	}
	code, _, errOut = runCLI(t, "train", "--task", "push", "--steps", "100", "--demos", ds, "--out", filepath.Join(dir, "run2"), "--quiet")
	if code != 2 || !strings.Contains(errOut, "recorded on task reach") {
		t.Fatalf("train --demos on another task: exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "run2")); !os.IsNotExist(err) {
		t.Fatalf("the refused start left its run directory: %v", err)
	}
	// a dataset at another rate than the task's control rate is refused:
	// its frames are not control steps
	info := filepath.Join(ds, "meta", "info.json")
	b, err := os.ReadFile(info)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	hz := m["fps"].(float64)
	m["fps"] = 30.0
	b, _ = json.Marshal(m)
	if err := os.WriteFile(info, b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runCLI(t, "train", "--task", "reach", "--steps", "100", "--demos", ds, "--out", filepath.Join(dir, "run3"), "--quiet")
	if code != 2 || !strings.Contains(errOut, "is at 30 fps") || !strings.Contains(errOut, fmt.Sprintf("control rate is %g Hz", hz)) {
		t.Fatalf("train --demos at 30 fps on a %g Hz task: exit %d: %s", hz, code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "run3")); !os.IsNotExist(err) {
		t.Fatalf("the refused start left its run directory: %v", err)
	}
}
