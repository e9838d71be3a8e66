package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
)

// benchFlags is the table of robot-train bench's flags.
var benchFlags = []flagDef{
	{name: "task", def: "push", help: "task whose scene is simulated and rendered"},
	{name: "seconds", kind: "float", def: "2", help: "seconds per measurement"},
	{name: "render-backend", def: "auto", help: "renderer: auto|egl|soft"},
	{name: "replay-capacity", kind: "int", def: "262144", help: "replay buffer size for the sampling measurements"},
	{name: "blas", def: "auto", help: "BLAS backend for the SAC measurements: auto|gonum|openblas"},
}

// cmdBench prints Throughput: a quick look at this machine's rates.
// The benchmarks of record are go test -bench (see bench/RESULTS.md).
func cmdBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	b, err := commandFlags("bench", "[--task NAME] [--seconds S]", benchFlags, args, stderr)
	if err != nil {
		return err
	}
	secs := b.f64("seconds")
	rows, err := Throughput(ctx, ThroughputOptions{Task: b.str("task"), Seconds: secs, Backend: b.str("render-backend"),
		Capacity: b.int("replay-capacity"), BLAS: b.str("blas")})
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	_, _ = fmt.Fprintln(tw, "MEASUREMENT\tRATE\tUNIT\tNOTE")
	for _, r := range rows {
		if r.Err != nil {
			_, _ = fmt.Fprintf(tw, "%s\t-\t%s\tunavailable: %v\n", r.What, r.Unit, r.Err)
			continue
		}
		_, _ = fmt.Fprintf(tw, "%s\t%.0f\t%s\t%s\n", r.What, r.Rate, r.Unit, r.Note)
	}
	_, _ = fmt.Fprintf(tw, "(%.1f s per measurement; numbers depend on machine load; the benchmarks of record are go test -bench)\n", secs)
	return tw.Flush()
}
