//go:build mujoco

package main

/*
#cgo LDFLAGS: -lmujoco
#include <mujoco/mujoco.h>
static void stepn(mjModel* m, mjData* d, int n) { for (int i = 0; i < n; i++) mj_step(m, d); }
static void resetzero(mjModel* m, mjData* d) { mj_resetData(m, d); }
*/
import "C"

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/vlmrb/vlmrb/sim/articulated"
	"github.com/vlmrb/vlmrb/sim/mjcf"
)

// artspeed times sim/articulated against MuJoCo 2.2.2 (native, cgo) and
// MuJoCo 3.3.8 (WebAssembly in Node, scripts/mujoco-oracle.sh --speed) on
// the same files and timestep, in interleaved rounds: each engine runs
// -steps steps from qpos0 with zero controls; loading is not timed.
func artspeed(args []string) error {
	fs := flag.NewFlagSet("artspeed", flag.ContinueOnError)
	rounds := fs.Int("rounds", 5, "interleaved rounds")
	steps := fs.Int("steps", 20000, "steps per run")
	node := fs.Bool("node", true, "also time MuJoCo 3.3.8 in Node (scripts/mujoco-oracle.sh)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	fmt.Println("| model | nq/nv/nu | timestep (ms) | articulated steps/s | MuJoCo 2.2.2 native steps/s | ratio | per-round min–max | MuJoCo 3.3.8 WASM steps/s | ratio | per-round min–max | rounds |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|")
	for _, f := range fs.Args() {
		am, err := mjcf.LoadArticulated(f, mjcf.Options{})
		if err != nil {
			return err
		}
		m := am.Model
		d := articulated.NewData(m)
		native, nerr := loadMJ(f)
		var ours, theirs, wasm []float64
		for r := 0; r < *rounds; r++ {
			articulated.Reset(m, d)
			t0 := time.Now()
			for i := 0; i < *steps; i++ {
				articulated.Step(m, d)
			}
			ours = append(ours, float64(*steps)/time.Since(t0).Seconds())
			if d.Warnings.Total() > 0 {
				return fmt.Errorf("%s: the articulated engine warned: %+v", f, d.Warnings)
			}
			if nerr == nil {
				C.resetzero(native.m, native.d)
				t0 = time.Now()
				C.stepn(native.m, native.d, C.int(*steps))
				theirs = append(theirs, float64(*steps)/time.Since(t0).Seconds())
			}
			if *node {
				v, err := nodeSpeed(f, float64(*steps)*m.Opt.Timestep)
				if err != nil {
					return err
				}
				wasm = append(wasm, v)
			}
		}
		if nerr == nil {
			native.close()
		}
		cells := func(theirs []float64) string {
			if len(theirs) == 0 {
				return "— | — | —"
			}
			return ratioCells(ours, theirs)[strings.Index(ratioCells(ours, theirs), "|")+2:]
		}
		nat := cells(theirs)
		if nerr != nil {
			nat = "refused: " + strings.ReplaceAll(firstLine(nerr.Error()), "|", "/") + " | — | —"
		}
		fmt.Printf("| %s | %d/%d/%d | %g | %.0f | %s | %s | %d |\n", filepath.Base(f), m.NQ, m.NV, m.NU,
			m.Opt.Timestep*1000, median(ours), nat, cells(wasm), *rounds)
	}
	return nil
}

// nodeSpeed runs MuJoCo 3.3.8 in Node for duration s of simulated time.
func nodeSpeed(f string, duration float64) (float64, error) {
	script := filepath.Join("scripts", "mujoco-oracle.sh")
	if _, err := os.Stat(script); err != nil {
		return 0, fmt.Errorf("run from the repository root (%s: %v)", script, err)
	}
	out, err := exec.Command(script, "--model", f, "--duration", fmt.Sprint(duration), "--speed").Output()
	if err != nil {
		return 0, fmt.Errorf("%s %s: %v", script, f, err)
	}
	var r struct {
		StepsPerSecond float64 `json:"steps_per_second"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		return 0, fmt.Errorf("%s %s: %q: %v", script, f, out, err)
	}
	return r.StepsPerSecond, nil
}
