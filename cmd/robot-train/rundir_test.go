package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vlmrb/vlmrb/internal/runlock"
	"github.com/vlmrb/vlmrb/rundir"
)

// waitLocked polls until dir's lock file names pid.
func waitLocked(t *testing.T, dir string, cmd *exec.Cmd, stderr *bytes.Buffer) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if h, err := runlock.ReadHolder(dir); err == nil && h.PID == cmd.Process.Pid {
			return
		}
		if cmd.ProcessState != nil {
			t.Fatalf("process exited early: %s", stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	_ = cmd.Process.Kill()
	t.Fatalf("%s not locked by pid %d within 60 s; stderr %s", dir, cmd.Process.Pid, stderr)
}

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// TestLiveRunDirIsLocked starts a real training process, then points a
// second robot-train process at its directory, both as --resume and as a
// fresh --out: both are refused with the holder's pid and nothing of the
// live run is touched. After the holder is SIGKILLed its lock is taken
// over by a resume.
func TestLiveRunDirIsLocked(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildBinary(t)
	out := filepath.Join(t.TempDir(), "run")
	cmd := longRun(bin, out)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	waitLocked(t, out, cmd, &stderr)
	m := waitCheckpoint(t, out, 200, cmd, &stderr)

	pid := strconv.Itoa(cmd.Process.Pid)
	for _, args := range [][]string{
		{"train", "--resume", out, "--steps", "100000", "--quiet"},
		{"train", "--task", "reach", "--steps", "300", "--quiet", "--out", out},
	} {
		second := exec.Command(bin, args...)
		var so, se bytes.Buffer
		second.Stdout, second.Stderr = &so, &se
		err := second.Run()
		if code := exitCode(err); code != exitFailure {
			t.Fatalf("%v against a live run: exit %d, want %d\nstdout %s\nstderr %s", args, code, exitFailure, so.String(), se.String())
		}
		if !strings.Contains(se.String(), "in use by pid "+pid) {
			t.Fatalf("%v: refusal does not name the holder pid %s: %s", args, pid, se.String())
		}
		if so.Len() != 0 {
			t.Fatalf("%v: a refused process printed a summary: %s", args, so.String())
		}
	}
	// the live run still advances its own checkpoints
	waitCheckpoint(t, out, m.Step+200, cmd, &stderr)

	// SIGKILL leaves the lock file naming a dead pid: a resume takes it over
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	_, last, err := rundir.LatestCheckpoint(out)
	if err != nil {
		t.Fatal(err)
	}
	res := exec.Command(bin, "train", "--resume", out, "--steps", strconv.FormatInt(last.Step+100, 10), "--quiet")
	var rout, rerr bytes.Buffer
	res.Stdout, res.Stderr = &rout, &rerr
	if err := res.Run(); err != nil {
		t.Fatalf("resume after SIGKILL: %v\n%s", err, rerr.String())
	}
	if !strings.Contains(rerr.String(), "pid "+pid) || !strings.Contains(rerr.String(), "no longer running") {
		t.Fatalf("takeover of the dead holder's lock not reported: %s", rerr.String())
	}
}

// TestTwoFreshRunsOneWins starts two trainings into the same new
// directory at once: exactly one runs, the other is refused.
func TestTwoFreshRunsOneWins(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildBinary(t)
	out := filepath.Join(t.TempDir(), "run")
	var cmds [2]*exec.Cmd
	var errs [2]bytes.Buffer
	for i := range cmds {
		cmds[i] = exec.Command(bin, tiny(out, "--seed", strconv.Itoa(i+1), "--steps", "400")...)
		cmds[i].Stderr = &errs[i]
	}
	for _, c := range cmds {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
	}
	codes := [2]int{exitCode(cmds[0].Wait()), exitCode(cmds[1].Wait())}
	ok, refused := 0, 0
	for i, c := range codes {
		switch {
		case c == 0:
			ok++
		case c == exitFailure && strings.Contains(errs[i].String(), "is in use by pid"),
			c == exitUsage && strings.Contains(errs[i].String(), "already holds a run"):
			// refused by the lock, or (if the first had finished) by its checkpoint
			refused++
		default:
			t.Fatalf("run %d: exit %d: %s", i, c, errs[i].String())
		}
	}
	if ok != 1 || refused != 1 {
		t.Fatalf("exit codes %v, want one success and one refusal\n%s\n%s", codes, errs[0].String(), errs[1].String())
	}
}

// TestRunKilledBeforeFirstCheckpoint kills a run before it has written a
// checkpoint; the directory can then be started again with the same
// command, or resumed (from step 0 with the stored config).
func TestRunKilledBeforeFirstCheckpoint(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildBinary(t)
	for _, how := range []string{"restart", "resume"} {
		t.Run(how, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "run")
			cmd := longRun(bin, out)
			cmd.Args = append(cmd.Args, "--checkpoint-every", "0") // only at exit
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			waitLocked(t, out, cmd, &stderr)
			for {
				if _, err := os.Stat(filepath.Join(out, "metrics.jsonl")); err == nil {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			_ = cmd.Process.Signal(syscall.SIGKILL)
			_ = cmd.Wait()
			if _, _, err := rundir.LatestCheckpoint(out); err == nil {
				t.Fatal("a checkpoint exists; the test needs a run killed before its first")
			}
			var code int
			var so, se string
			if how == "restart" {
				code, so, se = runCLI(t, tiny(out)...)
			} else {
				code, so, se = runCLI(t, "train", "--resume", out, "--steps", "200", "--quiet")
			}
			if code != 0 {
				t.Fatalf("%s: exit %d\n%s\n%s", how, code, so, se)
			}
			if !strings.Contains(se, "first") {
				t.Fatalf("%s: no note that the run is started again: %s", how, se)
			}
			if _, m, err := rundir.LatestCheckpoint(out); err != nil || m.Step != 200 {
				t.Fatalf("%s: final checkpoint %+v %v", how, m, err)
			}
		})
	}
}

// TestResumeFinishedRunWritesNothing resumes a finished run with the same
// budget: it says so, exits 0 and changes no file.
func TestResumeFinishedRunWritesNothing(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "run")
	if code, so, se := runCLI(t, tiny(out)...); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, so, se)
	}
	before := snapshotDir(t, out)
	code, so, se := runCLI(t, "train", "--resume", out, "--quiet")
	if code != 0 || !strings.Contains(so, "already finished at env step 200") {
		t.Fatalf("resume of a finished run: exit %d\n%s\n%s", code, so, se)
	}
	after := snapshotDir(t, out)
	for name, b := range before {
		if name == runlock.FileName {
			continue
		}
		if after[name] != b {
			t.Errorf("%s changed", name)
		}
	}
	for name := range after {
		if _, ok := before[name]; !ok {
			t.Errorf("%s appeared", name)
		}
	}
}

