package runlock

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestProbe(t *testing.T) {
	dir := t.TempDir()
	if err := Probe(filepath.Join(dir, "none")); err != nil {
		t.Fatalf("no directory: %v", err)
	}
	l, err := Acquire(dir, "test")
	if err != nil {
		t.Fatal(err)
	}
	err = Probe(dir)
	var he *HeldError
	if !errors.As(err, &he) || he.Holder.PID != os.Getpid() {
		t.Fatalf("held lock: %v", err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if err := Probe(dir); err != nil {
		t.Fatalf("released lock: %v", err)
	}
	// the probe leaves the lock free for the next holder
	l, err = Acquire(dir, "test")
	if err != nil {
		t.Fatalf("acquire after probe: %v", err)
	}
	_ = l.Release()
}
