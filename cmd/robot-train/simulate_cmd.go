package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/vlmrb/vlmrb/sim/articulated"
	"github.com/vlmrb/vlmrb/sim/mjcf"
)

// simulateFlags is the table of robot-train simulate's flags.
var simulateFlags = []flagDef{
	{name: "model", help: "the MJCF `FILE.xml` to simulate on the articulated engine (sim/articulated)"},
	{name: "keyframe", help: "start from keyframe `K` (name or index), as mj_resetDataKeyframe: qpos, qvel, ctrl, time"},
	{name: "ctrl", help: "hold the controls `a,b,…` (one per actuator; default: the keyframe's, else 0)"},
	{name: "duration", kind: "float", def: "1", help: "simulated `SECONDS`"},
	{name: "every", kind: "int", def: "1", help: "print a line every `STEPS` steps (and at time 0)"},
	{name: "timestep", kind: "float", def: "0", help: "override the model's timestep (`SECONDS`; 0: the model's)"},
	{name: "json", kind: "bool", help: `print {"time","qpos","qvel"} JSON lines (MuJoCo's qpos layout)`},
	{name: "speed", kind: "bool", help: "print steps/s at the model's timestep instead of the trajectory"},
}

func cmdSimulate(_ context.Context, args []string, stdout, stderr io.Writer) error {
	b, err := commandFlags("simulate", "--model FILE.xml [--keyframe K] [--ctrl a,b,…] [--duration S] [--every STEPS] [--json | --speed]", simulateFlags, args, stderr)
	if err != nil {
		return err
	}
	path := b.str("model")
	if path == "" {
		return usagef("give --model FILE.xml")
	}
	every, duration, dt := b.int("every"), b.f64("duration"), b.f64("timestep")
	if every < 1 {
		return usagef("--every %d: must be at least 1", every)
	}
	if !(duration >= 0) || math.IsInf(duration, 0) {
		return usagef("--duration %g: must be a finite number of seconds >= 0", duration)
	}
	if !(dt >= 0) || math.IsInf(dt, 0) {
		return usagef("--timestep %g: must be > 0 (or 0 for the model's)", dt)
	}
	am, err := mjcf.Load(path, mjcf.Options{})
	if err != nil {
		return err
	}
	m := am.Model
	if dt > 0 {
		m.Opt.Timestep = dt
	}
	d := articulated.NewData(m)
	if k := b.str("keyframe"); k != "" {
		i, ok := m.Key(k)
		if !ok {
			n, err := strconv.Atoi(k)
			if err != nil || n < 0 || n >= len(m.Keys) {
				return usagef("--keyframe %q: the model has %d keyframes (names or indices 0..%d)", k, len(m.Keys), len(m.Keys)-1)
			}
			i = n
		}
		if err := articulated.ResetKey(m, d, i); err != nil {
			return err
		}
	}
	if c := b.str("ctrl"); c != "" {
		parts := strings.Split(c, ",")
		if len(parts) != m.NU {
			return usagef("--ctrl has %d values; the model has %d actuators", len(parts), m.NU)
		}
		for i, p := range parts {
			v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return usagef("--ctrl value %d %q is not a finite number", i+1, p)
			}
			d.Ctrl[i] = v
		}
	}
	steps := int(math.Round(duration / m.Opt.Timestep))
	if b.on("speed") {
		t0 := time.Now()
		for range steps {
			articulated.Step(m, d)
		}
		s := time.Since(t0).Seconds()
		_, _ = fmt.Fprintf(stdout, "%s: %d steps of %g s in %.3f s: %.0f steps/s (%.1f× real time), nq %d nv %d nu %d\n",
			path, steps, m.Opt.Timestep, s, float64(steps)/s, duration/s, m.NQ, m.NV, m.NU)
		return simulateWarnings(d, stderr)
	}
	w := bufio.NewWriter(stdout)
	var buf []byte
	line := func() {
		if !b.on("json") {
			buf = fmt.Appendf(buf[:0], "t=%.4f qpos=%.6g\n", d.Time, d.Qpos)
		} else {
			buf = append(buf[:0], `{"time":`...)
			buf = strconv.AppendFloat(buf, d.Time, 'g', -1, 64)
			buf = appendFloats(append(buf, `,"qpos":`...), d.Qpos)
			buf = appendFloats(append(buf, `,"qvel":`...), d.Qvel)
			buf = append(buf, "}\n"...)
		}
		_, _ = w.Write(buf)
	}
	line()
	for i := 1; i <= steps; i++ {
		articulated.Step(m, d)
		if i%every == 0 {
			line()
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return simulateWarnings(d, stderr)
}

func appendFloats(buf []byte, x []float64) []byte {
	buf = append(buf, '[')
	for i, v := range x {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = strconv.AppendFloat(buf, v, 'g', -1, 64)
	}
	return append(buf, ']')
}

// simulateWarnings reports the engine's warnings on stderr.
func simulateWarnings(d *articulated.Data, stderr io.Writer) error {
	if w := d.Warnings; w.Total()-w.Contacts > 0 {
		_, _ = fmt.Fprintf(stderr, "simulate: %d warnings (bad qpos %d, bad qvel %d, bad qacc %d; last at t=%g s): the state was reset to qpos0 each time\n",
			w.Total()-w.Contacts, w.BadQpos, w.BadQvel, w.BadQacc, w.Time)
	}
	if w := d.Warnings; w.Contacts > 0 {
		_, _ = fmt.Fprintf(stderr, "simulate: %d contacts or contact rows dropped over the budget (articulated.Model.MaxContacts)\n", w.Contacts)
	}
	return nil
}