// snapshotDir maps every file under dir to its content.
func snapshotDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		m[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestEvalSaysWhichCheckpoint: with the newest checkpoint's agent
// corrupted, eval names the one it used and why it skipped the newer one;
// a corrupt replay buffer (which eval does not need) is no reason to skip.
func TestEvalSaysWhichCheckpoint(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "run")
	if code, so, se := runCLI(t, tiny(out)...); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, so, se)
	}
	newest := filepath.Join(rundir.CheckpointRoot(out), "step-000000000200")
	corrupt := func(name string) {
		t.Helper()
		p := filepath.Join(newest, name)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		b[len(b)/2] ^= 0xff
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	corrupt("replay.bin")
	code, _, se := runCLI(t, "eval", "--checkpoint", out, "--episodes", "1")
	if code != 0 || !strings.Contains(se, "using "+newest+" (env step 200)") || strings.Contains(se, "skipped") {
		t.Fatalf("a bad replay.bin changed eval's choice: exit %d\n%s", code, se)
	}
	corrupt("agent.bin")
	code, _, se = runCLI(t, "eval", "--checkpoint", out, "--episodes", "1")
	if code != 0 || !strings.Contains(se, "skipped a newer checkpoint: step-000000000200: agent.bin checksum mismatch") ||
		!strings.Contains(se, "step-000000000100 (env step 100)") {
		t.Fatalf("eval with a corrupt newest agent: exit %d\n%s", code, se)
	}
}
