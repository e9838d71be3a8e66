//go:build unix

package runlock

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A lock file that is a FIFO or a link is refused without blocking or
// writing through the link.
func TestLockFileSpecial(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, FileName), 0o644); err != nil {
		t.Skip(err)
	}
	if _, err := Acquire(dir, "test"); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("FIFO lock file: %v", err)
	}
	if err := Probe(dir); err == nil {
		t.Error("Probe accepted a FIFO lock file")
	}
	dir2 := t.TempDir()
	target := filepath.Join(t.TempDir(), "target")
	if err := os.WriteFile(target, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(dir2, FileName)); err != nil {
		t.Fatal(err)
	}
	if _, err := Acquire(dir2, "test"); err == nil {
		t.Error("symlinked lock file accepted")
	}
	if b, _ := os.ReadFile(target); string(b) != "keep" {
		t.Errorf("the link's target was written: %q", b)
	}
}
