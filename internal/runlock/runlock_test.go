package runlock

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestAcquireExcludesAndNamesHolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	l, err := Acquire(dir, "robot-train train --out run")
	if err != nil {
		t.Fatal(err)
	}
	// a second open file description conflicts even inside one process
	_, err = Acquire(dir, "second")
	var he *HeldError
	if !errors.As(err, &he) || !errors.Is(err, ErrHeld) {
		t.Fatalf("second Acquire: %v, want *HeldError", err)
	}
	if he.Holder.PID != os.Getpid() || !strings.Contains(err.Error(), "robot-train train --out run") {
		t.Fatalf("refusal does not name the holder: %v", err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	l2, err := Acquire(dir, "third")
	if err != nil {
		t.Fatalf("after Release: %v", err)
	}
	if l2.Stale != nil {
		t.Fatalf("a released lock reported as stale: %+v", l2.Stale)
	}
	_ = l2.Release()
}

// TestStaleLockTakenOver kills a real process holding the lock and takes
// the lock over.
func TestStaleLockTakenOver(t *testing.T) {
	if os.Getenv("RUNLOCK_HOLD") != "" {
		if _, err := Acquire(os.Getenv("RUNLOCK_HOLD"), "holder"); err != nil {
			os.Exit(3)
		}
		_, _ = os.Stdout.WriteString("locked\n")
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestStaleLockTakenOver$")
	cmd.Env = append(os.Environ(), "RUNLOCK_HOLD="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 7)
	if _, err := out.Read(buf); err != nil || string(buf) != "locked\n" {
		_ = cmd.Process.Kill()
		t.Fatalf("holder did not lock: %q %v", buf, err)
	}
	_, err = Acquire(dir, "while held")
	var he *HeldError
	if !errors.As(err, &he) || he.Holder.PID != cmd.Process.Pid {
		_ = cmd.Process.Kill()
		t.Fatalf("while the holder lives: %v", err)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	l, err := Acquire(dir, "after")
	if err != nil {
		t.Fatalf("lock of a killed process not taken over: %v", err)
	}
	defer l.Release()
	if l.Stale == nil || l.Stale.PID != cmd.Process.Pid {
		t.Fatalf("Stale = %+v, want the killed pid %d", l.Stale, cmd.Process.Pid)
	}
	h, err := ReadHolder(dir)
	if err != nil || h.PID != os.Getpid() {
		t.Fatalf("lock file after takeover: %+v %v", h, err)
	}
}

func FuzzParseHolder(f *testing.F) {
	f.Add([]byte(`{"pid":12,"start":"2026-01-02T03:04:05Z","host":"h","command":"robot-train train"}`))
	f.Add([]byte(""))
	f.Add([]byte("{"))
	f.Add([]byte(`{"pid":-1,"command":"\xff"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := ParseHolder(b)
		if err != nil && h != (Holder{}) {
			t.Fatalf("error with a non-zero holder: %+v", h)
		}
		if h.PID < 0 || len(h.Command) > 200 {
			t.Fatalf("unbounded holder: %+v", h)
		}
		_ = h.String()
	})
}
