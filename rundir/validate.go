package rundir

import (
	"encoding"
	"fmt"
	"slices"
	"strings"

	"github.com/vlmrb/vlmrb/tasks"
)

// ConfigError is a configuration the user must fix (the CLI exits 2).
type ConfigError struct{ Msg string }

func (e *ConfigError) Error() string { return e.Msg }

func ConfigErrorf(format string, a ...any) error { return &ConfigError{Msg: fmt.Sprintf(format, a...)} }

func oneOf(name, v string, choices []string) error {
	for _, c := range choices {
		if v == c {
			return nil
		}
	}
	return ConfigErrorf("%s %q is not one of %s", name, v, strings.Join(choices, "|"))
}

// validate checks the config for values the loop cannot run with; its
// one caller is Validated (valid.go).
func (c *Config) validate() error {
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	add(oneOf("reward", c.Reward, RewardChoices))
	add(oneOf("replay", c.Replay, append([]string{"auto"}, ReplayChoices...)))
	add(oneOf("scorer", c.Scorer, ScorerChoices))
	add(textValue("buffer.score_map", c.Buffer.VLMRB.Mapping))
	add(oneOf("vlm.clip_format", c.VLM.ClipFormat, ClipFormatChoices))
	c.validateStrict(add)
	c.validateDQN(add)
	c.validateBaselines(add)
	c.validateArm(add)
	pos := func(name string, v int64) {
		if v <= 0 {
			add(ConfigErrorf("%s must be > 0 (got %d)", name, v))
		}
	}
	nonneg := func(name string, v float64) {
		if v < 0 {
			add(ConfigErrorf("%s must be ≥ 0 (got %g)", name, v))
		}
	}
	if c.Task == "" {
		add(ConfigErrorf("task is empty: pass --task NAME (robot-train tasks lists them)"))
	} else {
		add(checkTask(c.Task))
	}
	if c.Out == "" {
		add(ConfigErrorf("out is empty: pass --out RUN_DIR"))
	}
	pos("steps", c.Steps)
	pos("num_envs", int64(c.NumEnvs))
	if err := CheckEngine(c.Task, c.Engine); err != nil {
		add(err)
	}
	if c.MaxEpisodeLen < 0 {
		add(ConfigErrorf("max_episode_len must be ≥ 0 (0 = task default)"))
	}
	if c.Demos < 0 {
		add(ConfigErrorf("demos must be ≥ 0 (scripted-expert episodes at the start; 0 = none)"))
	}
	if c.DemosPath != "" {
		switch {
		case c.Demos > 0:
			add(ConfigErrorf("demos %d and demos_path %s both give the first episodes; use one", c.Demos, c.DemosPath))
		case c.ResolvedAlgo() == "dqn":
			add(ConfigErrorf("demos_path feeds SAC runs on the manipulation tasks; grid tasks take demos N (the planner)"))
		case c.Reward == "erlvlm" || c.Reward == "vlmrm":
			add(ConfigErrorf("demos_path with reward %s: recorded transitions have no frames for the learned reward; use reward sparse or dense", c.Reward))
		}
	}
	c.validateSAC(add, pos, nonneg)
	c.validateBuffer(add, pos, nonneg)
	c.validateVLM(add, pos, nonneg)
	if c.Reward == "erlvlm" || c.Reward == "vlmrm" {
		c.validateRM(add)
	}
	nonneg("eval.every", float64(c.Eval.Every))
	nonneg("eval.episodes", float64(c.Eval.Episodes))
	pos("log.every", c.Log.Every)
	nonneg("checkpoint.every", float64(c.Ckpt.Every))
	pos("checkpoint.keep", int64(c.Ckpt.Keep))
	if len(errs) == 0 {
		return nil
	}
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Error()
	}
	return &ConfigError{Msg: "invalid config: " + strings.Join(msgs, "; ")}
}

