//go:build unix

package safefile

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestReadFileContext(t *testing.T) {
	dir := t.TempDir()
	reg := filepath.Join(dir, "reg")
	data := bytes.Repeat([]byte("x"), 3*chunk+7)
	if err := os.WriteFile(reg, data, 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := ReadFileContext(context.Background(), reg, int64(len(data)))
	if err != nil || !bytes.Equal(b, data) {
		t.Fatalf("read %d of %d bytes: %v", len(b), len(data), err)
	}
	if _, err := ReadFileContext(context.Background(), reg, int64(len(data))-1); !errors.Is(err, ErrTooLarge) {
		t.Errorf("one byte over the limit: %v, want ErrTooLarge", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, "/dev/zero", "/dev/urandom"} {
		if _, err := ReadFileContext(context.Background(), p, 1<<20); !errors.Is(err, ErrNotRegular) {
			t.Errorf("%s: %v, want ErrNotRegular", p, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ReadFileContext(ctx, reg, int64(len(data))); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v, want context.Canceled", err)
	}
}

// TestReaderCountsBytes: the cap holds for a stream that never ends (the
// size of /dev/zero as Stat reports it is 0).
func TestReaderCountsBytes(t *testing.T) {
	f, err := os.Open("/dev/zero")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	r := &Reader{R: f, Limit: 1000, Name: "zeros"}
	n, err := io.Copy(io.Discard, r)
	if !errors.Is(err, ErrTooLarge) || n != 1001 {
		t.Errorf("copied %d bytes, %v; want 1001 and ErrTooLarge", n, err)
	}
	r = &Reader{R: bytes.NewReader(make([]byte, 1000)), Limit: 1000, Name: "exact"}
	if n, err := io.Copy(io.Discard, r); err != nil || n != 1000 {
		t.Errorf("exactly at the limit: %d, %v", n, err)
	}
}

func TestWithin(t *testing.T) {
	root := t.TempDir()
	out := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "assets"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "secret"), []byte("s"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(out, "secret"), filepath.Join(root, "assets", "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("assets", filepath.Join(root, "inner")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"assets/a.obj", "inner/a.obj", "assets/../b.xml"} {
		if err := Within(root, filepath.Join(root, p)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	for _, p := range []string{"../x.xml", "assets/link", "../../../../etc/passwd"} {
		if err := Within(root, filepath.Join(root, p)); !errors.Is(err, ErrOutside) {
			t.Errorf("%s: %v, want ErrOutside", p, err)
		}
	}
	if err := Within(root, "/etc/passwd"); !errors.Is(err, ErrOutside) {
		t.Errorf("/etc/passwd: want ErrOutside, got %v", err)
	}
}
