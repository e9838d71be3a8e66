package tasks_test

import (
	"bufio"
	"encoding/binary"
	"flag"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/vlmrb/vlmrb/tasks"
)

var updatePhysics = flag.Bool("update-physics", false, "rewrite testdata/physics_hash.txt for this GOARCH")

// physicsHash runs 3 expert episodes (seeds 1-3, at most 150 control steps
// each) of the named task and returns an FNV-64a hash of every bit of
// every body's pose and velocity, every reward and every contact's normal
// force and depth after every control step.
func physicsHash(t *testing.T, name string) string {
	e, err := tasks.Make(name, tasks.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := fnv.New64a()
	var buf [8]byte
	put := func(x float64) {
		binary.LittleEndian.PutUint64(buf[:], math.Float64bits(x))
		h.Write(buf[:])
	}
	act := make([]float64, e.Spec().ActDim)
	for ep := uint64(1); ep <= 3; ep++ {
		obs, _ := e.Reset(ep)
		pol := e.Expert()
		for k := 0; k < 150; k++ {
			pol.Act(obs, act)
			o, r, term, trunc, _, err := e.Step(act)
			if err != nil {
				t.Fatal(err)
			}
			obs = o
			put(r)
			for _, b := range e.State().Bodies {
				for _, x := range []float64{b.Pos.X, b.Pos.Y, b.Pos.Z, b.Rot.W, b.Rot.X, b.Rot.Y, b.Rot.Z,
					b.Vel.X, b.Vel.Y, b.Vel.Z, b.AngVel.X, b.AngVel.Y, b.AngVel.Z} {
					put(x)
				}
			}
			for _, c := range e.State().Contacts() {
				put(c.NormalForce)
				put(c.Depth)
			}
			if term || trunc {
				break
			}
		}
	}
	return fmt.Sprintf("%#016x", h.Sum64())
}

// TestTaskPhysicsHash guards the built-in tasks' physics, which every
// study result depends on: 3 expert episodes of each task hash to the
// constants committed in testdata/physics_hash.txt for this GOARCH (like
// sim's TestDeterminism). A speed-up of the simulator must keep them; run
// with -update-physics only when the physics changes on purpose.
func TestTaskPhysicsHash(t *testing.T) {
	path := filepath.Join("testdata", "physics_hash.txt")
	want := map[string]string{} // "GOARCH task" -> hash
	if f, err := os.Open(path); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if fs := strings.Fields(sc.Text()); len(fs) == 3 && !strings.HasPrefix(fs[0], "#") {
				want[fs[0]+" "+fs[1]] = fs[2]
			}
		}
		f.Close()
	}
	missing := 0
	for _, name := range tasks.Names() {
		got := physicsHash(t, name)
		key := runtime.GOARCH + " " + name
		if *updatePhysics {
			want[key] = got
			continue
		}
		w, ok := want[key]
		if !ok {
			missing++
			continue
		}
		if w != got {
			t.Errorf("%s: physics hash %s, committed %s for %s (re-record with -update-physics only if the physics changed on purpose)", name, got, w, runtime.GOARCH)
		}
	}
	if *updatePhysics {
		keys := make([]string, 0, len(want))
		for k := range want {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var sb strings.Builder
		sb.WriteString("# GOARCH task hash: TestTaskPhysicsHash (3 expert episodes per task)\n")
		for _, k := range keys {
			fmt.Fprintf(&sb, "%s %s\n", k, want[k])
		}
		tmp := path + ".tmp"
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(tmp, []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
		return
	}
	if missing > 0 {
		t.Skipf("no committed hash for %d tasks on GOARCH=%s; record them with -update-physics", missing, runtime.GOARCH)
	}
}