// validateSAC checks the sac section (and the BLAS choice).
func (c *Config) validateSAC(add func(error), pos func(string, int64), nonneg func(string, float64)) {
	if len(c.SAC.Hidden) == 0 {
		add(ConfigErrorf("sac.hidden needs at least one layer width"))
	}
	for _, h := range c.SAC.Hidden {
		pos("sac.hidden width", int64(h))
	}
	if c.SAC.Gamma < 0 || c.SAC.Gamma > 1 {
		add(ConfigErrorf("sac.gamma must be in (0, 1], or 0 for the task's default (0.95 on reach-center, else 0.99) (got %g)", c.SAC.Gamma))
	}
	if c.SAC.Tau <= 0 || c.SAC.Tau > 1 {
		add(ConfigErrorf("sac.tau must be in (0, 1] (got %g)", c.SAC.Tau))
	}
	pos("sac.batch_size", int64(c.SAC.BatchSize))
	nonneg("sac.learning_starts", float64(c.SAC.LearningStarts))
	if c.SAC.PolicyLR <= 0 || c.SAC.QLR <= 0 {
		add(ConfigErrorf("sac.actor_lr and sac.critic_lr must be > 0"))
	}
	if c.SAC.UpdatesPerStep <= 0 {
		add(ConfigErrorf("sac.updates_per_step must be > 0 (got %g)", c.SAC.UpdatesPerStep))
	}
	pos("sac.policy_freq", int64(c.SAC.PolicyFrequency))
	pos("sac.target_freq", int64(c.SAC.TargetNetworkFrequency))
	if c.SAC.Threads != 1 && c.SAC.Threads != 2 {
		add(ConfigErrorf("sac.threads must be 1 or 2 (got %d)", c.SAC.Threads))
	}
	add(oneOf("blas", c.BLAS, []string{"auto", "gonum", "openblas"}))
	nonneg("sac.alpha", c.SAC.Alpha)
	nonneg("sac.alpha_min", c.SAC.AlphaMin)
}

// validateBuffer checks the buffer section.
func (c *Config) validateBuffer(add func(error), pos func(string, int64), nonneg func(string, float64)) {
	pos("buffer.capacity", int64(c.Buffer.Capacity))
	if c.Buffer.Capacity < c.SAC.BatchSize {
		add(ConfigErrorf("buffer.capacity (%d) is smaller than sac.batch_size (%d)", c.Buffer.Capacity, c.SAC.BatchSize))
	}
	nonneg("buffer.per_alpha", c.Buffer.PER.Alpha)
	if c.Buffer.PER.Beta0 < 0 || c.Buffer.PER.Beta0 > 1 {
		add(ConfigErrorf("buffer.per_beta0 must be in [0, 1] (got %g)", c.Buffer.PER.Beta0))
	}
	nonneg("buffer.per_eps", c.Buffer.PER.Eps)
	if c.Buffer.VLMRB.LambdaMax < 0 || c.Buffer.VLMRB.LambdaMax > 1 {
		add(ConfigErrorf("buffer.lambda_max must be in [0, 1] (got %g)", c.Buffer.VLMRB.LambdaMax))
	}
	nonneg("buffer.lambda_warmup", float64(c.Buffer.LambdaWarmup))
	nonneg("buffer.default_prio", c.Buffer.VLMRB.Default)
	nonneg("buffer.score_floor", c.Buffer.VLMRB.Floor)
	nonneg("buffer.vlm_alpha", c.Buffer.VLMRB.Alpha)
	if c.Buffer.VLMRB.Threshold < 0 || c.Buffer.VLMRB.Threshold > 1 {
		add(ConfigErrorf("buffer.threshold must be in [0, 1] (got %g)", c.Buffer.VLMRB.Threshold))
	}
}

