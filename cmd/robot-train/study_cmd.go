package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/train/study"
)

const studyUsage = `study run STUDY.yaml --out DIR [--parallel N] [--shard K/N]
       robot-train study report DIR [--json] [--baseline ARM] [--reps N]
       robot-train study archive DIR [--keep]

A study is a grid of tasks × arms × seeds over a base config (studies/*.yaml).
run trains every cell not yet done (interrupted cells resume from their
checkpoint; Ctrl-C stops them at a checkpoint). report aggregates the done runs
(IQM, 95% stratified-bootstrap CIs, AUC, probability of improvement, sample
efficiency) into DIR/report.md, DIR/report.json and DIR/curves/TASK.png, and
says which runs are done, running or missing; against another --baseline than
the study's it writes DIR/report-vs-ARM.md and .json. archive packs the
per-run records into DIR/runs.tar.gz (deterministic), checks it byte for
byte and removes the archived files (--keep leaves them); report reads the
archive, and run unpacks it before it resumes anything.`

func cmdStudy(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		_, _ = fmt.Fprintf(stdout, "usage: robot-train %s\n", studyUsage)
		if len(args) == 0 {
			return usagef("study needs a subcommand: run, report or archive")
		}
		return nil
	}
	switch args[0] {
	case "run":
		return studyRun(ctx, args[1:], stdout, stderr)
	case "report":
		return studyReport(args[1:], stdout, stderr)
	case "archive":
		return studyArchive(args[1:], stdout, stderr)
	}
	return usagef("unknown study subcommand %q: use run, report or archive%s", args[0], didYouMean("", suggest(args[0], []string{"run", "report", "archive"})))
}

// parseWithArg parses flags and the one positional argument, which may
// come before or after the flags.
func parseWithArg(fs *flag.FlagSet, args []string) (string, error) {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		return args[0], parse(fs, args[1:])
	}
	if err := parseFlags(fs, args); err != nil {
		return "", err
	}
	switch fs.NArg() {
	case 0:
		return "", nil
	case 1:
		return fs.Arg(0), nil
	}
	return "", usagef("unexpected argument %q", fs.Arg(1))
}

// studyRunFlags and studyReportFlags are the tables of robot-train study
// run's and study report's flags.
var (
	studyRunFlags = []flagDef{
		{name: "out", help: "study directory DIR (runs/TASK/ARM/sSEED, report.md, curves/)"},
		{name: "parallel", kind: "int", def: "1", help: "runs trained at once; each gets cores/N BLAS and Go threads"},
		{name: "shard", help: "K/N: run only the K-th of N deterministic parts of the grid (Slurm arrays, Kubernetes Indexed Jobs)"},
		{name: "arms", help: "comma-separated `ARMS`: run only these arms (e.g. the cheap ones of every seed first)"},
		{name: "tasks", help: "comma-separated `TASKS`: run only these tasks"},
		{name: "dry-run", kind: "bool", help: "list the runs that would start or resume, check that started runs still match the study file, and forecast the CPU-hours left from finished runs, without training"},
		{name: "calibrate", kind: "bool", help: "with --dry-run: forecast arms without finished runs from a short training of each (learning_starts + 2,000 steps in a temporary directory; nothing is kept)"},
	}
	studyReportFlags = []flagDef{
		{name: "json", kind: "bool", help: "print the report as JSON instead of Markdown"},
		{name: "baseline", help: "arm to compare against (default: the study's baseline, else its first arm)"},
		{name: "reps", kind: "int", def: "5000", help: "bootstrap resamples for the confidence intervals"},
	}
)

func studyRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("study run", "STUDY.yaml --out DIR [--parallel N] [--shard K/N] [--arms A,B] [--tasks T]", stderr)
	def := rundir.DefaultConfig()
	b, err := bindFlags(fs, studyRunFlags, &def)
	if err != nil {
		return err
	}
	file, err := parseWithArg(fs, args)
	if err != nil {
		return err
	}
	out, par, shard, dry := b.str("out"), b.int("parallel"), b.str("shard"), b.on("dry-run")
	if file == "" {
		return usagef("study run needs a study file: robot-train study run studies/smoke.yaml --out DIR")
	}
	if out == "" {
		return usagef("study run needs --out DIR (where the runs and the report go)")
	}
	if par < 1 || par > 64 {
		return usagef("--parallel %d: use 1 to 64", par)
	}
	spec, err := study.LoadSpec(file)
	if err != nil {
		return usagef("%v", err)
	}
	var sh study.Shard
	if shard != "" {
		if sh, err = study.ParseShard(shard); err != nil {
			return usagef("%v", err)
		}
	}
	bin, err := os.Executable()
	if err != nil {
		return fmt.Errorf("study run: cannot find the robot-train executable: %w", err)
	}
	r := &study.Runner{Spec: spec, Dir: out, Binary: bin, Parallel: par, Shard: sh,
		Only: study.Filter{Arms: study.ParseList(b.str("arms")), Tasks: study.ParseList(b.str("tasks"))}, Log: stdout, DryRun: dry}
	if err := r.Only.Check(spec); err != nil {
		return usagef("%v", err)
	}
	if b.on("calibrate") && !dry {
		return usagef("--calibrate forecasts a --dry-run; add --dry-run")
	}
	sum, err := r.Run(ctx)
	if err == nil && dry {
		_, _ = fmt.Fprintf(stdout, "study %s: %d runs in this shard, %d done or running elsewhere (dry run: nothing started)\n", spec.Name, sum.Total, sum.Skipped)
		est := sum.Estimate
		if b.on("calibrate") {
			var cals []study.Calibration
			if est, cals, err = r.Calibrate(ctx); err != nil {
				return err
			}
			for _, c := range cals {
				_, _ = fmt.Fprintf(stdout, "calibration of arm %s: %.3f CPU-ms per env step before learning starts, %.3f after (%d steps)\n",
					c.Arm, 1000*c.RandomCPUSPerStep, 1000*c.UpdateCPUSPerStep, c.Steps)
			}
		}
		_, _ = fmt.Fprintf(stdout, "CPU time left: %s\n", est)
		return nil
	}
	_, _ = fmt.Fprintf(stdout, "study %s: %d runs in this shard: %d finished now, %d already done or running elsewhere, %d failed; %.1f CPU-min\n",
		spec.Name, sum.Total, sum.Finished, sum.Skipped, sum.Failed, sum.CPUS/60)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return fmt.Errorf("%w: the runs stopped at checkpoints; rerun the same command to resume", errInterrupted)
		}
		return err
	}
	if sum.Failed > 0 {
		return fmt.Errorf("%d runs failed:\n  %s", sum.Failed, strings.Join(sum.Errors, "\n  "))
	}
	_, _ = fmt.Fprintf(stdout, "report: robot-train study report %s\n", out)
	return nil
}

func studyReport(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("study report", "DIR [--json] [--baseline ARM] [--reps N]", stderr)
	def := rundir.DefaultConfig()
	b, err := bindFlags(fs, studyReportFlags, &def)
	if err != nil {
		return err
	}
	dir, err := parseWithArg(fs, args)
	if err != nil {
		return err
	}
	asJSON, base, reps := b.on("json"), b.str("baseline"), b.int("reps")
	if dir == "" {
		return usagef("study report needs the study directory: robot-train study report DIR")
	}
	if reps < 100 || reps > 1_000_000 {
		return usagef("--reps %d: use 100 to 1000000", reps)
	}
	spec, err := study.LoadDir(dir)
	if err != nil {
		return usagef("%v", err)
	}
	rep, err := study.Analyze(spec, dir, study.ReportOptions{Baseline: base, Reps: reps})
	if err != nil {
		return usagef("%v", err)
	}
	paths, err := rep.Write(dir, spec)
	if err != nil {
		return err
	}
	if asJSON {
		b, err := rep.JSON()
		if err != nil {
			return err
		}
		_, err = stdout.Write(b)
		return err
	}
	_, _ = fmt.Fprint(stdout, rep.Markdown())
	_, _ = fmt.Fprintf(stdout, "\nwrote %s\n", strings.Join(paths, ", "))
	return nil
}

func studyArchive(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("study archive", "DIR [--keep]", stderr)
	keep := fs.Bool("keep", false, "keep the archived files in DIR/runs after checking the archive")
	dir, err := parseWithArg(fs, args)
	if err != nil {
		return err
	}
	if dir == "" {
		return usagef("study archive needs the study directory: robot-train study archive DIR")
	}
	if _, err := study.LoadDir(dir); err != nil {
		return usagef("%v", err)
	}
	n, err := study.WriteRunsArchive(dir)
	if err != nil {
		return err
	}
	check := study.VerifyRunsArchive
	if !*keep {
		check = study.RemoveArchivedRuns
	}
	if err := check(dir); err != nil {
		return err
	}
	_, _ = fmt.Fprintf(stdout, "wrote %s/%s (%d run files, checked byte for byte)", dir, study.RunsArchive, n)
	if !*keep {
		_, _ = fmt.Fprint(stdout, "; removed them from runs/")
	}
	_, _ = fmt.Fprintln(stdout)
	return nil
}
