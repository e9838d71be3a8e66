package vlmviam

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.viam.com/rdk/services/generic"
)

// moduleMeta is the part of meta.json (Viam's module schema) tests read.
type moduleMeta struct {
	ModuleID string `json:"module_id"`
	Models   []struct {
		API   string `json:"api"`
		Model string `json:"model"`
	} `json:"models"`
	Entrypoint string `json:"entrypoint"`
	Build      struct {
		Build string `json:"build"`
		Path  string `json:"path"`
	} `json:"build"`
}

func readMeta(t *testing.T, path string) moduleMeta {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m moduleMeta
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

// TestMetaJSONDeclaresTheModels: meta.json lists exactly the models the
// binary serves under their current names, each as
// namespace:module-name:model with the module name of module_id.
func TestMetaJSONDeclaresTheModels(t *testing.T) {
	m := readMeta(t, filepath.Join("..", "meta.json"))
	var got, want []string
	for _, x := range m.Models {
		got = append(got, x.API+" "+x.Model)
	}
	for _, x := range CurrentModels() {
		want = append(want, x.API.String()+" "+x.Model.String())
		if string(x.Model.Family.Namespace)+":"+x.Model.Family.Name != m.ModuleID {
			t.Errorf("model %s is not of module %s", x.Model, m.ModuleID)
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("meta.json models\n%v\nthe module serves\n%v", got, want)
	}
	if m.Entrypoint != "bin/vlmrb-viam" || m.Build.Path != "module.tar.gz" || m.Build.Build != "make module.tar.gz" {
		t.Fatalf("meta.json entrypoint %q, build %+v", m.Entrypoint, m.Build)
	}
}

// untar unpacks a .tar.gz into dir (regular files and folders only).
func untar(t *testing.T, archive, dir string) {
	t.Helper()
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(h.Name, "..") || filepath.IsAbs(h.Name) {
			t.Fatalf("archive entry %q leaves the folder", h.Name)
		}
		p := filepath.Join(dir, h.Name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			out, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, os.FileMode(h.Mode)&0o755)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := io.Copy(out, tr); err != nil {
				t.Fatal(err)
			}
			if err := out.Close(); err != nil {
				t.Fatal(err)
			}
		default:
			t.Fatalf("archive entry %q of type %c", h.Name, h.Typeflag)
		}
	}
}

// TestE2EPackagedModule: module.tar.gz (make viam-module), copied into a
// fresh temporary folder outside the repository, runs under viam-server
// from there, both ways a user installs it: viam-server given the
// archive itself as the module's executable_path (it unpacks it and
// starts meta.json's entrypoint, as for a registry module), and the
// archive unpacked by hand with executable_path at the entrypoint. In
// both, the module process is the packaged binary and a policy runner on
// its sim components runs.
func TestE2EPackagedModule(t *testing.T) {
	requireE2E(t)
	pkg := os.Getenv("VLMRB_VIAM_PACKAGE")
	if pkg == "" {
		if os.Getenv("VLMRB_VIAM_REQUIRE") == "1" {
			t.Fatal("VLMRB_VIAM_PACKAGE unset: make test-viam builds module.tar.gz and sets it")
		}
		t.Skip("VLMRB_VIAM_PACKAGE unset")
	}
	fi, err := os.Stat(pkg)
	if err != nil {
		t.Fatal(err)
	}
	metric(t, "package_bytes", fi.Size())
	run := trainedRun(t, 1, 3000)
	for _, mode := range []string{"tarball", "unpacked"} {
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			archive := filepath.Join(dir, "module.tar.gz")
			b, err := os.ReadFile(pkg)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(archive, b, 0o644); err != nil {
				t.Fatal(err)
			}
			exe := archive
			if mode == "unpacked" {
				unpacked := filepath.Join(dir, "vlmrb")
				untar(t, archive, unpacked)
				meta := readMeta(t, filepath.Join(unpacked, "meta.json"))
				exe = filepath.Join(unpacked, meta.Entrypoint)
				bi, err := os.Stat(exe)
				if err != nil || bi.Mode()&0o100 == 0 {
					t.Fatalf("entrypoint %s: %v", exe, err)
				}
				metric(t, "package_binary_bytes", bi.Size())
			}
			cfg := map[string]any{
				"modules":    []any{map[string]any{"name": "vlmrb", "type": "local", "executable_path": exe}},
				"components": simComponents("reach", 100),
				"services": []any{map[string]any{"name": "runner", "api": "rdk:service:generic", "model": RunnerModel.String(),
					"attributes": map[string]any{"checkpoint": run, "arm": "arm", "gripper": "gripper", "gripper_mode": "proportional",
						"pose_tracker": "poses", "sim_reset": true, "auto_start": true, "rate_hz": 100}}},
			}
			t0 := time.Now()
			s := startViam(t, cfg, nil)
			runner := s.resource(t, generic.Named("runner"))
			deadline := time.Now().Add(60 * time.Second)
			for {
				st := runnerStatus(t, runner)
				if st["total_steps"].(float64) >= 50 && st["running"] == true {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("runner from the packaged module: %v\n%s", st, tail(s.log.String(), 4000))
				}
				time.Sleep(50 * time.Millisecond)
			}
			metric(t, "package_start_to_50_steps_s", time.Since(t0).Seconds())
			// the module process is the packaged binary, outside the repository
			pexe := packagedModuleExe(t, s.cmd.Process.Pid)
			if mode == "unpacked" && pexe != exe {
				t.Fatalf("module process runs %s, want %s", pexe, exe)
			}
			wd, _ := os.Getwd()
			if rel, err := filepath.Rel(filepath.Join(wd, "..", ".."), pexe); err == nil && !strings.HasPrefix(rel, "..") {
				t.Fatalf("module process %s runs from inside the repository", pexe)
			}
			t.Logf("module process: %s", pexe)
		})
	}
}

// packagedModuleExe returns the executable of viam-server's child named
// vlmrb-viam.
func packagedModuleExe(t *testing.T, serverPid int) string {
	t.Helper()
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if err != nil || filepath.Base(exe) != "vlmrb-viam" {
			continue
		}
		var pid int
		if _, err := fmt.Sscan(e.Name(), &pid); err == nil && ppid(pid) == serverPid {
			return exe
		}
	}
	t.Fatalf("no vlmrb-viam child of viam-server %d", serverPid)
	return ""
}
