package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"text/tabwriter"

	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/tasks"

	"github.com/vlmrb/vlmrb/internal/platform"
	"github.com/vlmrb/vlmrb/nn"
	"github.com/vlmrb/vlmrb/render"
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
	for _, task := range []string{"pick", "push"} {
		m := tasks.ArmObjectMeta(task)
		_, _ = fmt.Fprintf(tw, "%s\t%s\t%d\t%s (train --model FILE.xml --task %s; Menagerie's mjx_panda.xml is the reference)\n", m.Name, "mjcf", len(m.Stages), m.Description, task)
	}
	return tw.Flush()
}

// printPlatform prints what a run's arithmetic depends on: the CPU and the
// BLAS kernel (runs reproduce bit for bit only on the same kernel).
func printPlatform(w io.Writer, in platform.Info) {
	cpu := in.CPU
	if cpu == "" {
		cpu = "unknown model"
	}
	_, _ = fmt.Fprintf(w, "cpu: %s\n", cpu)
	if in.BLAS.OpenBLASCore == "" {
		_, _ = fmt.Fprintln(w, "OpenBLAS: not compiled in (the gonum backend's arithmetic does not depend on the CPU)")
		return
	}
	env := "unset: chosen from the CPU, so runs may differ between CPU models"
	if in.CoreTypeEnv != "" {
		env = in.CoreTypeEnv
	}
	_, _ = fmt.Fprintf(w, "OpenBLAS: %s, core %s (OPENBLAS_CORETYPE %s)\n", in.BLAS.OpenBLASVersion, in.BLAS.OpenBLASCore, env)
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
	switch pi := platform.Describe(platform.BLAS(nn.Library())); {
	case rev == "" && pi.Commit != "":
		_, _ = fmt.Fprintf(stdout, " (%s)", pi.Commit)
	case rev == "":
		_, _ = fmt.Fprint(stdout, " (commit unknown: built without VCS stamping; `make build` records it)")
	case pi.Modified:
		_, _ = fmt.Fprint(stdout, " with uncommitted changes")
	}
	_, _ = fmt.Fprintf(stdout, "\ngo: %s %s/%s, %d CPUs\n", runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	// the backend train selects for the default blas setting, not the
	// package's initial one
	blas := rundir.DefaultConfig().BLAS
	if b, err := SelectBLAS(blas); err != nil {
		_, _ = fmt.Fprintf(stdout, "BLAS backend: %s (blas %s unavailable: %v; available: %v)\n", b, blas, err, BLASBackends())
	} else {
		_, _ = fmt.Fprintf(stdout, "BLAS backend: %s (selected by blas: %s; available: %v)\n", b, blas, BLASBackends())
	}
	printPlatform(stdout, platform.Describe(platform.BLAS(nn.Library())))
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
