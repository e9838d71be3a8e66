package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/train/study"
)

// tinyStudy is a 2 arms × 2 seeds grid of short, cheap runs.
const tinyStudy = `name: tiny
base:
  reward: dense
  replay: uniform
  steps: %d
  num_envs: 2
  max_episode_len: 50
  sac: {hidden: [16, 16], batch_size: 16, learning_starts: 100}
  eval: {every: 200, episodes: 1, gif: false}
  log: {every: 200, tensorboard: false}
  checkpoint: {every: 200}
tasks: [reach]
arms:
  - name: uniform
    set: {}
  - name: per
    set: {replay: per}
seeds: [1, 2]
`

func writeStudy(t *testing.T, steps int) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "tiny.yaml")
	if err := os.WriteFile(p, []byte(fmt.Sprintf(tinyStudy, steps)), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

var tinyRuns = []string{"reach/uniform/s1", "reach/uniform/s2", "reach/per/s1", "reach/per/s2"}

func attempts(t *testing.T, dir, id string) []study.Attempt {
	t.Helper()
	return study.Attempts(filepath.Join(dir, "runs", filepath.FromSlash(id)))
}

// Killing `study run` midway and rerunning it finishes the grid without
// redoing finished runs; the interrupted run resumes from its checkpoint.
func TestStudyRunResumesAfterInterrupt(t *testing.T) {
	bin := buildBinary(t)
	spec := writeStudy(t, 1200)
	out := filepath.Join(t.TempDir(), "st")
	cmd := exec.Command(bin, "study", "run", spec, "--out", out, "--parallel", "1")
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// wait for the first finished run, then for the second to have a checkpoint
	deadline := time.Now().Add(3 * time.Minute)
	first := filepath.Join(out, "runs", "reach", "uniform", "s1")
	second := filepath.Join(out, "runs", "reach", "uniform", "s2")
	for study.RunState(first) != study.Done || !hasCheckpoint(second) {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("no finished run and checkpoint within 3 minutes: %s", stdout.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("interrupted study run: %v, want exit 130\n%s", err, stdout.String())
	}
	if st := study.RunState(second); st != study.Partial {
		t.Fatalf("interrupted run is %s, want partial (resumable)", st)
	}

	// rerun: finishes everything, the done run untouched
	res, err := exec.Command(bin, "study", "run", spec, "--out", out, "--parallel", "2").CombinedOutput()
	if err != nil {
		t.Fatalf("rerun: %v\n%s", err, res)
	}
	// progress: each run's start (or resume) and, after each, k of N with CPU time and ETA
	if !strings.Contains(string(res), "resume reach/") || !regexp.MustCompile(`start reach/\w+/s\d \(\d+ steps\)`).Match(res) {
		t.Errorf("rerun output lacks the start/resume lines:\n%s", res)
	}
	if !regexp.MustCompile(`done reach/\w+/s\d \(\d+ CPU-s\); \d of 4 runs, [0-9.]+ CPU-h so far, ETA [0-9:-]+`).Match(res) {
		t.Errorf("rerun output lacks 'k of N runs, CPU-h so far, ETA':\n%s", res)
	}
	for _, id := range tinyRuns {
		if st := study.RunState(filepath.Join(out, "runs", filepath.FromSlash(id))); st != study.Done {
			t.Errorf("%s is %s after the rerun", id, st)
		}
	}
	if n := len(attempts(t, out, "reach/uniform/s1")); n != 1 {
		t.Errorf("the run finished before the interrupt was worked on by %d processes, want 1", n)
	}
	at := attempts(t, out, "reach/uniform/s2")
	if len(at) != 2 || at[0].ExitCode != 130 || !at[1].Resumed {
		t.Errorf("interrupted run's attempts: %+v, want an exit-130 one, then a resumed one", at)
	}
	checkBLASPin(t, out, "reach/uniform/s2", 2)

	// report --json: per arm IQM, CI bounds, AUC, probability of improvement
	rep, err := exec.Command(bin, "study", "report", out, "--json", "--reps", "200").Output()
	if err != nil {
		t.Fatalf("report: %v", err)
	}
	var r struct {
		Status struct{ Done, Total int }
		Tasks  []struct {
			Task string
			Arms []struct {
				Arm     string
				Runs    int
				IQM     map[string]*float64 `json:"final_iqm"`
				AUC     map[string]*float64 `json:"auc_iqm"`
				ProbImp map[string]*float64 `json:"prob_improvement"`
			}
		}
	}
	if err := json.Unmarshal(rep, &r); err != nil {
		t.Fatalf("report JSON: %v\n%s", err, rep)
	}
	if r.Status.Done != 4 || r.Status.Total != 4 || len(r.Tasks) != 1 || len(r.Tasks[0].Arms) != 2 {
		t.Fatalf("report: %s", rep)
	}
	for _, a := range r.Tasks[0].Arms {
		if a.Runs != 2 || a.IQM["point"] == nil || a.IQM["lo"] == nil || a.IQM["hi"] == nil || a.AUC["point"] == nil {
			t.Errorf("arm %s: %+v", a.Arm, a)
		}
		if lo, p, hi := *a.IQM["lo"], *a.IQM["point"], *a.IQM["hi"]; !(lo <= p && p <= hi) {
			t.Errorf("arm %s: IQM %v outside [%v, %v]", a.Arm, p, lo, hi)
		}
		if (a.Arm == "per") != (a.ProbImp != nil) {
			t.Errorf("arm %s: probability of improvement %v (only the non-baseline arm has one)", a.Arm, a.ProbImp)
		}
	}
	for _, f := range []string{"report.md", "report.json", "curves/reach.png"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("report did not write %s", f)
		}
	}

	// against another baseline: its own files, the default report kept
	if res, err := exec.Command(bin, "study", "report", out, "--baseline", "per", "--reps", "200").CombinedOutput(); err != nil {
		t.Fatalf("report --baseline per: %v\n%s", err, res)
	}
	vs, err := os.ReadFile(filepath.Join(out, "report-vs-per.md"))
	if err != nil || !strings.Contains(string(vs), "P(> per)") {
		t.Errorf("report --baseline per did not write report-vs-per.md comparing against per (%v)", err)
	}
	def, _ := os.ReadFile(filepath.Join(out, "report.md"))
	if !strings.Contains(string(def), "P(> uniform)") {
		t.Errorf("report --baseline per overwrote report.md (the study's own baseline is uniform)")
	}
}

// checkBLASPin checks that a study froze an OpenBLAS kernel, that every
// attempt of run id recorded it, and that each of the run's sessions ran
// on it (platform.json) where OpenBLAS is compiled in.
func checkBLASPin(t *testing.T, out, id string, sessions int) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, study.BLASCoreFile))
	if err != nil {
		t.Fatalf("no %s: %v", study.BLASCoreFile, err)
	}
	var pin struct {
		Core string `json:"openblas_coretype"`
	}
	if err := json.Unmarshal(b, &pin); err != nil {
		t.Fatal(err)
	}
	for _, a := range attempts(t, out, id) {
		if a.BLASCore != pin.Core {
			t.Errorf("attempt %+v does not record the pinned kernel %q", a, pin.Core)
		}
	}
	pb, err := os.ReadFile(filepath.Join(out, "runs", filepath.FromSlash(id), rundir.PlatformFile))
	if err != nil {
		t.Fatal(err)
	}
	var ps []rundir.PlatformSession
	if err := json.Unmarshal(pb, &ps); err != nil {
		t.Fatal(err)
	}
	if len(ps) != sessions {
		t.Fatalf("%s: %d sessions in platform.json, want %d", id, len(ps), sessions)
	}
	for _, s := range ps {
		if s.CoreTypeEnv != pin.Core || (s.BLAS.OpenBLASCore != "" && pin.Core != "" && !strings.EqualFold(s.BLAS.OpenBLASCore, pin.Core)) {
			t.Errorf("%s ran with OPENBLAS_CORETYPE %q on core %q, the study pinned %q", id, s.CoreTypeEnv, s.BLAS.OpenBLASCore, pin.Core)
		}
	}
}

