//go:build linux

package main

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"crypto/sha256"

	"github.com/vlmrb/vlmrb/internal/runlock"
	"github.com/vlmrb/vlmrb/nn"
	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/train/study"
)

// Fault cases run the real binary as a user would and measure each
// process: wall time and peak resident memory (getrusage of the child).
// The numbers go to the test log and, with VLMRB_RELIABILITY_OUT=FILE, to
// FILE as JSON lines (bench/RESULTS.md, Reliability).

// measured is one process of a fault case.
type measured struct {
	Case   string  `json:"case"`
	Code   int     `json:"exit_code"`
	WallS  float64 `json:"wall_s"`
	PeakMB float64 `json:"peak_rss_mb"`
	Out    string  `json:"-"`
}

var reportMu sync.Mutex

func (m measured) record(t *testing.T) {
	t.Helper()
	first, _, _ := strings.Cut(strings.TrimSpace(m.Out), "\n")
	t.Logf("%s: exit %d in %.2f s, peak RSS %.0f MB: %s", m.Case, m.Code, m.WallS, m.PeakMB, first)
	p := os.Getenv("VLMRB_RELIABILITY_OUT")
	if p == "" {
		return
	}
	reportMu.Lock()
	defer reportMu.Unlock()
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, _ := json.Marshal(m)
	_, _ = f.Write(append(b, '\n'))
}

// hangLimit ends a fault case that does not finish: the fault this file
// guards against is a read that never ends.
const hangLimit = 90 * time.Second

// runMeasured runs bin with args (stdin from /dev/null) and measures it.
func runMeasured(t *testing.T, name string, stdout *os.File, bin string, args ...string) measured {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var out bytes.Buffer
	cmd.Stderr = &out
	if stdout != nil {
		cmd.Stdout = stdout
	} else {
		cmd.Stdout = &out
	}
	cmd.Env = append(os.Environ(), "GOMAXPROCS=1", "OPENBLAS_NUM_THREADS=1")
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(hangLimit, func() { _ = cmd.Process.Kill() })
	_ = cmd.Wait()
	timer.Stop()
	m := measured{Case: name, Code: cmd.ProcessState.ExitCode(), WallS: time.Since(start).Seconds(), Out: out.String()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		m.PeakMB = float64(ru.Maxrss) / 1024 // KiB on Linux
	}
	if m.Code == -1 {
		t.Fatalf("%s: killed after %v (it never finished) or died on a signal: %s", name, hangLimit, m.Out)
	}
	return m
}

// faultOK checks a fault case: refused (non-zero exit) with a message
// that contains want, within the memory goal.
func faultOK(t *testing.T, m measured, want string) {
	t.Helper()
	m.record(t)
	if m.Code == 0 {
		t.Errorf("%s: exit 0, want a refusal: %s", m.Case, m.Out)
	}
	if !strings.Contains(m.Out, want) {
		t.Errorf("%s: message does not say %q:\n%s", m.Case, want, m.Out)
	}
	if m.PeakMB > 400 {
		t.Errorf("%s: peak RSS %.0f MB, the goal is < 400 MB", m.Case, m.PeakMB)
	}
}

// trainedRun trains a tiny run with one checkpoint (its last) and
// returns its directory.
func trainedRun(t *testing.T, bin string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	args := tiny(dir, "--checkpoint-every", "0")
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "GOMAXPROCS=1", "OPENBLAS_NUM_THREADS=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("train: %v\n%s", err, out)
	}
	return dir
}

