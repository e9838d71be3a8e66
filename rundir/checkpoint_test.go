package rundir

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/vlmrb/vlmrb/internal/atomicfile"
)

func part(name, content string) CheckpointPart {
	return CheckpointPart{Name: name, Write: func(w io.Writer) error {
		_, err := io.WriteString(w, content)
		return err
	}}
}

func TestCheckpointLatestSkipsIncompleteAndCorrupt(t *testing.T) {
	t.Parallel()
	run := t.TempDir()
	if _, _, err := LatestCheckpoint(run); !errors.Is(err, ErrNoCheckpoint) {
		t.Fatalf("empty run: %v", err)
	}
	for _, s := range []int64{100, 200, 300} {
		m := &Manifest{Step: s, Updates: s / 2}
		if _, err := SaveCheckpoint(run, m, []CheckpointPart{part("agent.bin", "agent"), part("replay.bin", "replay")}, 2); err != nil {
			t.Fatal(err)
		}
	}
	// keep=2: step 100 pruned
	if _, err := os.Stat(filepath.Join(CheckpointRoot(run), CheckpointName(100))); !os.IsNotExist(err) {
		t.Fatalf("old checkpoint not pruned: %v", err)
	}
	dir, m, err := LatestCheckpoint(run)
	if err != nil || m.Step != 300 || m.Updates != 150 {
		t.Fatalf("latest = %s %+v %v", dir, m, err)
	}
	// corrupt the newest: truncated file → falls back to 200
	if err := os.WriteFile(filepath.Join(dir, "replay.bin"), []byte("rep"), 0o644); err != nil {
		t.Fatal(err)
	}
	// an incomplete newer one (killed before the manifest)
	inc := filepath.Join(CheckpointRoot(run), CheckpointName(400))
	_ = os.MkdirAll(inc, 0o755)
	_ = os.WriteFile(filepath.Join(inc, "agent.bin"), []byte("half"), 0o644)
	_, m, err = LatestCheckpoint(run)
	if err != nil || m.Step != 200 {
		t.Fatalf("fallback = %+v %v, want step 200", m, err)
	}
	// a flipped byte with the same size is caught by the checksum
	d200 := filepath.Join(CheckpointRoot(run), CheckpointName(200))
	_ = os.WriteFile(filepath.Join(d200, "agent.bin"), []byte("agenT"), 0o644)
	if _, err := VerifyCheckpoint(d200); err == nil {
		t.Fatal("checksum mismatch not detected")
	}
	if _, _, err := LatestCheckpoint(run); !errors.Is(err, ErrNoCheckpoint) {
		t.Fatalf("all corrupt: %v", err)
	}
}

func TestWriteFileAtomicKeepsOldOnError(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "f")
	if err := atomicfile.WriteBytes(path, []byte("old")); err != nil {
		t.Fatal(err)
	}
	err := atomicfile.Write(path, 0o644, func(w io.Writer) error {
		_, _ = io.WriteString(w, "new-partial")
		return errors.New("boom")
	})
	if err == nil {
		t.Fatal("error not returned")
	}
	b, _ := os.ReadFile(path)
	if string(b) != "old" {
		t.Fatalf("content %q after failed write", b)
	}
	ents, _ := os.ReadDir(filepath.Dir(path))
	if len(ents) != 1 {
		t.Fatalf("temporary file left behind: %v", ents)
	}
}

func TestCheckpointSameStepReplacedWhole(t *testing.T) {
	t.Parallel()
	run := t.TempDir()
	for _, content := range []string{"first", "second"} {
		if _, err := SaveCheckpoint(run, &Manifest{Step: 100}, []CheckpointPart{part("agent.bin", content)}, 2); err != nil {
			t.Fatal(err)
		}
	}
	dir, m, err := LatestCheckpoint(run)
	if err != nil || m.Step != 100 {
		t.Fatalf("%+v %v", m, err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "agent.bin"))
	if string(b) != "second" {
		t.Fatalf("agent.bin = %q", b)
	}
	// a save killed before its rename leaves a hidden directory that is ignored and cleaned up
	_ = os.MkdirAll(filepath.Join(CheckpointRoot(run), ".tmp-"+CheckpointName(200)), 0o755)
	if _, m, _ := LatestCheckpoint(run); m.Step != 100 {
		t.Fatalf("hidden partial save was picked: %+v", m)
	}
	if _, err := SaveCheckpoint(run, &Manifest{Step: 300}, []CheckpointPart{part("agent.bin", "x")}, 2); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(CheckpointRoot(run), ".tmp-"+CheckpointName(200))); !os.IsNotExist(err) {
		t.Fatalf("stale hidden save not removed: %v", err)
	}
}
