package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/vlmrb/vlmrb/rundir"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// buildBinary compiles robot-train once for all tests of this package.
func buildBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "robot-train-test-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "robot-train")
		if out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		_ = os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

// waitCheckpoint polls until runDir has a complete checkpoint at ≥ minStep.
func waitCheckpoint(t *testing.T, runDir string, minStep int64, cmd *exec.Cmd, stderr *bytes.Buffer) *rundir.Manifest {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		if _, m, err := rundir.LatestCheckpoint(runDir); err == nil && m.Step >= minStep {
			return m
		}
		if cmd.ProcessState != nil {
			t.Fatalf("process exited early: %s", stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	_ = cmd.Process.Kill()
	t.Fatalf("no checkpoint at step ≥ %d within 90 s; stderr: %s", minStep, stderr)
	return nil
}

func longRun(bin, out string) *exec.Cmd {
	// a budget far beyond what the test waits for; frequent checkpoints
	return exec.Command(bin, "train", "--task", "reach", "--replay", "vlmrb", "--scorer", "oracle",
		"--steps", "1000000", "--num-envs", "2", "--learning-starts", "100", "--batch-size", "32",
		"--hidden", "16,16", "--eval-every", "0", "--eval-episodes", "1", "--max-episode-len", "50",
		"--log-every", "100", "--checkpoint-every", "200", "--out", out)
}

// TestResumeAfterSIGKILL kills a training process mid-run (possibly while
// it writes a checkpoint), resumes it, and checks that the run continues
// from the last complete checkpoint with every file intact.
func TestResumeAfterSIGKILL(t *testing.T) {
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
	m := waitCheckpoint(t, out, 400, cmd, &stderr)
	time.Sleep(37 * time.Millisecond) // land somewhere inside the next interval
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	dir, last, err := rundir.LatestCheckpoint(out)
	if err != nil || last.Step < m.Step {
		t.Fatalf("after SIGKILL: %s %+v %v", dir, last, err)
	}
	target := last.Step + 200
	res := exec.Command(bin, "train", "--resume", out, "--steps", strconv.FormatInt(target, 10), "--quiet")
	var rout, rerr bytes.Buffer
	res.Stdout, res.Stderr = &rout, &rerr
	if err := res.Run(); err != nil {
		t.Fatalf("resume: %v\n%s\n%s", err, rout.String(), rerr.String())
	}
	_, fin, err := rundir.LatestCheckpoint(out)
	if err != nil || fin.Step != target {
		t.Fatalf("final checkpoint %+v %v, want step %d", fin, err, target)
	}
	if fin.Updates <= last.Updates || fin.Episodes < last.Episodes {
		t.Fatalf("counters did not continue: %+v after %+v", fin, last)
	}
	// config intact and loadable; metrics continue without a second history
	cfg := rundir.DefaultConfig()
	if err := rundir.LoadConfigFile(filepath.Join(out, "config.yaml"), &cfg); err != nil || cfg.Replay != "vlmrb" {
		t.Fatalf("config.yaml after resume: %v %+v", err, cfg.Replay)
	}
	rows, err := rundir.ReadMetricsJSONL(filepath.Join(out, "metrics.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	prev := int64(-1)
	for _, r := range rows {
		if r.Step < prev {
			t.Fatalf("metrics.jsonl goes back in time: %d after %d", r.Step, prev)
		}
		prev = r.Step
	}
	if prev != target {
		t.Fatalf("last metrics row at step %d, want %d", prev, target)
	}
	if _, err := os.Stat(filepath.Join(out, "metrics.csv")); err != nil {
		t.Fatal(err)
	}
}

// TestInterruptCheckpoints sends SIGINT and expects a clean stop: exit 130,
// a complete checkpoint at the step reached.
func TestInterruptCheckpoints(t *testing.T) {
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
	m := waitCheckpoint(t, out, 200, cmd, &stderr)
	_ = cmd.Process.Signal(os.Interrupt)
	err := cmd.Wait()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != exitInterrupted {
		t.Fatalf("exit after SIGINT: %v (stderr %s)", err, stderr.String())
	}
	_, last, err := rundir.LatestCheckpoint(out)
	if err != nil || last.Step < m.Step {
		t.Fatalf("checkpoint after SIGINT: %+v %v", last, err)
	}
	if !bytes.Contains(stderr.Bytes(), []byte("--resume")) {
		t.Fatalf("interrupt message does not say how to resume: %s", stderr.String())
	}
}
