//go:build linux

package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// openPTY opens a pseudo-terminal pair through /dev/ptmx (unlockpt and
// ptsname by their ioctls), so the test needs no new dependency and no
// util-linux `script`.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		_ = m.Close()
		t.Skipf("unlockpt: %v", e)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		_ = m.Close()
		t.Skipf("ptsname: %v", e)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		_ = m.Close()
		t.Skipf("open slave: %v", err)
	}
	return m, s
}

// progressArgs is a short run that prints its tables (no --quiet).
func progressArgs(out string) []string {
	return []string{"train", "--task", "reach", "--steps", "400", "--num-envs", "2",
		"--learning-starts", "100", "--batch-size", "32", "--hidden", "16,16",
		"--eval-every", "0", "--eval-episodes", "1", "--max-episode-len", "50",
		"--log-every", "200", "--checkpoint-every", "400", "--out", out}
}

// Under a pseudo-terminal the CLI draws the bar (carriage return, steps/s
// and ETA) through its redacting, write-checking stdout: the regression of
// issue 49 was a wrapper without Unwrap that hid the terminal.
func TestProgressBarUnderPTY(t *testing.T) {
	bin := buildBinary(t)
	master, slave := openPTY(t)
	defer master.Close()
	cmd := exec.Command(bin, progressArgs(filepath.Join(t.TempDir(), "run"))...)
	cmd.Stdout, cmd.Stderr = slave, slave
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	_ = slave.Close() // the child holds its own copy; EOF (EIO) once it exits
	var buf bytes.Buffer
	done := make(chan struct{})
	go func() { _, _ = io.Copy(&buf, master); close(done) }()
	err := cmd.Wait()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the pseudo-terminal did not close after the run ended")
	}
	out := buf.String()
	if err != nil {
		t.Fatalf("train under a pty: %v\n%s", err, out)
	}
	bar := regexp.MustCompile(`\r\[[#.]{30}\] \d+/400 +[0-9.]+% \d+ steps/s ETA [0-9:-]+`)
	if !bar.MatchString(out) {
		t.Fatalf("no progress bar (\\r[###...] k/400 … steps/s ETA …) in the terminal output:\n%q", out)
	}
	if strings.Contains(out, "step 200/400 (") {
		t.Fatalf("the log-file status line was printed on a terminal, where the bar says it:\n%s", out)
	}
}

// Off a terminal (a pipe: CI, Slurm) no bar is drawn, and each table is
// followed by "step k/N (p%), r steps/s, ETA m:s".
func TestProgressStatusOffTerminal(t *testing.T) {
	bin := buildBinary(t)
	out, err := exec.Command(bin, progressArgs(filepath.Join(t.TempDir(), "run"))...).CombinedOutput()
	if err != nil {
		t.Fatalf("train: %v\n%s", err, out)
	}
	s := string(out)
	if strings.Contains(s, "\r[") {
		t.Fatalf("a bar was drawn into a pipe:\n%q", s)
	}
	for _, k := range []int{200, 400} {
		re := regexp.MustCompile(fmt.Sprintf(`step %d/400 \(%.1f%%\), \d+ steps/s, ETA [0-9:-]+`, k, 100*float64(k)/400))
		if !re.MatchString(s) {
			t.Fatalf("no status line for step %d/400 after its table:\n%s", k, s)
		}
	}
}
