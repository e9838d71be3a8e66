//go:build unix

package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestReadFileRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	reg := filepath.Join(dir, "reg")
	if err := os.WriteFile(reg, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	toZero := filepath.Join(dir, "zero")
	toReg := filepath.Join(dir, "toreg")
	if err := os.Symlink("/dev/zero", toZero); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(reg, toReg); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path, want string
	}{{fifo, "FIFO"}, {toZero, "character device"}, {dir, "directory"}, {"/dev/zero", "character device"}} {
		_, err := ReadFile(tc.path, 1<<20)
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.path) {
			t.Errorf("%s: %v, want ErrNotRegular naming it as %s", tc.path, err, tc.want)
		}
	}
	// a link to a regular file is read (git-annex and DVC keep data so)
	if b, err := ReadFile(toReg, 5); err != nil || string(b) != "hello" {
		t.Errorf("link to a regular file: %q, %v", b, err)
	}
	if _, err := ReadFile(reg, 4); !errors.Is(err, ErrTooLarge) {
		t.Errorf("5 bytes with limit 4: %v, want ErrTooLarge", err)
	}
}

func TestWritesNeverFollowLinks(t *testing.T) {
	root := t.TempDir()
	victim := t.TempDir()
	target := filepath.Join(victim, "target")
	if err := os.WriteFile(target, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(root, "a", "b")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(root, "a", "log")); err != nil {
		t.Fatal(err)
	}
	if err := CheckDir(root, filepath.Join(root, "a", "b", "c")); err == nil || !strings.Contains(err.Error(), filepath.Join(root, "a", "b")) {
		t.Errorf("CheckDir through a link: %v", err)
	}
	if err := CheckDir(root, filepath.Join(root, "a", "new", "c")); err != nil {
		t.Errorf("CheckDir of dirs to be made: %v", err)
	}
	if err := ClearDir(filepath.Join(root, "a", "b"), nil); err == nil {
		t.Error("ClearDir of a link to a directory succeeded")
	}
	if _, err := OpenAppend(filepath.Join(root, "a", "log"), 0o644); !errors.Is(err, ErrNotRegular) {
		t.Errorf("OpenAppend of a link: %v", err)
	}
	if err := ClearDir(filepath.Join(root, "a"), func(n string) bool { return n == "keep" }); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != "keep" {
		t.Errorf("a link's target changed: %q, %v", b, err)
	}
	if ents, _ := os.ReadDir(filepath.Join(root, "a")); len(ents) != 0 {
		t.Errorf("ClearDir left %d entries", len(ents))
	}
}