// validateVLM checks the vlm section and the openai scorer's server.
func (c *Config) validateVLM(add func(error), pos func(string, int64), nonneg func(string, float64)) {
	pos("vlm.clip_len", int64(c.VLM.Clip.Length))
	pos("vlm.stride", int64(c.VLM.Clip.Stride))
	add(textValue("vlm.apply", c.VLM.Clip.Apply))
	pos("vlm.frames", int64(c.VLM.Frames))
	pos("vlm.width", int64(c.VLM.Width))
	pos("vlm.height", int64(c.VLM.Height))
	if c.VLM.MSAA < 0 || c.VLM.MSAA > 16 {
		add(ConfigErrorf("vlm.msaa must be in 0..16 (got %d)", c.VLM.MSAA))
	}
	nonneg("vlm.workers", float64(c.VLM.Scoring.Workers))
	nonneg("vlm.lag", float64(c.VLM.Scoring.Lag))
	pos("vlm.queue", int64(c.VLM.Scoring.QueueSize))
	if c.VLM.Scoring.QueueSize > MaxVLMQueue || c.VLM.Scoring.Lag > MaxVLMQueue {
		add(ConfigErrorf("vlm.queue and vlm.lag must be ≤ %d (got %d and %d)", MaxVLMQueue, c.VLM.Scoring.QueueSize, c.VLM.Scoring.Lag))
	}
	if c.VLM.Width > 4096 || c.VLM.Height > 4096 {
		add(ConfigErrorf("vlm.width/height above 4096 px: use a smaller scorer frame"))
	}
	// Scorer openai needs its server whichever replay is set: a user who
	// names it means to use a VLM, and the warning for a replay that
	// ignores the scorer comes after (Warnings).
	if c.Scorer == "openai" {
		if c.VLM.BaseURL == "" {
			add(ConfigErrorf("scorer openai needs a server: pass --vlm-base-url URL (or set OPENAI_BASE_URL)"))
		}
		if c.VLM.Model == "" {
			add(ConfigErrorf("scorer openai needs a model: pass --vlm-model NAME"))
		}
	}
}

// validateRM checks the reward_model section for reward erlvlm and vlmrm.
func (c *Config) validateRM(add func(error)) {
	m := &c.RM
	pos := func(name string, v int64) {
		if v <= 0 {
			add(ConfigErrorf("reward_model.%s must be > 0 (got %d)", name, v))
		}
	}
	pos("frame_size", int64(m.FrameSize))
	if m.FrameSize > 1024 {
		add(ConfigErrorf("reward_model.frame_size above 1024 px: use a smaller reward frame"))
	}
	if c.Reward == "vlmrm" {
		if m.EmbedBaseURL == "" {
			add(ConfigErrorf("reward vlmrm needs an embedding server: pass --embed-base-url URL"))
		}
		if len(m.Goal) == 0 || len(m.Baseline) == 0 {
			add(ConfigErrorf("reward vlmrm needs goal and baseline prompts: pass --goal \"...\" --baseline \"...\""))
		}
		if !(m.Alpha >= 0 && m.Alpha <= 1) {
			add(ConfigErrorf("reward_model.alpha must be in [0, 1] (got %g)", m.Alpha))
		}
		pos("embed_batch", int64(m.EmbedBatch))
		return
	}
	add(oneOf("reward_model.rater", m.Rater, RaterChoices))
	add(oneOf("reward_model.loss", m.Loss, []string{"mae", "ce"}))
	add(oneOf("reward_model.pretrain", m.Pretrain, []string{"entropy", "none"}))
	pos("entropy_k", int64(m.EntropyK))
	if m.Catchup < 0 {
		add(ConfigErrorf("reward_model.catchup_updates must be ≥ 0 (got %d)", m.Catchup))
	}
	if m.Classes != 0 && (m.Classes < 2 || m.Classes > 5) {
		add(ConfigErrorf("reward_model.classes must be 2–5, or 0 for the task's default (got %d)", m.Classes))
	}
	if !(m.LabelNoise >= 0 && m.LabelNoise <= 1) {
		add(ConfigErrorf("reward_model.label_noise must be in [0, 1] (got %g)", m.LabelNoise))
	}
	pos("cnn_size", int64(m.CNNSize))
	if m.CNNSize > m.FrameSize {
		add(ConfigErrorf("reward_model.cnn_size (%d) exceeds frame_size (%d)", m.CNNSize, m.FrameSize))
	}
	pos("ensemble", int64(m.Ensemble))
	pos("batch", int64(m.Batch))
	if m.LR <= 0 {
		add(ConfigErrorf("reward_model.lr must be > 0 (got %g)", m.LR))
	}
	pos("epochs", int64(m.Epochs))
	pos("first", m.First)
	pos("every", m.Every)
	pos("per_session", int64(m.PerSession))
	pos("budget", int64(m.Budget))
	pos("episodes", int64(m.Episodes))
	pos("per_episode", int64(m.PerEpisode))
	pos("workers", int64(m.Workers))
	if m.Rater == "openai" {
		if c.VLM.BaseURL == "" {
			add(ConfigErrorf("rater openai needs a server: pass --vlm-base-url URL (or set OPENAI_BASE_URL)"))
		}
		if c.VLM.Model == "" {
			add(ConfigErrorf("rater openai needs a model: pass --vlm-model NAME"))
		}
	}
}

