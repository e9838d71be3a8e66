package main

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/vlmrb/vlmrb/internal/platform"
	"github.com/vlmrb/vlmrb/internal/runlock"
	"github.com/vlmrb/vlmrb/nn"
	"github.com/vlmrb/vlmrb/rundir"
)

func TestSuggest(t *testing.T) {
	t.Parallel()
	var trainNames []string
	for _, d := range trainFlags {
		trainNames = append(trainNames, d.name)
	}
	cmds := []string{"train", "eval", "render", "score", "view", "study", "tasks", "bench", "version", "help"}
	for _, tc := range []struct {
		typed string
		known []string
		want  []string
	}{
		{"stpes", trainNames, []string{"steps"}},            // transposition
		{"step", trainNames, []string{"steps"}},             // deletion
		{"sed", trainNames, []string{"seed", "set"}},        // an insertion or a substitution away
		{"check", trainNames, []string{"checkpoint-every"}}, // prefix
		{"eval-every", trainNames, nil},                     // exact: nothing to suggest
		{"learning-start", trainNames, []string{"learning-starts"}},
		{"vlm-url", trainNames, nil},
		{"zzzzzz", trainNames, nil},
		{"trian", cmds, []string{"train"}},
		{"evl", cmds, []string{"eval"}},
		{"Train", cmds, []string{"train"}},
		{"xyz", cmds, nil},
	} {
		if got := suggest(tc.typed, tc.known); !slices.Equal(got, tc.want) {
			t.Errorf("suggest(%q) = %v, want %v", tc.typed, got, tc.want)
		}
	}
}

// TestMistypedNamesAreShort: a mistyped flag or command gets one short
// error with a suggestion, not the whole usage.
func TestMistypedNamesAreShort(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"train", "--stpes", "5"}, "flag provided but not defined: -stpes; did you mean --steps?"},
		{[]string{"train", "-replya=per"}, "did you mean --replay?"},
		{[]string{"eval", "--episodez", "3"}, "did you mean --episodes?"},
		{[]string{"render", "--tsak", "reach"}, "did you mean --task?"},
		{[]string{"trian"}, `unknown command "trian"; did you mean train?`},
		{[]string{"study", "rpeort"}, "did you mean report?"},
		{[]string{"study", "report", "--jsno"}, "did you mean --json?"},
		{[]string{"train", "--steps"}, "flag needs an argument: -steps"},
	} {
		code, stdout, stderr := runCLI(t, tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q lacks %q", tc.args, code, stderr, tc.want)
		}
		if n := strings.Count(stderr, "\n"); n > 2 || stdout != "" {
			t.Errorf("%v: %d lines on stderr, stdout %q; want a short error:\n%s", tc.args, n, stdout, stderr)
		}
	}
}

// TestVersionNamesSelectedBLAS: version reports the BLAS backend train
// selects for the default blas setting (auto: OpenBLAS when compiled in),
// and leaves that backend selected. Not parallel: it selects the process's
// backend, which training tests share.
func TestVersionNamesSelectedBLAS(t *testing.T) {
	want := "gonum"
	if slices.Contains(BLASBackends(), "openblas") {
		want = "openblas"
	}
	code, out, stderr := runCLI(t, "version")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "BLAS backend: "+want+" (selected by blas: auto") {
		t.Fatalf("version does not name the selected backend %s:\n%s", want, out)
	}
	if got := BLASBackend(); got != want {
		t.Fatalf("selected backend %s after version, want %s", got, want)
	}
	// what a run's arithmetic depends on: CPU model, OpenBLAS version and
	// core, Go version, commit
	pi := platform.Describe(platform.BLAS(nn.Library()))
	for _, line := range []string{"\ncpu: ", "go: " + runtime.Version(), "robot-train "} {
		if !strings.Contains(out, line) {
			t.Errorf("version lacks %q:\n%s", line, out)
		}
	}
	if pi.BLAS.OpenBLASCore != "" && !strings.Contains(out, "OpenBLAS: "+pi.BLAS.OpenBLASVersion+", core "+pi.BLAS.OpenBLASCore) {
		t.Errorf("version does not name OpenBLAS %s core %s:\n%s", pi.BLAS.OpenBLASVersion, pi.BLAS.OpenBLASCore, out)
	}
}

func TestViewHelpListsControls(t *testing.T) {
	t.Parallel()
	code, _, stderr := runCLI(t, "view", "-h")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"--checkpoint", "left-drag", "wheel", "Space", "Esc", "C "} {
		if !strings.Contains(stderr, want) {
			t.Errorf("view -h lacks %q:\n%s", want, stderr)
		}
	}
}

// TestExistingRunDir: training into a directory that holds a run is
// refused before anything is printed or written, with what to do; without
// an explicit --out the run steps aside to NAME_2. Not parallel: it
// changes the working directory (the derived --out is relative).
func TestExistingRunDir(t *testing.T) {
	if testing.Short() {
		t.Skip("trains twice")
	}
	t.Chdir(t.TempDir())
	noOut := tiny("")
	noOut = noOut[:len(noOut)-2] // drop --out ""
	if code, so, se := runCLI(t, noOut...); code != 0 {
		t.Fatalf("first run: exit %d\n%s\n%s", code, so, se)
	}
	first := filepath.Join("runs", "reach-uniform-s1") // TASK-REPLAY-sSEED of the defaults
	if _, m, err := rundir.LatestCheckpoint(first); err != nil || m.Step != 200 {
		t.Fatalf("first run not in %s: %v", first, err)
	}
	before := snapshotDir(t, first)

	// explicit --out: refused, stdout empty, the error says what to do
	code, so, se := runCLI(t, tiny(first)...)
	if code != exitUsage || so != "" {
		t.Fatalf("rerun into %s: exit %d, stdout %q (want exit 2 and nothing printed)\n%s", first, code, so, se)
	}
	for _, want := range []string{"already holds a run", "--resume " + first, "--out"} {
		if !strings.HasPrefix(se, "robot-train train: run directory") || !strings.Contains(se, want) {
			t.Fatalf("refusal %q lacks %q", se, want)
		}
	}
	if strings.Contains(se, "finished at env step") {
		t.Fatalf("refusal prints a run summary: %q", se)
	}
	after := snapshotDir(t, first)
	for name, b := range before {
		if name != runlock.FileName && after[name] != b {
			t.Errorf("%s changed by the refused run", name)
		}
	}

	// derived --out: the new run goes to NAME_2 and says so
	code, so, se = runCLI(t, noOut...)
	second := first + "_2"
	if code != 0 || !strings.Contains(se, "writing this one to "+second) {
		t.Fatalf("derived rerun: exit %d\n%s\n%s", code, so, se)
	}
	if _, m, err := rundir.LatestCheckpoint(second); err != nil || m.Step != 200 {
		t.Fatalf("second run not in %s: %v", second, err)
	}
	if _, err := os.Stat(first + "_3"); err == nil {
		t.Fatal("a third directory appeared")
	}
}