func hasCheckpoint(dir string) bool {
	m, _ := filepath.Glob(filepath.Join(dir, "checkpoints", "step-*", "manifest.json"))
	return len(m) > 0
}

// --shard 1/3, 2/3 and 3/3 together run every run exactly once.
func TestStudyShardsRunEachOnce(t *testing.T) {
	bin := buildBinary(t)
	spec := writeStudy(t, 300)
	out := filepath.Join(t.TempDir(), "st")
	for k := 1; k <= 3; k++ {
		res, err := exec.Command(bin, "study", "run", spec, "--out", out, "--shard", fmt.Sprintf("%d/3", k)).CombinedOutput()
		if err != nil {
			t.Fatalf("shard %d/3: %v\n%s", k, err, res)
		}
	}
	for _, id := range tinyRuns {
		if n := len(attempts(t, out, id)); n != 1 {
			t.Errorf("%s ran %d times over the three shards, want 1", id, n)
		}
	}
	// a bad shard is a usage error
	res, err := exec.Command(bin, "study", "run", spec, "--out", out, "--shard", "4/3").CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(res), "K/N") {
		t.Errorf("--shard 4/3: %v %s", err, res)
	}
}

// A study file whose steps was raised continues each finished run from
// its last checkpoint to the new budget, keeping what it recorded; a
// lowered steps, or a raised one with any other change, is refused.
func TestStudyExtendsToRaisedSteps(t *testing.T) {
	bin := buildBinary(t)
	out := filepath.Join(t.TempDir(), "st")
	if res, err := exec.Command(bin, "study", "run", writeStudy(t, 400), "--out", out).CombinedOutput(); err != nil {
		t.Fatalf("first budget: %v\n%s", err, res)
	}
	longer := writeStudy(t, 800)
	if code, stdout, stderr := runCLI(t, "study", "run", longer, "--out", out, "--dry-run"); code != 0 || strings.Count(stdout+stderr, "would extend") != len(tinyRuns) {
		t.Errorf("dry run of the raised budget: exit %d, want %d 'would extend' lines:\n%s%s", code, len(tinyRuns), stdout, stderr)
	}
	res, err := exec.Command(bin, "study", "run", longer, "--out", out).CombinedOutput()
	if err != nil {
		t.Fatalf("raised budget: %v\n%s", err, res)
	}
	for _, id := range tinyRuns {
		dir := filepath.Join(out, "runs", filepath.FromSlash(id))
		if st := study.RunState(dir); st != study.Done {
			t.Errorf("%s is %s after the raised budget", id, st)
		}
		if _, m, err := rundir.LatestCheckpoint(dir); err != nil || m.Step != 800 {
			t.Errorf("%s: last checkpoint %+v (%v), want step 800", id, m, err)
		}
		at := attempts(t, out, id)
		if len(at) != 2 || at[0].Resumed || !at[1].Resumed {
			t.Errorf("%s attempts %+v, want a fresh one, then a resumed one", id, at)
		}
		rows, err := rundir.ReadMetricsJSONL(filepath.Join(dir, "metrics.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		evals := map[int64]bool{}
		for _, r := range rows {
			if _, ok := r.Values["eval/success_rate"]; ok {
				evals[r.Step] = true
			}
		}
		for _, step := range []int64{200, 400, 600, 800} {
			if !evals[step] {
				t.Errorf("%s: no evaluation at step %d after the extension (have %v)", id, step, evals)
			}
		}
	}
	// a run stopped part-way (here: its done mark gone, its checkpoint at
	// 800) under a raised budget records the new one; a second call of
	// the same file has nothing left to extend
	if err := os.Remove(filepath.Join(out, "runs", "reach", "uniform", "s1", "study-done.json")); err != nil {
		t.Fatal(err)
	}
	further := writeStudy(t, 1000)
	if res, err := exec.Command(bin, "study", "run", further, "--out", out).CombinedOutput(); err != nil {
		t.Fatalf("raised again: %v\n%s", err, res)
	}
	res, err = exec.Command(bin, "study", "run", further, "--out", out).CombinedOutput()
	if err != nil || strings.Contains(string(res), "extend") {
		t.Errorf("the same raised file again: %v, want nothing extended:\n%s", err, res)
	}
	for _, id := range tinyRuns {
		b, err := os.ReadFile(filepath.Join(out, "runs", filepath.FromSlash(id), "study-config.yaml"))
		if err != nil || !regexp.MustCompile(`(?m)^steps: 1000$`).Match(b) {
			t.Errorf("%s: study-config.yaml does not record steps 1000 (%v)", id, err)
		}
	}
	// done at 1000: neither a lower budget nor another change goes on
	res, err = exec.Command(bin, "study", "run", writeStudy(t, 600), "--out", out).CombinedOutput()
	if err == nil || !strings.Contains(string(res), "steps: 1000 → 600") {
		t.Errorf("a lowered budget: %v\n%s", err, res)
	}
	other := filepath.Join(t.TempDir(), "other.yaml")
	if err := os.WriteFile(other, []byte(strings.Replace(fmt.Sprintf(tinyStudy, 1200), "batch_size: 16", "batch_size: 32", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err = exec.Command(bin, "study", "run", other, "--out", out).CombinedOutput()
	if err == nil || !strings.Contains(string(res), "batch_size") {
		t.Errorf("a raised budget with another change: %v\n%s", err, res)
	}
}

// A dry run lists the runs and writes nothing: no study directory, no
// frozen defaults, and an existing directory's copy of the study file stays
// as the runs that started were resolved against.
func TestStudyDryRunWritesNothing(t *testing.T) {
	spec := writeStudy(t, 300)
	out := filepath.Join(t.TempDir(), "st")
	code, stdout, stderr := runCLI(t, "study", "run", spec, "--out", out, "--dry-run")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if n := strings.Count(stdout+stderr, "would start"); n != len(tinyRuns) {
		t.Errorf("dry run lists %d runs to start, want %d:\n%s%s", n, len(tinyRuns), stdout, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("dry run created %s (stat: %v)", out, err)
	}
	if !strings.Contains(stdout, "CPU time left: 4 runs, 1200 env steps left; no finished run in this study") {
		t.Errorf("dry run gives no CPU-time line for a study without finished runs:\n%s", stdout)
	}
	// --calibrate times a short training of each arm, keeps nothing, and forecasts
	// (the built binary: calibration runs robot-train train as a child)
	cal, err := exec.Command(buildBinary(t), "study", "run", spec, "--out", out, "--dry-run", "--calibrate").CombinedOutput()
	if err != nil || strings.Count(string(cal), "calibration of arm ") != 2 || !strings.Contains(string(cal), "(2 arms calibrated by a short training") {
		t.Errorf("--calibrate: %v\n%s", err, cal)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("a calibrated dry run created %s (stat: %v)", out, err)
	}

	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	old := []byte("# the study as it was\n")
	snap := filepath.Join(out, study.SpecFile)
	if err := os.WriteFile(snap, old, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, "study", "run", spec, "--out", out, "--dry-run"); code != 0 {
		t.Fatalf("second dry run: exit %d: %s", code, stderr)
	}
	if b, err := os.ReadFile(snap); err != nil || !bytes.Equal(b, old) {
		t.Errorf("dry run rewrote %s: %q (%v)", snap, b, err)
	}
	if _, err := os.Stat(filepath.Join(out, study.DefaultsFile)); !os.IsNotExist(err) {
		t.Errorf("dry run wrote %s (stat: %v)", study.DefaultsFile, err)
	}
}