// textValue checks an enumerated field that YAML reads as text (a field a
// program set to a value with no name fails).
func textValue(key string, v encoding.TextMarshaler) error {
	if _, err := v.MarshalText(); err != nil {
		return ConfigErrorf("%s: %v", key, err)
	}
	return nil
}

// validateBaselines checks the aer and ero sections when they are used.
func (c *Config) validateBaselines(add func(error)) {
	switch c.Replay {
	case "aer":
		if !(c.AER.Lambda0 >= 1 && c.AER.Lambda0 <= 1024) {
			add(ConfigErrorf("aer.lambda0 must be in [1, 1024] (got %g)", c.AER.Lambda0))
		}
	case "ero":
		if c.ERO.Candidates < 1 || c.ERO.Candidates > 256 {
			add(ConfigErrorf("ero.candidates must be in [1, 256] (got %d)", c.ERO.Candidates))
		}
		if !(c.ERO.LR > 0) {
			add(ConfigErrorf("ero.lr must be > 0 (got %g)", c.ERO.LR))
		}
	}
}

// CheckEngine refuses an engine (tasks.Options.Engine) that is not one of
// tasks.Engines — engine sim, the tabletop's old engine, with the words of
// its removal (tasks.ErrEngineRemoved) — and any engine on a task other
// than the tabletop tasks (the grid tasks and the tasks over an imported
// arm have their own engine). "" is the default and always passes. The run
// config's engine key and every front end's --engine and engine= say the
// same through it.
func CheckEngine(task, engine string) error {
	switch {
	case engine == tasks.EngineSim:
		return ConfigErrorf("%v", tasks.ErrEngineRemoved)
	case engine != "" && !slices.Contains(tasks.Engines(), engine):
		return ConfigErrorf("engine %q is not one of %s", engine, strings.Join(tasks.Engines(), ", "))
	case engine != "" && !slices.Contains(tasks.Names(), task):
		return ConfigErrorf("engine %s applies to the tabletop tasks (%s); task %s has its own engine, leave engine unset", engine, strings.Join(tasks.Names(), ", "), task)
	}
	return nil
}

// OldEngine reports whether run config c was recorded on the tabletop's
// old engine sim: a tabletop task whose engine key says sim or is empty
// (runs since the old engine's removal record engine articulated; runs
// before it recorded "" or sim, or had no engine key). Its policy and
// buffer come from other physics: it cannot be resumed, and eval, record
// and render run it on the articulated engine only when asked to, as a
// transfer (OldEngineError).
func OldEngine(c *Config) bool {
	return (c.Engine == "" || c.Engine == tasks.EngineSim) && slices.Contains(tasks.Names(), tasks.Canonical(c.Task))
}

// OldEngineError is the refusal of a run OldEngine reports; what is the
// front end's verb (evaluate, record, render).
func OldEngineError(runDir, what string) error {
	return ConfigErrorf("run %s was trained on the tabletop's old engine sim, which was removed; "+
		"%s it on the articulated engine with --engine articulated (a transfer: other physics than it trained on)", runDir, what)
}

// TransferNote is what a front end prints when it runs a policy that
// OldEngine reports on the articulated engine.
const TransferNote = "transfer: the policy was trained on the old engine sim and runs on the articulated engine"
