//go:build unix

package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestWriteRefusesNonRegularTargets: a FIFO, a directory or a symbolic
// link at the output path is refused and left as it was (the link's
// target untouched); nothing temporary is left behind.
func TestWriteRefusesNonRegularTargets(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, sub, link} {
		before, _ := os.Lstat(p)
		if err := WriteBytes(p, []byte("x")); !errors.Is(err, ErrNotRegular) {
			t.Errorf("%s: %v, want ErrNotRegular", p, err)
		}
		after, err := os.Lstat(p)
		if err != nil || after.Mode() != before.Mode() {
			t.Errorf("%s changed: %v, %v", p, after.Mode(), err)
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Errorf("the link's target now holds %q", b)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 4 {
		t.Errorf("%d entries in the directory, want the 4 made here", len(ents))
	}
	if err := CheckTarget("/dev/null"); !errors.Is(err, ErrNotRegular) {
		t.Errorf("/dev/null: %v", err)
	}
}
