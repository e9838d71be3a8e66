package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"sort"
	"strings"

	"github.com/vlmrb/vlmrb/internal/atomicfile"
	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/tasks"
	"github.com/vlmrb/vlmrb/train"
)

func cmdTrain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	def := rundir.DefaultConfig()
	fs := newFlags("train", "--task NAME --replay uniform|per|relo|vlmrb --scorer pixel|oracle|openai --steps N --seed S --out RUN_DIR [--config FILE] [--resume RUN_DIR]\n       robot-train train --reward erlvlm --rater oracle|openai [--label-noise P] ...\n       robot-train train --reward vlmrm --embed-base-url URL --goal \"...\" --baseline \"...\" --alpha A ...", stderr)
	flags, err := bindFlags(fs, trainFlags, &def)
	if err != nil {
		return err
	}
	if err := parse(fs, args); err != nil {
		return err
	}
	set := setFlags(fs)
	cfg, auto, err := trainConfig(flags, set)
	if err != nil {
		return err
	}
	resume, printOnly := flags.str("resume"), flags.on("print-config")
	if resume == "" && !printOnly {
		// refuse (or, for a derived --out, step aside) before anything is
		// printed or written: a run directory with a checkpoint is continued
		// with --resume, never started over
		out, err := freshRunDir(cfg.Out, auto)
		if err != nil {
			return err
		}
		switch {
		case out != cfg.Out:
			_, _ = fmt.Fprintf(stderr, "note: %s already holds a run; writing this one to %s (continue the other with --resume %s)\n", cfg.Out, out, cfg.Out)
			cfg.Out = out
		case auto:
			_, _ = fmt.Fprintf(stderr, "note: out %s (derived from task, replay and seed; pass --out RUN_DIR to choose)\n", out)
		}
	}
	// the config is complete: its one validation, here at the edge
	v, err := cfg.Validated()
	if err != nil {
		return err
	}
	if printOnly || flags.on("dry-run") {
		if resume == "" && cfg.Engine == "" && rundir.OldEngine(&cfg) {
			// what config.yaml would hold: train records a new tabletop
			// run's engine (train's freshEngine)
			cfg.Engine = tasks.EngineArticulated
		}
		b, err := cfg.EncodeYAML()
		if err != nil {
			return err
		}
		if _, err := stdout.Write(b); err != nil || printOnly {
			return err
		}
		verb := "start"
		if resume != "" {
			verb = "resume"
		}
		_, err = fmt.Fprintf(stdout, "dry run: would %s %s (%s replay, %d env steps) in %s; nothing was written\n", verb, cfg.Task, cfg.ResolvedReplay(), cfg.Steps, cfg.Out)
		return err
	}
	opts := train.Options{Resume: resume != "", Stdout: stdout, Stderr: stderr, Quiet: flags.on("quiet"), VLMRequired: flags.on("vlm-required")}
	if p := flags.str("cpuprofile"); p != "" {
		stop, err := startProfile(p)
		if err != nil {
			return err
		}
		defer stop()
	}
	return runTraining(ctx, v, opts, stdout)
}