// copyRun copies a run directory (regular files and directories).
func copyRun(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "run")
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		if info.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func latestCkpt(t *testing.T, run string) string {
	t.Helper()
	dir, _, err := rundir.LatestCheckpoint(run)
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// reseal replaces a checkpoint part with data and updates the manifest's
// size and SHA-256, as a crafted checkpoint would.
func reseal(t *testing.T, ckpt, name string, data []byte) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(ckpt, name), data, 0o644); err != nil {
		t.Fatal(err)
	}
	mp := filepath.Join(ckpt, "manifest.json")
	b, err := os.ReadFile(mp)
	if err != nil {
		t.Fatal(err)
	}
	var m rundir.Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	for i := range m.Files {
		if m.Files[i].Name == name {
			m.Files[i].Size, m.Files[i].SHA256 = int64(len(data)), hex.EncodeToString(sum[:])
		}
	}
	b, _ = json.Marshal(m)
	if err := os.WriteFile(mp, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// agentPieces splits a SAC agent.bin payload at its header fields.
type agentPieces struct {
	payload []byte
	cfg     []byte // config JSON
	obsOff  int    // offset of obsDim (u32) in payload
	net0Off int    // offset of the actor's MLP encoding (after its u64 length)
}

func splitAgent(t *testing.T, data []byte) agentPieces {
	t.Helper()
	_, p, err := nn.Unseal("VLMRBSAC", data)
	if err != nil {
		t.Fatal(err)
	}
	n := int(binary.LittleEndian.Uint64(p))
	ap := agentPieces{payload: append([]byte(nil), p...), cfg: p[8 : 8+n], obsOff: 8 + n}
	off := ap.obsOff + 4 + 4 + 8                          // obs, act, updates
	off += 8 + 4*int(binary.LittleEndian.Uint64(p[off:])) // log α
	ap.net0Off = off + 8
	return ap
}

func sealAgent(p []byte) []byte { return nn.Seal("VLMRBSAC", 1, p) }

// Crafted or special checkpoint files are refused quickly and within
// bounded memory by eval, train --resume, study report and study run
// --dry-run.
func TestCheckpointFaults(t *testing.T) {
	bin := buildBinary(t)
	base := trainedRun(t, bin)
	agent, err := os.ReadFile(filepath.Join(latestCkpt(t, base), "agent.bin"))
	if err != nil {
		t.Fatal(err)
	}
	ap := splitAgent(t, agent)

	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "other.bin")
	if err := os.WriteFile(other, []byte("not an agent"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := func(target string) func(t *testing.T, ck string) {
		return func(t *testing.T, ck string) {
			p := filepath.Join(ck, "agent.bin")
			_ = os.Remove(p)
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
		}
	}
	obs := func(v uint32) func(t *testing.T, ck string) {
		return func(t *testing.T, ck string) {
			p := append([]byte(nil), ap.payload...)
			binary.LittleEndian.PutUint32(p[ap.obsOff:], v)
			reseal(t, ck, "agent.bin", sealAgent(p))
		}
	}
	widths := func(w uint32) func(t *testing.T, ck string) {
		return func(t *testing.T, ck string) {
			p := append([]byte(nil), ap.payload...)
			ns := int(binary.LittleEndian.Uint32(p[ap.net0Off:]))
			for i := 1; i < ns-1; i++ {
				binary.LittleEndian.PutUint32(p[ap.net0Off+4+4*i:], w)
			}
			reseal(t, ck, "agent.bin", sealAgent(p))
		}
	}
	hidden := func(t *testing.T, ck string) {
		var cfg map[string]any
		if err := json.Unmarshal(ap.cfg, &cfg); err != nil {
			t.Fatal(err)
		}
		cfg["Hidden"] = []int{1_000_000, 1_000_000}
		js, _ := json.Marshal(cfg)
		p := nn.AppendBytes(nil, js)
		p = append(p, ap.payload[ap.obsOff:]...)
		reseal(t, ck, "agent.bin", sealAgent(p))
	}
	cases := []struct {
		name  string
		apply func(t *testing.T, ck string)
		want  string // in every command's message
	}{
		{"agent.bin -> /dev/zero", link("/dev/zero"), "character device"},
		{"agent.bin is a FIFO", func(t *testing.T, ck string) { link(fifo)(t, ck) }, "FIFO"},
		{"agent.bin -> another regular file", link(other), "agent.bin"},
		{"obsDim 4e9 (resealed)", obs(4_000_000_000), "obsDim"},
		{"obsDim 2e6 (resealed)", obs(2_000_000), "obsDim"},
		{"layer widths 2^20 (resealed)", widths(1 << 20), "width"},
		{"layer widths 8000 (resealed)", widths(8000), "bytes"},
		{"hidden 1e6 in the config JSON (resealed)", hidden, "width"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			run := copyRun(t, base)
			tc.apply(t, latestCkpt(t, run))
			m := runMeasured(t, "eval --checkpoint, "+tc.name, nil, bin, "eval", "--checkpoint", run, "--episodes", "1")
			faultOK(t, m, tc.want)
			m = runMeasured(t, "train --resume, "+tc.name, nil, bin, "train", "--resume", run, "--steps", "400", "--quiet")
			faultOK(t, m, "")
		})
	}
}

// A study whose run has a checkpoint file on /dev/zero or a FIFO, or
// whose study file is /dev/zero: report and dry run refuse or skip it
// without reading it.
func TestStudyFileFaults(t *testing.T) {
	bin := buildBinary(t)
	spec := filepath.Join(t.TempDir(), "one.yaml")
	if err := os.WriteFile(spec, []byte(strings.Replace(fmt.Sprintf(tinyStudy, 200), "seeds: [1, 2]", "seeds: [1]", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "st")
	if b, err := exec.Command(bin, "study", "run", spec, "--out", out, "--arms", "uniform").CombinedOutput(); err != nil {
		t.Fatalf("study run: %v\n%s", err, b)
	}
	// a changed study file is refused before DIR/study.yaml is replaced
	// (a raised steps alone is the one change taken: it extends the runs)
	kept, err := os.ReadFile(filepath.Join(out, study.SpecFile))
	if err != nil {
		t.Fatal(err)
	}
	changed := filepath.Join(t.TempDir(), "one.yaml")
	if !bytes.Contains(kept, []byte("batch_size: 16")) {
		t.Fatalf("the study file has no batch_size: 16 to change:\n%s", kept)
	}
	if err := os.WriteFile(changed, bytes.Replace(kept, []byte("batch_size: 16"), []byte("batch_size: 32"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	m := runMeasured(t, "study run, changed study file", nil, bin, "study", "run", changed, "--out", out, "--arms", "uniform")
	faultOK(t, m, "different config")
	if now, _ := os.ReadFile(filepath.Join(out, study.SpecFile)); !bytes.Equal(now, kept) {
		t.Errorf("%s was overwritten by the refused study file", study.SpecFile)
	}
	run := filepath.Join(out, "runs", "reach", "uniform", "s1")
	ck := latestCkpt(t, run)
	_ = os.Remove(filepath.Join(ck, "agent.bin"))
	if err := os.Symlink("/dev/zero", filepath.Join(ck, "agent.bin")); err != nil {
		t.Fatal(err)
	}
	m = runMeasured(t, "study report, agent.bin -> /dev/zero", nil, bin, "study", "report", out, "--reps", "100")
	m.record(t)
	if m.PeakMB > 400 {
		t.Errorf("peak %.0f MB", m.PeakMB)
	}
	m = runMeasured(t, "study run --dry-run, agent.bin -> /dev/zero", nil, bin, "study", "run", spec, "--out", out, "--dry-run")
	m.record(t)

	m = runMeasured(t, "study run /dev/zero", nil, bin, "study", "run", "/dev/zero", "--out", filepath.Join(t.TempDir(), "x"))
	faultOK(t, m, "character device")
	_ = os.Remove(filepath.Join(out, study.SpecFile))
	if err := os.Symlink("/dev/zero", filepath.Join(out, study.SpecFile)); err != nil {
		t.Fatal(err)
	}
	m = runMeasured(t, "study report, study.yaml -> /dev/zero", nil, bin, "study", "report", out)
	faultOK(t, m, "character device")
	fifo := filepath.Join(t.TempDir(), "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	m = runMeasured(t, "train --config FIFO", nil, bin, "train", "--config", fifo, "--out", filepath.Join(t.TempDir(), "r"))
	faultOK(t, m, "FIFO")
}

// Bounds are checked before a run directory is made; a huge eval episode
// keeps a bounded GIF.
func TestHugeSizesRefusedBeforeTheRunDir(t *testing.T) {
	bin := buildBinary(t)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"train --max-episode-len 2e9", []string{"--max-episode-len", "2000000000"}, "max_episode_len"},
		{"train --hidden 100000,100000", []string{"--hidden", "100000,100000"}, "sac.hidden"},
		{"train --updates-per-step 1e7", []string{"--updates-per-step", "10000000"}, "updates_per_step"},
	} {
		out := filepath.Join(t.TempDir(), "run")
		m := runMeasured(t, tc.name, nil, bin, append(tiny(out), tc.args...)...)
		faultOK(t, m, tc.want)
		if _, err := os.Lstat(out); err == nil {
			t.Errorf("%s: the run directory %s was made", tc.name, out)
		}
	}
	cfg := filepath.Join(t.TempDir(), "cap.yaml")
	if err := os.WriteFile(cfg, []byte("task: reach\nsteps: 200\nbuffer: {capacity: 1000000000}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "run")
	m := runMeasured(t, "train --config (buffer.capacity 1e9)", nil, bin, "train", "--config", cfg, "--out", out)
	faultOK(t, m, "buffer.capacity")
	if _, err := os.Lstat(out); err == nil {
		t.Errorf("the run directory %s was made", out)
	}

	gif := filepath.Join(t.TempDir(), "long.gif")
	m = runMeasured(t, "eval --video, 20000-step episode", nil, bin, "eval", "--policy", "random", "--task", "reach",
		"--episodes", "1", "--max-episode-len", "20000", "--video", gif, "--video-size", "64", "--render-backend", "soft")
	m.record(t)
	if m.Code != 0 {
		t.Fatalf("long eval: exit %d: %s", m.Code, m.Out)
	}
	if !strings.Contains(m.Out, "kept every") {
		t.Errorf("no subsampling warning: %s", m.Out)
	}
	if m.PeakMB > 400 {
		t.Errorf("peak RSS %.0f MB", m.PeakMB)
	}
	if st, err := os.Stat(gif); err != nil || st.Size() == 0 {
		t.Errorf("no GIF: %v", err)
	}
}

// Failed writes of results are failures.
func TestOutputWriteFailures(t *testing.T) {
	bin := buildBinary(t)
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full")
	}
	defer full.Close()
	m := runMeasured(t, "score --json >/dev/full", full, bin, "score", "--source", "sim:reach", "--scorer", "oracle", "--clips", "2", "--json")
	faultOK(t, m, "standard output")
	m = runMeasured(t, "eval --video /nonexistent/v.gif", nil, bin, "eval", "--policy", "random", "--task", "reach", "--episodes", "1", "--video", "/nonexistent/v.gif")
	faultOK(t, m, "/nonexistent")
}

// concurrentStudy is 2 arms × 2 seeds of short runs.
const concurrentStudy = `name: conc
base:
  reward: dense
  replay: uniform
  steps: %d
  num_envs: 2
  max_episode_len: 50
  sac: {hidden: [8, 8], batch_size: 16, learning_starts: 100}
  eval: {every: 0, episodes: 1, gif: false}
  log: {every: 200, tensorboard: false}
  checkpoint: {every: %d}
tasks: [reach]
arms:
  - name: uniform
    set: {}
  - name: per
    set: {replay: per}
seeds: [1, 2]
`

// checkAttempts checks that no two attempts on one run overlapped in
// time and that exactly one finished it.
func checkAttempts(t *testing.T, out string, ids []string) {
	t.Helper()
	for _, id := range ids {
		dir := filepath.Join(out, "runs", filepath.FromSlash(id))
		at := study.Attempts(dir)
		sort.Slice(at, func(i, j int) bool { return at[i].Start.Before(at[j].Start) })
		ok := 0
		for i, a := range at {
			if a.ExitCode == 0 {
				ok++
			}
			if i > 0 {
				prevEnd := at[i-1].Start.Add(time.Duration(at[i-1].WallS * float64(time.Second)))
				if a.Start.Before(prevEnd) {
					t.Errorf("%s: attempt %d (%v) started before attempt %d ended (%v): two trainings overlapped", id, i, a.Start, i-1, prevEnd)
				}
			}
		}
		if ok != 1 {
			t.Errorf("%s: %d attempts exited 0, want exactly 1: %+v", id, ok, at)
		}
		if study.RunState(dir) != study.Done {
			t.Errorf("%s is %s, want done", id, study.RunState(dir))
		}
	}
}

// Two and three `study run`s on one --out, with and without checkpoints,
// share the grid: every run is trained exactly once, no two trainings of
// one run overlap, and none fails.
func TestConcurrentStudyRuns(t *testing.T) {
	bin := buildBinary(t)
	for _, tc := range []struct {
		procs, every int
	}{{2, 200}, {3, 200}, {2, 0}, {3, 0}} {
		t.Run(fmt.Sprintf("%d processes, checkpoint every %d", tc.procs, tc.every), func(t *testing.T) {
			spec := filepath.Join(t.TempDir(), "conc.yaml")
			if err := os.WriteFile(spec, []byte(fmt.Sprintf(concurrentStudy, 1000, tc.every)), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "st")
			var wg sync.WaitGroup
			outs := make([]string, tc.procs)
			errs := make([]error, tc.procs)
			for k := range tc.procs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					time.Sleep(time.Duration(k) * 150 * time.Millisecond)
					cmd := exec.Command(bin, "study", "run", spec, "--out", out)
					cmd.Env = append(os.Environ(), "GOMAXPROCS=1", "OPENBLAS_NUM_THREADS=1")
					b, err := cmd.CombinedOutput()
					outs[k], errs[k] = string(b), err
				}()
			}
			wg.Wait()
			done := map[string]int{}
			for k := range tc.procs {
				if errs[k] != nil {
					t.Errorf("process %d: %v\n%s", k, errs[k], outs[k])
				}
				for _, line := range strings.Split(outs[k], "\n") {
					if f := strings.Fields(line); len(f) >= 3 && f[1] == "done" {
						done[f[2]]++
					}
				}
			}
			for _, id := range tinyRuns {
				if done[id] != 1 {
					t.Errorf("%s reported done by %d processes, want 1 (disjoint sets):\n%s", id, done[id], strings.Join(outs, "\n---\n"))
				}
			}
			checkAttempts(t, out, tinyRuns)
		})
	}
}

// A run directory, study.log or attempt log that is a symbolic link is
// refused by name; the link's target is untouched.
func TestStudySymlinksNotFollowed(t *testing.T) {
	bin := buildBinary(t)
	spec := filepath.Join(t.TempDir(), "conc.yaml")
	if err := os.WriteFile(spec, []byte(fmt.Sprintf(concurrentStudy, 200, 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	victim := t.TempDir()
	precious := filepath.Join(victim, "precious.txt")
	if err := os.WriteFile(precious, []byte("keep me\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, link, target, want string
	}{
		{"run dir", "runs/reach/uniform/s1", victim, "runs/reach/uniform/s1 is a symbolic link"},
		{"arm dir", "runs/reach/uniform", victim, "runs/reach/uniform is a symbolic link"},
		{"study.log", "runs/reach/uniform/s1/study.log", precious, "study.log is a symbolic link, not a regular file"},
		{"attempt log", "runs/reach/uniform/s1/study-attempts.jsonl", precious, "study-attempts.jsonl"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "st")
			l := filepath.Join(out, filepath.FromSlash(tc.link))
			if err := os.MkdirAll(filepath.Dir(l), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(tc.target, l); err != nil {
				t.Fatal(err)
			}
			m := runMeasured(t, "study run, symlinked "+tc.name, nil, bin, "study", "run", spec, "--out", out, "--arms", "uniform")
			faultOK(t, m, tc.want)
			if b, err := os.ReadFile(precious); err != nil || string(b) != "keep me\n" {
				t.Errorf("the link's target changed: %q, %v", b, err)
			}
			ents, _ := os.ReadDir(victim)
			if len(ents) != 1 {
				t.Errorf("the linked directory now holds %d entries, want only precious.txt", len(ents))
			}
		})
	}
}

// startGroup starts bin in its own process group (as a shell starts a
// job) and returns the command and its combined output buffer.
func startGroup(t *testing.T, bin string, args ...string) (*exec.Cmd, *syncBuffer) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.Env = append(os.Environ(), "GOMAXPROCS=1", "OPENBLAS_NUM_THREADS=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	return cmd, out
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// longStudy is 1 arm × 2 seeds, long enough to be stopped mid-run.
const longStudy = `name: long
base:
  reward: dense
  replay: uniform
  steps: 12000
  num_envs: 2
  max_episode_len: 50
  sac: {hidden: [8, 8], batch_size: 16, learning_starts: 100}
  eval: {every: 0, episodes: 1, gif: false}
  log: {every: 1000, tensorboard: false}
  checkpoint: {every: 500}
tasks: [reach]
arms:
  - name: uniform
    set: {}
seeds: [1, 2]
`

var longRuns = []string{"runs/reach/uniform/s1", "runs/reach/uniform/s2"}

func writeLong(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "long.yaml")
	if err := os.WriteFile(p, []byte(longStudy), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Ctrl-C to the study's process group, twice: the runner forwards one
// stop to each child, which checkpoints and exits 130 (not killed by the
// second signal), and the attempts say so.
func TestStudySIGINTToProcessGroup(t *testing.T) {
	bin := buildBinary(t)
	out := filepath.Join(t.TempDir(), "st")
	cmd, buf := startGroup(t, bin, "study", "run", writeLong(t), "--out", out, "--parallel", "2")
	waitFor(t, "both runs to checkpoint", func() bool {
		return hasCheckpoint(filepath.Join(out, longRuns[0])) && hasCheckpoint(filepath.Join(out, longRuns[1]))
	})
	pg := cmd.Process.Pid
	_ = syscall.Kill(-pg, syscall.SIGINT)
	time.Sleep(20 * time.Millisecond)
	_ = syscall.Kill(-pg, syscall.SIGINT) // the impatient second Ctrl-C
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("study run: %v, want exit 130:\n%s", err, buf.String())
	}
	for _, id := range longRuns {
		dir := filepath.Join(out, id)
		at := study.Attempts(dir)
		if len(at) != 1 || at[0].ExitCode != 130 || at[0].Signal != "" {
			t.Errorf("%s: attempts %+v, want one that exited 130 after its stop checkpoint", id, at)
		}
		if _, _, err := rundir.LatestCheckpoint(dir); err != nil {
			t.Errorf("%s: no stop checkpoint: %v", id, err)
		}
	}
	if strings.Count(buf.String(), "at a checkpoint") != 2 {
		t.Errorf("want two 'stopped … at a checkpoint' lines:\n%s", buf.String())
	}
}

// A second SIGINT and a SIGHUP to a training in its grace period do not
// kill it: it checkpoints and exits 130. SIGHUP alone stops it the same way.
func TestTrainSecondSignalAndSIGHUP(t *testing.T) {
	bin := buildBinary(t)
	for _, sigs := range [][]syscall.Signal{{syscall.SIGINT, syscall.SIGINT, syscall.SIGHUP}, {syscall.SIGHUP}} {
		out := filepath.Join(t.TempDir(), "run")
		args := tiny(out)
		for i, a := range args {
			if a == "200" && args[i-1] == "--steps" {
				args[i] = "200000"
			}
		}
		cmd, buf := startGroup(t, bin, args...)
		waitFor(t, "a checkpoint", func() bool { return hasCheckpoint(out) })
		for _, s := range sigs {
			_ = cmd.Process.Signal(s)
			time.Sleep(5 * time.Millisecond)
		}
		err := cmd.Wait()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
			t.Fatalf("%v: %v, want exit 130 (stopped at a checkpoint):\n%s", sigs, err, buf.String())
		}
		if !strings.Contains(buf.String(), "checkpoint at step") {
			t.Errorf("%v: no stop checkpoint reported:\n%s", sigs, buf.String())
		}
		if len(sigs) > 1 && !strings.Contains(buf.String(), "ignored") {
			t.Errorf("%v: the second signal was not reported as ignored:\n%s", sigs, buf.String())
		}
	}
}

// kill -9 of the study: each child gets one SIGINT (Pdeathsig),
// checkpoints, records its own attempt and releases the run; the next
// `study run` resumes both and finishes each exactly once.
func TestStudySIGKILLOfRunner(t *testing.T) {
	bin := buildBinary(t)
	out := filepath.Join(t.TempDir(), "st")
	spec := writeLong(t)
	cmd, buf := startGroup(t, bin, "study", "run", spec, "--out", out, "--parallel", "2")
	waitFor(t, "both runs to checkpoint", func() bool {
		return hasCheckpoint(filepath.Join(out, longRuns[0])) && hasCheckpoint(filepath.Join(out, longRuns[1]))
	})
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	for _, id := range longRuns {
		dir := filepath.Join(out, id)
		waitFor(t, id+" to be released by its orphaned child", func() bool { return runlock.Probe(dir) == nil })
		at := study.Attempts(dir)
		if len(at) != 1 || !at[0].Orphaned || at[0].ExitCode != 130 || at[0].CPUS <= 0 {
			t.Errorf("%s: attempts %+v, want one orphaned attempt that exited 130 with its CPU time", id, at)
		}
		if _, _, err := rundir.LatestCheckpoint(dir); err != nil {
			t.Errorf("%s: %v", id, err)
		}
	}
	// the next study run resumes both and finishes each once
	rerun := exec.Command(bin, "study", "run", spec, "--out", out, "--parallel", "2")
	rerun.Env = append(os.Environ(), "GOMAXPROCS=1", "OPENBLAS_NUM_THREADS=1")
	if b, err := rerun.CombinedOutput(); err != nil {
		t.Fatalf("rerun: %v\n%s\nfirst run:\n%s", err, b, buf.String())
	}
	checkAttempts(t, out, []string{"reach/uniform/s1", "reach/uniform/s2"})
	for _, id := range longRuns {
		if at := study.Attempts(filepath.Join(out, id)); len(at) != 2 || !at[1].Resumed {
			t.Errorf("%s: attempts %+v, want the orphaned one and one resumed", id, at)
		}
	}
}
