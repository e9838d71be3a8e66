package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteReplacesWhole(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "f.bin")
	if err := WriteBytes(p, []byte("old")); err != nil {
		t.Fatal(err)
	}
	if err := WriteBytes(p, []byte("new content")); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(p)
	if err != nil || string(got) != "new content" {
		t.Fatalf("read %q, %v", got, err)
	}
}

// TestFailedWriteKeepsOld: a writer that fails midway leaves the old file
// and no temporary file behind.
func TestFailedWriteKeepsOld(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "f.bin")
	if err := WriteBytes(p, []byte("old")); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("disk on fire")
	err := Write(p, 0o600, func(w io.Writer) error {
		_, _ = w.Write([]byte("half"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("error %v, want it to wrap the writer's error", err)
	}
	got, _ := os.ReadFile(p)
	if string(got) != "old" {
		t.Fatalf("file now %q, want the old content", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("directory holds %d entries, want only f.bin (temporary file left behind)", len(entries))
	}
}

func TestWriteIntoMissingDir(t *testing.T) {
	t.Parallel()
	if err := WriteBytes(filepath.Join(t.TempDir(), "no", "such", "f"), nil); err == nil {
		t.Fatal("writing into a missing directory succeeded")
	}
}
