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
	"runtime"
	"strings"
	"syscall"

	"github.com/vlmrb/vlmrb/sim/articulated"
	"github.com/vlmrb/vlmrb/sim/mjcf"
)

// artspeed times sim/articulated against MuJoCo 2.2.2 (native, cgo) and
// MuJoCo 3.3.8 (WebAssembly in Node, scripts/mujoco-oracle.sh --speed) on
// the same files and timestep, in interleaved rounds: each engine runs
// -steps steps from qpos0 with zero controls; loading is not timed. It
// reports steps per CPU-second of the stepping thread (Node: of the
// process), which a loaded machine distorts far less than wall time.
func artspeed(args []string) error {
	fs := flag.NewFlagSet("artspeed", flag.ContinueOnError)
	rounds := fs.Int("rounds", 5, "interleaved rounds")
	steps := fs.Int("steps", 20000, "steps per run")
	node := fs.Bool("node", true, "also time MuJoCo 3.3.8 in Node (scripts/mujoco-oracle.sh)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	fmt.Println("| model | nq/nv/nu | timestep (ms) | articulated steps/cpu-s | MuJoCo 2.2.2 native steps/cpu-s | ratio | per-round min–max | MuJoCo 3.3.8 WASM steps/cpu-s | ratio | per-round min–max | rounds |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|")
	// CPU time, not wall time: on a shared machine a descheduled engine
	// loses wall time it did not spend
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for _, f := range fs.Args() {
		am, err := mjcf.Load(f, mjcf.Options{})
		if err != nil {
			return err
		}
		m := am.Model
		d := articulated.NewData(m)
		native, nerr := loadMJ(f)
		var ours, theirs, wasm []float64
		for r := 0; r < *rounds; r++ {
			articulated.Reset(m, d)
			c0 := threadCPU()
			for i := 0; i < *steps; i++ {
				articulated.Step(m, d)
			}
			ours = append(ours, float64(*steps)/max(threadCPU()-c0, 1e-9))
			if d.Warnings.Total() > 0 {
				return fmt.Errorf("%s: the articulated engine warned: %+v", f, d.Warnings)
			}
			if nerr == nil {
				C.resetzero(native.m, native.d)
				c0 = threadCPU()
				C.stepn(native.m, native.d, C.int(*steps))
				theirs = append(theirs, float64(*steps)/max(threadCPU()-c0, 1e-9))
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
		StepsPerCPUSecond float64 `json:"steps_per_cpu_second"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		return 0, fmt.Errorf("%s %s: %q: %v", script, f, out, err)
	}
	return r.StepsPerCPUSecond, nil
}

// threadCPU returns the CPU time (s) of the calling OS thread (the caller
// is locked to it).
func threadCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + 1e-6*float64(ru.Utime.Usec+ru.Stime.Usec)
}
