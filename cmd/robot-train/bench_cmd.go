package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
)

// cmdBench prints Throughput: a quick look at this machine's rates.
// The benchmarks of record are go test -bench (see bench/RESULTS.md).
func cmdBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("bench", "[--task NAME] [--seconds S]", stderr)
	task := fs.String("task", "push", "task whose scene is simulated and rendered")
	secs := fs.Float64("seconds", 2, "seconds per measurement")
	backend := fs.String("render-backend", "auto", "renderer: auto|egl|soft")
	capacity := fs.Int("replay-capacity", 1<<18, "replay buffer size for the sampling measurements")
	blas := fs.String("blas", "auto", "BLAS backend for the SAC measurements: auto|gonum|openblas")
	if err := parse(fs, args); err != nil {
		return err
	}
	rows, err := Throughput(ctx, ThroughputOptions{Task: *task, Seconds: *secs, Backend: *backend, Capacity: *capacity, BLAS: *blas})
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
	_, _ = fmt.Fprintf(tw, "(%.1f s per measurement; numbers depend on machine load; the benchmarks of record are go test -bench)\n", *secs)
	return tw.Flush()
}
