package mjoracle

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Version is the mujoco-js cache folder scripts/mujoco-oracle.sh installs.
const Version = "mujoco-js-0.0.7"

// Line is one line of scripts/mujoco-oracle.mjs (and of
// `robot-train simulate --json`).
type Line struct {
	Time float64   `json:"time"`
	Qpos []float64 `json:"qpos"`
	Qvel []float64 `json:"qvel"`
}

// Dir returns the folder holding node_modules/mujoco-js: MUJOCO_JS_DIR,
// else MUJOCO_JS_CACHE, else scripts/mujoco-oracle.sh's cache
// ($XDG_CACHE_HOME or ~/.cache, then vlmrb/Version). When it or node is
// missing it skips t, or fails it when VLMRB_MUJOCO_ORACLE=require.
func Dir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("MUJOCO_JS_DIR")
	if dir == "" {
		dir = os.Getenv("MUJOCO_JS_CACHE")
	}
	if dir == "" {
		cache := os.Getenv("XDG_CACHE_HOME")
		if cache == "" {
			if h, err := os.UserHomeDir(); err == nil {
				cache = filepath.Join(h, ".cache")
			}
		}
		dir = filepath.Join(cache, "vlmrb", Version)
	}
	_, err := os.Stat(filepath.Join(dir, "node_modules", "mujoco-js", "dist", "mujoco_wasm.js"))
	_, nodeErr := exec.LookPath("node")
	if err != nil || nodeErr != nil {
		msg := fmt.Sprintf("MuJoCo 3.3.8 oracle missing (node on PATH: %v; mujoco-js in %s: %v): run scripts/mujoco-oracle.sh --install-only", nodeErr == nil, dir, err == nil)
		if os.Getenv("VLMRB_MUJOCO_ORACLE") == "require" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return dir
}

// script returns scripts/mujoco-oracle.mjs of the repository the test
// runs in: the first folder at or above the working directory (a test's
// package folder) that holds it.
func script(t testing.TB) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatalf("mujoco oracle: %v", err)
	}
	for d := wd; ; d = filepath.Dir(d) {
		p := filepath.Join(d, "scripts", "mujoco-oracle.mjs")
		if _, err := os.Stat(p); err == nil {
			return p
		}
		if filepath.Dir(d) == d {
			t.Fatalf("mujoco oracle: no scripts/mujoco-oracle.mjs at or above %s", wd)
		}
	}
}

// Run runs MuJoCo 3.3.8 (scripts/mujoco-oracle.mjs with args, mujoco-js
// from dir, as Dir returns it) and returns its lines; a failure fails t
// with the oracle's stderr.
func Run(t testing.TB, dir string, args ...string) []Line {
	t.Helper()
	cmd := exec.Command("node", append([]string{script(t)}, args...)...)
	cmd.Env = append(os.Environ(), "MUJOCO_JS_DIR="+dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("mujoco oracle %v: %v\n%s", args, err, stderr.String())
	}
	var lines []Line
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var l Line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("oracle line %q: %v", sc.Text(), err)
		}
		lines = append(lines, l)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("mujoco oracle %v: reading its output: %v", args, err)
	}
	return lines
}

// MaxDiff returns the largest absolute difference between a's and b's
// qpos (qvel when qvel is set), line by line over a's lines, and the time
// of a's line where it occurs; a NaN on either side counts as worst.
func MaxDiff(a, b []Line, qvel bool) (worst, at float64) {
	for i := range a {
		x, y := a[i].Qpos, b[i].Qpos
		if qvel {
			x, y = a[i].Qvel, b[i].Qvel
		}
		for k := range x {
			if d := math.Abs(x[k] - y[k]); d > worst || math.IsNaN(d) {
				worst, at = d, a[i].Time
			}
		}
	}
	return worst, at
}
