package study

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeTree creates files (slash paths relative to dir) with their contents.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// The archive holds a run's records and nothing regenerated or live; it is
// deterministic; removal keeps what it left out; extraction restores the
// records byte for byte.
func TestRunsArchiveRoundTrip(t *testing.T) {
	dir := t.TempDir()
	records := map[string]string{
		"runs/t/a/s1/metrics.jsonl":        `{"step":10,"eval/success_rate":0.5}` + "\n",
		"runs/t/a/s1/study-done.json":      `{"attempts":1}`,
		"runs/t/a/s1/study-attempts.jsonl": `{"cpu_s":2.5}` + "\n",
		"runs/t/b/s1/config.yaml":          "seed: 1\n",
	}
	writeTree(t, dir, records)
	writeTree(t, dir, map[string]string{
		"runs/t/a/s1/metrics.csv":                  "step\n10\n",
		"runs/t/a/s1/study-running.json":           "{}",
		"runs/t/a/s1/curves/x.png":                 "png",
		"runs/t/b/s1/checkpoints/step-5/agent.bin": "weights",
	})
	n, err := WriteRunsArchive(dir)
	if err != nil || n != len(records) {
		t.Fatalf("archived %d files (%v), want %d", n, err, len(records))
	}
	first, _ := os.ReadFile(filepath.Join(dir, RunsArchive))
	if _, err := WriteRunsArchive(dir); err != nil {
		t.Fatal(err)
	}
	if second, _ := os.ReadFile(filepath.Join(dir, RunsArchive)); !bytes.Equal(first, second) {
		t.Fatal("the same records gave two different archives")
	}
	if archivedOnly(dir) {
		t.Fatal("records in runs/ are the live ones, not the archive's")
	}
	if err := RemoveArchivedRuns(dir); err != nil {
		t.Fatal(err)
	}
	if !archivedOnly(dir) {
		t.Fatal("after removal the records should come from the archive")
	}
	if _, err := os.Stat(filepath.Join(dir, "runs/t/b/s1/checkpoints/step-5/agent.bin")); err != nil {
		t.Fatal("removal deleted a checkpoint the archive does not hold")
	}
	if _, err := os.Stat(filepath.Join(dir, "runs/t/a/s1/metrics.jsonl")); !os.IsNotExist(err) {
		t.Fatal("an archived record was left behind")
	}
	recs, err := openRunRecords(dir)
	if err != nil {
		t.Fatal(err)
	}
	a, b := filepath.Join(dir, "runs/t/a/s1"), filepath.Join(dir, "runs/t/b/s1")
	if recs.state(a) != Done || recs.state(b) != Missing {
		t.Errorf("states %s and %s, want done and missing (b's checkpoint has no manifest)", recs.state(a), recs.state(b))
	}
	if at := recs.attempts(a); len(at) != 1 || at[0].CPUS != 2.5 {
		t.Errorf("attempts %+v", at)
	}
	if rows, err := recs.metrics(a); err != nil || len(rows) != 1 || rows[0].Values["eval/success_rate"] != 0.5 {
		t.Errorf("metrics %+v, %v", rows, err)
	}
	if _, err := recs.metrics(b); err == nil {
		t.Error("a run without metrics.jsonl read as if it had one")
	}
	if n, err := ExtractRunsArchive(dir); err != nil || n != len(records) {
		t.Fatalf("extracted %d (%v)", n, err)
	}
	for name, body := range records {
		if b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name))); err != nil || string(b) != body {
			t.Errorf("%s after extraction: %q, %v", name, b, err)
		}
	}
	// a live record that moved on is not overwritten by the stale archive
	writeTree(t, dir, map[string]string{"runs/t/b/s1/config.yaml": "seed: 2\n"})
	if _, err := ExtractRunsArchive(dir); err == nil || !strings.Contains(err.Error(), "differs") {
		t.Fatalf("extracting over a changed record: %v", err)
	}
}

// An archive entry outside runs/, or not a regular file, is refused.
func TestRunsArchiveRejectsForeignEntries(t *testing.T) {
	for _, hdr := range []tar.Header{
		{Name: "runs/../../etc/passwd", Typeflag: tar.TypeReg, Mode: 0o644},
		{Name: "other/file", Typeflag: tar.TypeReg, Mode: 0o644},
		{Name: "runs/link", Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"},
	} {
		dir := t.TempDir()
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		tw := tar.NewWriter(zw)
		if err := tw.WriteHeader(&hdr); err != nil {
			t.Fatal(err)
		}
		_ = tw.Close()
		_ = zw.Close()
		if err := os.WriteFile(filepath.Join(dir, RunsArchive), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadRunsArchive(dir); err == nil || !strings.Contains(err.Error(), "not a run record") {
			t.Errorf("entry %q: %v", hdr.Name, err)
		}
	}
	dir := t.TempDir()
	_ = os.WriteFile(filepath.Join(dir, RunsArchive), []byte("not gzip"), 0o644)
	if _, err := ReadRunsArchive(dir); err == nil || !strings.Contains(err.Error(), "study archive") {
		t.Errorf("damaged archive: %v", err)
	}
}

// A study whose records are only archived gets them back before run
// starts anything; a dry run refuses instead of writing.
func TestRunnerUnpacksArchive(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"runs/t/a/s1/study-done.json": "{}"})
	if _, err := WriteRunsArchive(dir); err != nil {
		t.Fatal(err)
	}
	if err := RemoveArchivedRuns(dir); err != nil {
		t.Fatal(err)
	}
	if err := (&Runner{Dir: dir, DryRun: true}).unpackForRun(); err == nil {
		t.Fatal("a dry run unpacked or ignored the archive")
	}
	var log bytes.Buffer
	if err := (&Runner{Dir: dir, Log: &log}).unpackForRun(); err != nil {
		t.Fatal(err)
	}
	if RunState(filepath.Join(dir, "runs/t/a/s1")) != Done || !strings.Contains(log.String(), "unpacked 1 run files") {
		t.Fatalf("after unpacking: state %s, log %q", RunState(filepath.Join(dir, "runs/t/a/s1")), log.String())
	}
	if err := (&Runner{Dir: dir}).unpackForRun(); err != nil { // live records now: nothing to do
		t.Fatal(err)
	}
}