// trainConfig is the run's configuration, not yet validated (cmdTrain
// does that once, after the run directory is settled): the defaults, then
// the run directory's config.yaml (--resume) or a --config file, then the
// flags given; auto reports an --out derived from task, replay and seed.
func trainConfig(flags *boundFlags, set map[string]bool) (cfg rundir.Config, auto bool, err error) {
	cfgFile, resume := flags.str("config"), flags.str("resume")
	cfg = rundir.DefaultConfig()
	if set["model"] && resume == "" { // an imported MJCF arm: task arm-reach's defaults
		rundir.ApplyArmDefaults(&cfg)
	}
	switch {
	case resume != "":
		if err := checkResumeFlags(set); err != nil {
			return cfg, false, err
		}
		path := filepath.Join(resume, "config.yaml")
		if err := rundir.LoadConfigFile(path, &cfg); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return cfg, false, usagef("--resume %s: no config.yaml there; is it a run directory written by robot-train train?", resume)
			}
			return cfg, false, &rundir.ConfigError{Msg: err.Error()}
		}
		cfg.Out = resume
	case cfgFile != "":
		if err := rundir.LoadConfigFile(cfgFile, &cfg); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return cfg, false, usagef("--config %s: file not found", cfgFile)
			}
			return cfg, false, &rundir.ConfigError{Msg: err.Error()}
		}
	}
	// --set KEY=VALUE overrides the file; explicit flags override both
	if err := applySets(&cfg, flags.list("set")); err != nil {
		return cfg, false, err
	}
	if err := flags.apply(&cfg, set); err != nil {
		return cfg, false, err
	}
	cfg.Task = tasks.Canonical(cfg.Task) // MetaWorld's reach-v3, MiniGrid's names
	if cfg.Arm.Model != "" {             // --model FILE.xml --task reach|pick|push
		cfg.Task = armTask(cfg.Task)
		if set["model"] && resume == "" && cfgFile == "" && !set["max-episode-len"] && (cfg.Task == tasks.ArmPickName || cfg.Task == tasks.ArmPushName) {
			cfg.MaxEpisodeLen = tasks.ArmObjectMaxSteps // arm-reach's default is 100
		}
	}
	if set["demos"] {
		if err := applyDemos(&cfg, flags.str("demos")); err != nil {
			return cfg, false, err
		}
	}
	if cfg.ResolvedAlgo() == "dqn" {
		if set["updates-per-step"] {
			return cfg, false, usagef("--updates-per-step is SAC's; DQN updates every dqn.train_freq env steps (set it in a --config file)")
		}
		if err := flags.applyDQN(&cfg, set); err != nil {
			return cfg, false, err
		}
	}
	if cfg.VLM.BaseURL == "" {
		cfg.VLM.BaseURL = os.Getenv("OPENAI_BASE_URL")
	}
	cfg.VLM.APIKey = os.Getenv("OPENAI_API_KEY")
	auto = resume == "" && !set["out"] && (cfgFile == "" || cfg.Out == rundir.DefaultConfig().Out)
	if auto {
		name := cfg.ResolvedReplay()
		if cfg.Reward == "erlvlm" || cfg.Reward == "vlmrm" {
			name = cfg.Reward
		}
		cfg.Out = filepath.Join("runs", fmt.Sprintf("%s-%s-s%d", cfg.Task, name, cfg.Seed))
	}
	return cfg, auto, nil
}

// checkResumeFlags refuses flags that would change a resumed experiment.
func checkResumeFlags(set map[string]bool) error {
	var bad []string
	safe := resumeSafeFlags()
	for _, d := range trainFlags {
		if set[d.name] && !slices.Contains(safe, d.name) {
			bad = append(bad, "--"+d.name)
		}
	}
	sort.Strings(bad)
	if len(bad) == 0 {
		return nil
	}
	allowed := make([]string, 0, len(safe))
	for _, n := range safe {
		if n != "resume" {
			allowed = append(allowed, "--"+n)
		}
	}
	return usagef("--resume continues an experiment as it was configured; %s cannot change on resume (allowed with --resume: %s); start a new run with --out instead", strings.Join(bad, ", "), strings.Join(allowed, ", "))
}

// startProfile starts a CPU profile into path; stop ends it.
func startProfile(path string) (stop func(), err error) {
	// a FIFO would block the create, a device would take the profile
	if err := atomicfile.CheckTarget(path); err != nil {
		return nil, usagef("--cpuprofile: %v", err)
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, usagef("--cpuprofile: %v", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); _ = f.Close() }, nil
}

// runTraining runs v and prints the run's summary.
func runTraining(ctx context.Context, v rundir.Valid, opts train.Options, stdout io.Writer) error {
	res, err := train.Run(ctx, v, opts)
	cfg := v.Config()
	if res != nil && err != nil && !errors.Is(err, context.Canceled) {
		res.Failed = true
	}
	var ce *rundir.ConfigError
	if res != nil && !errors.As(err, &ce) { // a refused run did nothing to summarise
		res.Verdict = rundir.MainJobVerdict(cfg, res.FinalEval, res.RunDir) // what the main job's study reached, on its runs
		_, _ = fmt.Fprint(stdout, res.Summary())
	}
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return interruptedError(res, cfg.Out)
		}
		return err
	}
	return nil
}

// armTask is the task over an imported arm (--model) that a task name
// means: reach → arm-reach, pick or pick-place → panda-pick, push →
// panda-push; any other name as it is.
func armTask(name string) string {
	switch name {
	case "reach":
		return tasks.ArmReachName
	case "pick", "pick-place":
		return tasks.ArmPickName
	case "push":
		return tasks.ArmPushName
	}
	return name
}
