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

	"github.com/vlmrb/vlmrb/train"
)

func cmdTrain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if hasModelFlag(args) { // an imported MJCF arm (train_model.go)
		return cmdTrainModel(ctx, args, stdout, stderr)
	}
	def := train.DefaultConfig()
	fs := newFlags("train", "--task NAME --replay uniform|per|relo|vlmrb --scorer pixel|oracle|openai --steps N --seed S --out RUN_DIR [--config FILE] [--resume RUN_DIR]\n       robot-train train --reward erlvlm --rater oracle|openai [--label-noise P] ...\n       robot-train train --reward vlmrm --embed-base-url URL --goal \"...\" --baseline \"...\" --alpha A ...", stderr)
	flags, err := bindFlags(fs, trainFlags, &def)
	if err != nil {
		return err
	}
	if err := parse(fs, args); err != nil {
		return err
	}
	set := setFlags(fs)
	cfgFile, resume := flags.str("config"), flags.str("resume")

	cfg := train.DefaultConfig()
	if resume != "" {
		var bad []string
		safe := resumeSafeFlags()
		for _, d := range trainFlags {
			if set[d.name] && !slices.Contains(safe, d.name) {
				bad = append(bad, "--"+d.name)
			}
		}
		sort.Strings(bad)
		if len(bad) > 0 {
			allowed := make([]string, 0, len(safe))
			for _, n := range safe {
				if n != "resume" {
					allowed = append(allowed, "--"+n)
				}
			}
			return usagef("--resume continues an experiment as it was configured; %s cannot change on resume (allowed with --resume: %s); start a new run with --out instead", strings.Join(bad, ", "), strings.Join(allowed, ", "))
		}
		path := filepath.Join(resume, "config.yaml")
		if err := train.LoadConfigFile(path, &cfg); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return usagef("--resume %s: no config.yaml there; is it a run directory written by robot-train train?", resume)
			}
			return &train.ConfigError{Msg: err.Error()}
		}
		cfg.Out = resume
	} else if cfgFile != "" {
		if err := train.LoadConfigFile(cfgFile, &cfg); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return usagef("--config %s: file not found", cfgFile)
			}
			return &train.ConfigError{Msg: err.Error()}
		}
	}
	// explicit flags override the file
	if err := flags.apply(&cfg, set); err != nil {
		return err
	}
	if set["demos"] {
		if err := applyDemos(&cfg, flags.str("demos")); err != nil {
			return err
		}
	}
	if cfg.ResolvedAlgo() == "dqn" {
		if set["updates-per-step"] {
			return usagef("--updates-per-step is SAC's; DQN updates every dqn.train_freq env steps (set it in a --config file)")
		}
		if err := flags.applyDQN(&cfg, set); err != nil {
			return err
		}
	}
	if cfg.VLM.BaseURL == "" {
		cfg.VLM.BaseURL = os.Getenv("OPENAI_BASE_URL")
	}
	cfg.VLM.APIKey = os.Getenv("OPENAI_API_KEY")
	auto := resume == "" && !set["out"] && (cfgFile == "" || cfg.Out == train.DefaultConfig().Out)
	if auto {
		name := cfg.ResolvedReplay()
		if cfg.Reward == "erlvlm" || cfg.Reward == "vlmrm" {
			name = cfg.Reward
		}
		cfg.Out = filepath.Join("runs", fmt.Sprintf("%s-%s-s%d", cfg.Task, name, cfg.Seed))
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	if resume == "" {
		// refuse (or, for a derived --out, step aside) before anything is
		// printed or written: a run directory with a checkpoint is continued
		// with --resume, never started over
		out, err := freshRunDir(cfg.Out, auto)
		if err != nil {
			return err
		}
		if out != cfg.Out {
			_, _ = fmt.Fprintf(stderr, "note: %s already holds a run; writing this one to %s (continue the other with --resume %s)\n", cfg.Out, out, cfg.Out)
			cfg.Out = out
		}
	}
	opts := train.Options{Resume: resume != "", Stdout: stdout, Stderr: stderr, Quiet: flags.on("quiet"), VLMRequired: flags.on("vlm-required")}
	if p := flags.str("cpuprofile"); p != "" {
		f, err := os.Create(p)
		if err != nil {
			return usagef("--cpuprofile: %v", err)
		}
		defer func() { _ = f.Close() }()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	res, err := train.Run(ctx, cfg, opts)
	if res != nil && err != nil && !errors.Is(err, context.Canceled) {
		res.Failed = true
	}
	var ce *train.ConfigError
	if res != nil && !errors.As(err, &ce) { // a refused run did nothing to summarise
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
