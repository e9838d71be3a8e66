package study

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The pin comes from the study file, else the environment, else the
// default; it is frozen on the first run, and a later run keeps it even
// when the environment says otherwise.
func TestPinBLASCore(t *testing.T) {
	if !cpuRuns(DefaultBLASCore) {
		t.Skip("this CPU cannot run " + DefaultBLASCore)
	}
	for _, tc := range []struct{ spec, env, want string }{
		{"", "", DefaultBLASCore},
		{"", "Sandybridge", "Sandybridge"},
		{"Haswell", "Sandybridge", "Haswell"},
		{"none", "Haswell", ""},
	} {
		if got := newPin(tc.spec, tc.env).Core; got != tc.want {
			t.Errorf("newPin(%q, %q) = %q, want %q", tc.spec, tc.env, got, tc.want)
		}
	}

	dir := t.TempDir()
	t.Setenv("OPENBLAS_CORETYPE", "")
	s := &Spec{}
	if core, err := s.pinBLASCore(dir, false); err != nil || core != DefaultBLASCore {
		t.Fatalf("dry run: %q, %v", core, err)
	}
	if _, err := os.Stat(filepath.Join(dir, BLASCoreFile)); !os.IsNotExist(err) {
		t.Fatal("a dry run wrote the pin")
	}
	if core, err := s.pinBLASCore(dir, true); err != nil || core != DefaultBLASCore {
		t.Fatalf("first run: %q, %v", core, err)
	}
	t.Setenv("OPENBLAS_CORETYPE", "Sandybridge") // another machine's environment
	if core, err := s.pinBLASCore(dir, true); err != nil || core != DefaultBLASCore {
		t.Fatalf("later run: %q, %v; want the frozen %s", core, err, DefaultBLASCore)
	}
	s.BLASCore = "SkylakeX"
	if _, err := s.pinBLASCore(dir, true); err == nil || !strings.Contains(err.Error(), "froze") {
		t.Fatalf("a study file naming another kernel than the frozen one: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, BLASCoreFile), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := (&Spec{}).pinBLASCore(dir, true); err == nil || !strings.Contains(err.Error(), "restore it") {
		t.Fatalf("damaged pin file: %v", err)
	}
}

func TestWithBLASCore(t *testing.T) {
	env := []string{"PATH=/usr/bin", "OPENBLAS_CORETYPE=SkylakeX", "HOME=/h"}
	got := withBLASCore(env, "Haswell")
	if slices.Contains(got, "OPENBLAS_CORETYPE=SkylakeX") || !slices.Contains(got, "OPENBLAS_CORETYPE=Haswell") || len(got) != 3 {
		t.Errorf("withBLASCore = %v", got)
	}
	if env[1] != "OPENBLAS_CORETYPE=SkylakeX" {
		t.Error("withBLASCore modified its input")
	}
	if got := withBLASCore(env, ""); !slices.Equal(got, env) {
		t.Errorf("no pin changed the environment: %v", got)
	}
	if !cpuRuns("Penryn") {
		t.Error("a kernel without known requirements is assumed to run")
	}
}
