package main

import (
	"context"
	"fmt"
	"github.com/vlmrb/vlmrb/tasks"
	"io"
	"runtime"
	"runtime/debug"
	"text/tabwriter"

	"github.com/vlmrb/vlmrb/render"
	"github.com/vlmrb/vlmrb/train"
)

func cmdTasks(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("tasks", "", stderr)
	if err := parse(fs, args); err != nil {
		return err
	}
	list, err := TaskList()
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	_, _ = fmt.Fprintln(tw, "TASK\tFAMILY\tSTAGES\tDESCRIPTION")
	for _, t := range list {
		_, _ = fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", t.Name, t.Family, t.Stages, t.Description)
	}
	_, _ = fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", tasks.ArmReachName, "mjcf", 1, "reach a goal with an imported MJCF arm's end-effector site (train --model FILE.xml --task reach --site NAME)")
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
	// the backend train selects for the default blas setting, not the
	// package's initial one
	blas := train.DefaultConfig().BLAS
	if b, err := SelectBLAS(blas); err != nil {
		_, _ = fmt.Fprintf(stdout, "BLAS backend: %s (blas %s unavailable: %v; available: %v)\n", b, blas, err, BLASBackends())
	} else {
		_, _ = fmt.Fprintf(stdout, "BLAS backend: %s (selected by blas: %s; available: %v)\n", b, blas, BLASBackends())
	}
	_, _ = fmt.Fprintf(stdout, "render backends: %v\n", render.Backends())
	r, err := render.New("auto", render.Options{Logf: func(string, ...any) {}})
	if err != nil {
		_, _ = fmt.Fprintf(stdout, "renderer: unavailable: %v\n", err)
	} else {
		_, _ = fmt.Fprintf(stdout, "renderer: %s\n", r.Info())
		_ = r.Close()
	}
	if list, err := TaskList(); err == nil {
		ng := 0
		for _, t := range list {
			if t.Grid {
				ng++
			}
		}
		_, _ = fmt.Fprintf(stdout, "tasks: %d registered (%d manipulation, %d grid)\n", len(list), len(list)-ng, ng)
	}
	return nil
}
