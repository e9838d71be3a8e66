package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/vlmrb/vlmrb/rundir"
)

// exit codes (the CLI contract)
const (
	exitOK          = 0
	exitFailure     = 1
	exitUsage       = 2
	exitInterrupted = 130
)

// usageError is a mistake in the command line: exit 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return &usageError{fmt.Sprintf(format, a...)} }

// errInterrupted reports a clean stop on SIGINT/SIGTERM.
var errInterrupted = errors.New("interrupted")

type command struct {
	name, synopsis string
	run            func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"train", "train a policy (SAC + replay + VLM scoring), with logs, eval GIFs and checkpoints", cmdTrain},
		{"eval", "evaluate a checkpoint or a scripted policy: success rate and return", cmdEval},
		{"export", "write a checkpoint's policy as an ONNX model", cmdExport},
		{"render", "render a task's camera to PNG, GIF or MP4", cmdRender},
		{"simulate", "step an MJCF model on the articulated engine: JSON trajectory or steps/s", cmdSimulate},
		{"record", "record episodes (or convert a camera recording) as a LeRobot v3 dataset", cmdRecord},
		{"score", "score clips from the simulator, a folder or a camera URL", cmdScore},
		{"view", "watch a policy in an interactive GLFW window", cmdView},
		{"study", "run a grid of tasks × arms × seeds and report IQM, bootstrap CIs and curves", cmdStudy},
		{"tasks", "list the tasks with their descriptions", cmdTasks},
		{"bench", "measure sim, render, SAC and replay throughput on this machine", cmdBench},
		{"version", "print version, renderer and BLAS backend", cmdVersion},
	}
}

func printUsage(w io.Writer) {
	_, _ = fmt.Fprintln(w, "usage: robot-train COMMAND [flags]")
	_, _ = fmt.Fprintln(w)
	_, _ = fmt.Fprintln(w, "commands:")
	for _, c := range commands() {
		_, _ = fmt.Fprintf(w, "  %-8s %s\n", c.name, c.synopsis)
	}
	_, _ = fmt.Fprintln(w)
	_, _ = fmt.Fprintln(w, "Run `robot-train COMMAND -h` for the flags of a command.")
	_, _ = fmt.Fprintln(w, "Exit codes: 0 ok, 1 runtime failure, 2 usage error, 130 interrupted.")
}

// run is the whole CLI; main only wires the process to it, tests call it.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	stdout, stderr = redactOutput(args, stdout, stderr)
	if len(args) == 0 {
		printUsage(stderr)
		return exitUsage
	}
	name := args[0]
	if name == "-h" || name == "--help" || name == "help" {
		printUsage(stdout)
		return exitOK
	}
	for _, c := range commands() {
		if c.name != name {
			continue
		}
		err := c.run(ctx, args[1:], stdout, stderr)
		return report(stderr, name, err)
	}
	names := make([]string, 0, len(commands())+1)
	for _, c := range commands() {
		names = append(names, c.name)
	}
	_, _ = fmt.Fprintf(stderr, "robot-train: unknown command %q%s\nRun `robot-train help` for the list of commands.\n", name, didYouMean("", suggest(name, append(names, "help"))))
	return exitUsage
}

// report prints err (if any) and maps it to an exit code.
func report(stderr io.Writer, name string, err error) int {
	var ue *usageError
	var ce *rundir.ConfigError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.As(err, &ue), errors.As(err, &ce):
		_, _ = fmt.Fprintf(stderr, "robot-train %s: %v\nRun `robot-train %s -h` for usage.\n", name, err, name)
		return exitUsage
	case errors.Is(err, errInterrupted), errors.Is(err, context.Canceled):
		_, _ = fmt.Fprintf(stderr, "robot-train %s: %v\n", name, err)
		return exitInterrupted
	default:
		_, _ = fmt.Fprintf(stderr, "robot-train %s: %v\n", name, err)
		return exitFailure
	}
}

// newFlags returns a FlagSet that reports to stderr and returns errors.
func newFlags(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		_, _ = fmt.Fprintf(stderr, "usage: robot-train %s %s\n\nflags:\n", name, usage)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args. -h prints the usage and returns flag.ErrHelp;
// a bad flag is a short usage error, with the closest known flag names
// for a mistyped one, instead of the whole flag list.
func parseFlags(fs *flag.FlagSet, args []string) error {
	usage, out := fs.Usage, fs.Output()
	fs.Usage = func() {}
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	fs.Usage = usage
	fs.SetOutput(out)
	if err == nil {
		return nil
	}
	if errors.Is(err, flag.ErrHelp) {
		fs.Usage()
		return err
	}
	const undefined = "flag provided but not defined: -"
	if name, ok := strings.CutPrefix(err.Error(), undefined); ok {
		name, _, _ = strings.Cut(strings.TrimLeft(name, "-"), "=")
		return usagef("%v%s", err, didYouMean("--", suggest(name, flagNames(fs))))
	}
	return usagef("%v", err)
}

// parse parses args and rejects stray positional arguments.
func parse(fs *flag.FlagSet, args []string) error {
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q (flags start with -, e.g. --task reach)", fs.Arg(0))
	}
	return nil
}

// setFlags returns the names of flags given on the command line.
func setFlags(fs *flag.FlagSet) map[string]bool {
	m := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { m[f.Name] = true })
	return m
}

func oneOf(flagName, v string, choices ...string) error {
	for _, c := range choices {
		if v == c {
			return nil
		}
	}
	return usagef("--%s %q is not one of %s", flagName, v, strings.Join(choices, "|"))
}
