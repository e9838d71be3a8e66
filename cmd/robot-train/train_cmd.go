package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"

	"github.com/vlmrb/vlmrb/train"
)

// resumeSafe lists the flags that may change when continuing a run: the
// budget and the cadence of logs, evals and checkpoints, and where the VLM
// server lives. Everything else would change the experiment.
var resumeSafe = map[string]bool{
	"steps": true, "eval-every": true, "eval-episodes": true, "log-every": true,
	"checkpoint-every": true, "vlm-base-url": true, "vlm-model": true, "quiet": true, "cpuprofile": true,
	"resume": true, "render-backend": true, "blas": true, "threads": true,
	"embed-base-url": true, "vlm-required": true,
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, " | ") }

func (l *stringList) Set(v string) error {
	if strings.TrimSpace(v) == "" {
		return errors.New("empty prompt")
	}
	*l = append(*l, v)
	return nil
}

type intList []int

func (l *intList) String() string {
	s := make([]string, len(*l))
	for i, v := range *l {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, ",")
}

func (l *intList) Set(v string) error {
	var out []int
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return fmt.Errorf("want comma-separated positive widths such as 256,256, got %q", v)
		}
		out = append(out, n)
	}
	*l = out
	return nil
}

func cmdTrain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	def := train.DefaultConfig()
	fs := newFlags("train", "--task NAME --replay uniform|per|relo|vlmrb --scorer pixel|oracle|openai --steps N --seed S --out RUN_DIR [--config FILE] [--resume RUN_DIR]\n       robot-train train --reward erlvlm --rater oracle|openai [--label-noise P] ...\n       robot-train train --reward vlmrm --embed-base-url URL --goal \"...\" --baseline \"...\" --alpha A ...", stderr)
	var (
		cfgFile = fs.String("config", "", "YAML config file applied on top of the defaults (flags override it)")
		resume  = fs.String("resume", "", "continue the run in `RUN_DIR` from its last complete checkpoint")
		quiet   = fs.Bool("quiet", false, "no console table or progress bar (files are still written)")
		cpuProf = fs.String("cpuprofile", "", "write a CPU profile of the run to `FILE` (go tool pprof FILE)")
		vlmReq  = fs.Bool("vlm-required", false, "stop the run at the first VLM server failure (default: keep training, warn once per error kind, report in the summary)")

		task    = fs.String("task", def.Task, "task `NAME` (robot-train tasks lists them)")
		reward  = fs.String("reward", def.Reward, "reward SAC trains on: dense|sparse (the task's), erlvlm (learned from VLM ratings), vlmrm (VLM embedding similarity)")
		replay  = fs.String("replay", def.Replay, "replay sampler: uniform|per|relo|vlmrb")
		algo    = fs.String("algo", def.Algo, "learner: auto (dqn for the discrete doorkey tasks, sac otherwise) | sac | dqn")
		scorer  = fs.String("scorer", def.Scorer, "clip scorer for vlmrb: pixel|oracle|openai")
		steps   = fs.Int64("steps", def.Steps, "total environment steps `N`")
		seed    = fs.Uint64("seed", def.Seed, "random seed `S`")
		out     = fs.String("out", "", "run directory `RUN_DIR` (default runs/TASK-REPLAY-sSEED)")
		envs    = fs.Int("num-envs", def.NumEnvs, "parallel training environments")
		eplen   = fs.Int("max-episode-len", def.MaxEpisodeLen, "control steps per episode (0 = task default)")
		starts  = fs.Int64("learning-starts", def.SAC.LearningStarts, "env steps of random actions before updates")
		batch   = fs.Int("batch-size", def.SAC.BatchSize, "SAC batch size")
		utd     = fs.Float64("updates-per-step", def.SAC.UpdatesPerStep, "gradient updates per env step")
		evEvery = fs.Int64("eval-every", def.Eval.Every, "env steps between evaluations (0 = only at the end)")
		evEps   = fs.Int("eval-episodes", def.Eval.Episodes, "episodes per evaluation")
		logEv   = fs.Int64("log-every", def.Log.Every, "env steps between log rows")
		ckEv    = fs.Int64("checkpoint-every", def.Ckpt.Every, "env steps between checkpoints (0 = only at exit)")
		backend = fs.String("render-backend", def.VLM.Backend, "renderer for scorer frames and GIFs: auto|egl|soft")
		blas    = fs.String("blas", def.BLAS, "BLAS backend: auto|gonum|openblas")
		threads = fs.Int("threads", def.SAC.Threads, "SAC threads: 1, or 2 to run the twin critics in parallel")
		baseURL = fs.String("vlm-base-url", "", "OpenAI-compatible server `URL` for --scorer openai (default $OPENAI_BASE_URL)")
		model   = fs.String("vlm-model", "", "model `NAME` on that server (--scorer openai, --rater openai)")

		rater    = fs.String("rater", def.RM.Rater, "erlvlm rater: oracle (task progress, offline) | openai (the --vlm-base-url server)")
		noise    = fs.Float64("label-noise", def.RM.LabelNoise, "erlvlm oracle: probability `P` a rating is replaced by another class")
		classes  = fs.Int("rating-classes", def.RM.Classes, "erlvlm rating classes 2–5 (0: the paper's choice for the task)")
		embedURL = fs.String("embed-base-url", "", "vlmrm: /v1/embeddings server `URL` that embeds images and text")
		embedMdl = fs.String("embed-model", "", "vlmrm: embedding model `NAME` on that server")
		alpha    = fs.Float64("alpha", def.RM.Alpha, "vlmrm: goal–baseline projection strength `A` in [0, 1]")
	)
	var goals, baselines stringList
	fs.Var(&goals, "goal", "vlmrm goal prompt (repeat to average several)")
	fs.Var(&baselines, "baseline", "vlmrm baseline prompt (repeat to average several)")
	hidden := intList(def.SAC.Hidden)
	fs.Var(&hidden, "hidden", "hidden layer widths, comma-separated")
	if err := parse(fs, args); err != nil {
		return err
	}
	set := setFlags(fs)

	cfg := train.DefaultConfig()
	if *resume != "" {
		var bad []string
		for name := range set {
			if !resumeSafe[name] {
				bad = append(bad, "--"+name)
			}
		}
		sort.Strings(bad)
		if len(bad) > 0 {
			return usagef("--resume continues an experiment as it was configured; %s cannot change on resume (allowed with --resume: --steps, --eval-every, --eval-episodes, --log-every, --checkpoint-every, --vlm-base-url, --vlm-model, --render-backend, --blas, --threads, --quiet, --vlm-required); start a new run with --out instead", strings.Join(bad, ", "))
		}
		path := filepath.Join(*resume, "config.yaml")
		if err := train.LoadConfigFile(path, &cfg); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return usagef("--resume %s: no config.yaml there; is it a run directory written by robot-train train?", *resume)
			}
			return &train.ConfigError{Msg: err.Error()}
		}
		cfg.Out = *resume
	} else if *cfgFile != "" {
		if err := train.LoadConfigFile(*cfgFile, &cfg); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return usagef("--config %s: file not found", *cfgFile)
			}
			return &train.ConfigError{Msg: err.Error()}
		}
	}
	// explicit flags override the file (Visit sees only flags that were set)
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "task":
			cfg.Task = *task
		case "reward":
			cfg.Reward = *reward
		case "replay":
			cfg.Replay = *replay
		case "algo":
			cfg.Algo = *algo
		case "scorer":
			cfg.Scorer = *scorer
		case "steps":
			cfg.Steps = *steps
		case "seed":
			cfg.Seed = *seed
		case "out":
			cfg.Out = *out
		case "num-envs":
			cfg.NumEnvs = *envs
		case "max-episode-len":
			cfg.MaxEpisodeLen = *eplen
		case "learning-starts":
			cfg.SAC.LearningStarts = *starts
		case "batch-size":
			cfg.SAC.BatchSize = *batch
		case "updates-per-step":
			cfg.SAC.UpdatesPerStep = *utd
		case "hidden":
			cfg.SAC.Hidden = []int(hidden)
		case "eval-every":
			cfg.Eval.Every = *evEvery
		case "eval-episodes":
			cfg.Eval.Episodes = *evEps
		case "log-every":
			cfg.Log.Every = *logEv
		case "checkpoint-every":
			cfg.Ckpt.Every = *ckEv
		case "blas":
			cfg.BLAS = *blas
		case "threads":
			cfg.SAC.Threads = *threads
		case "render-backend":
			cfg.VLM.Backend = *backend
		case "vlm-base-url":
			cfg.VLM.BaseURL = *baseURL
		case "vlm-model":
			cfg.VLM.Model = *model
		case "rater":
			cfg.RM.Rater = *rater
		case "label-noise":
			cfg.RM.LabelNoise = *noise
		case "rating-classes":
			cfg.RM.Classes = *classes
		case "embed-base-url":
			cfg.RM.EmbedBaseURL = *embedURL
		case "embed-model":
			cfg.RM.EmbedModel = *embedMdl
		case "alpha":
			cfg.RM.Alpha = *alpha
		case "goal":
			cfg.RM.Goal = goals
		case "baseline":
			cfg.RM.Baseline = baselines
		}
	})
	if cfg.ResolvedAlgo() == "dqn" {
		// the learner flags name the DQN's settings on discrete tasks
		if set["learning-starts"] {
			cfg.DQN.LearningStarts = *starts
		}
		if set["batch-size"] {
			cfg.DQN.BatchSize = *batch
		}
		if set["hidden"] {
			cfg.DQN.Hidden = []int(hidden)
		}
		if set["updates-per-step"] {
			return usagef("--updates-per-step is SAC's; DQN updates every dqn.train_freq env steps (set it in a --config file)")
		}
	}
	if cfg.VLM.BaseURL == "" {
		cfg.VLM.BaseURL = os.Getenv("OPENAI_BASE_URL")
	}
	cfg.VLM.APIKey = os.Getenv("OPENAI_API_KEY")
	if *resume == "" && !set["out"] && (*cfgFile == "" || cfg.Out == train.DefaultConfig().Out) {
		name := cfg.Replay
		if cfg.Reward == "erlvlm" || cfg.Reward == "vlmrm" {
			name = cfg.Reward
		}
		cfg.Out = filepath.Join("runs", fmt.Sprintf("%s-%s-s%d", cfg.Task, name, cfg.Seed))
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	opts := train.Options{Resume: *resume != "", Stdout: stdout, Stderr: stderr, Quiet: *quiet, VLMRequired: *vlmReq}
	if *cpuProf != "" {
		f, err := os.Create(*cpuProf)
		if err != nil {
			return usagef("--cpuprofile: %v", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	res, err := train.Run(ctx, cfg, opts)
	if res != nil && err != nil && !errors.Is(err, context.Canceled) {
		res.Failed = true
	}
	if res != nil {
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
