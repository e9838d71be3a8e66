package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"text/tabwriter"

	"github.com/vlmrb/vlmrb/nn"
	"github.com/vlmrb/vlmrb/render"
	"github.com/vlmrb/vlmrb/tasks"
	"github.com/vlmrb/vlmrb/tasks/grid"
)

func cmdTasks(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("tasks", "", stderr)
	if err := parse(fs, args); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	_, _ = fmt.Fprintln(tw, "TASK\tFAMILY\tSTAGES\tDESCRIPTION")
	for _, n := range tasks.Names() {
		m, err := tasks.Lookup(n)
		if err != nil {
			return err
		}
		_, _ = fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", n, m.Family, len(m.Stages), m.Description)
	}
	// discrete grid tasks (MiniGrid DoorKey; trained with DQN)
	for _, n := range grid.Names() {
		m, err := grid.Lookup(n)
		if err != nil {
			return err
		}
		_, _ = fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", n, m.Family, len(m.Stages), m.Description)
	}
	return tw.Flush()
}

// version is set with -ldflags "-X main.version=..." by release builds.
var version = ""

func cmdVersion(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("version", "", stderr)
	if err := parse(fs, args); err != nil {
		return err
	}
	v, rev := version, ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v == "" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				rev = s.Value
			}
		}
	}
	if v == "" || v == "(devel)" {
		v = "devel"
	}
	_, _ = fmt.Fprintf(stdout, "robot-train %s", v)
	if rev != "" {
		_, _ = fmt.Fprintf(stdout, " (%s)", rev)
	}
	_, _ = fmt.Fprintf(stdout, "\ngo: %s %s/%s, %d CPUs\n", runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	_, _ = fmt.Fprintf(stdout, "BLAS backend: %s (available: %v)\n", nn.Backend(), nn.Backends())
	_, _ = fmt.Fprintf(stdout, "render backends: %v\n", render.Backends())
	r, err := render.New("auto", render.Options{Logf: func(string, ...any) {}})
	if err != nil {
		_, _ = fmt.Fprintf(stdout, "renderer: unavailable: %v\n", err)
	} else {
		_, _ = fmt.Fprintf(stdout, "renderer: %s\n", r.Info())
		_ = r.Close()
	}
	_, _ = fmt.Fprintf(stdout, "tasks: %d registered (%d manipulation, %d grid)\n", len(tasks.Names())+len(grid.Names()), len(tasks.Names()), len(grid.Names()))
	return nil
}
