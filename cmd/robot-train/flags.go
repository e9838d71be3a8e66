package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/vlmrb/vlmrb/rundir"
)

// flagDef is one row of the flag table: a flag, the rundir.Config key it
// sets, whether it may change on --resume, and its help. The flags of
// train, the --resume check and the flag→config mapping all come from
// trainFlags; other commands take the rows they share (sharedFlag).
type flagDef struct {
	name string // flag name, without dashes
	// key is the rundir.Config key (see rundir.ConfigKeys) the flag sets; ""
	// for run options that never enter config.yaml. The flag's type and
	// default come from the key's field in rundir.DefaultConfig.
	key string
	// dqnKey is the key the flag also sets when the learner resolves to
	// dqn (the learner flags name the DQN's settings on discrete tasks).
	dqnKey string
	// resume: the flag may be given with --resume, because it does not
	// change the experiment (budget, cadence, where servers live).
	resume bool
	help   string
	// option rows (key ""): the flag's kind — string (the default), bool,
	// int, uint, float or duration — and its default as text.
	kind string
	def  string
	// noDefault shows no default in -h: the value is derived when the flag
	// is not given (--out from task, replay and seed; URLs from $OPENAI_BASE_URL).
	noDefault bool
}

// trainFlags is the table of robot-train train's flags.
var trainFlags = []flagDef{
	{name: "config", help: "YAML config file applied on top of the defaults (flags override it)"},
	{name: "resume", resume: true, help: "continue the run in `RUN_DIR` from its last complete checkpoint"},
	{name: "quiet", kind: "bool", resume: true, help: "no console table or progress bar (files are still written)"},
	{name: "cpuprofile", resume: true, help: "write a CPU profile of the run to `FILE` (go tool pprof FILE)"},
	{name: "set", kind: "repeat", help: "set any config `KEY=VALUE` (repeatable; after --config, before the other flags): --set sac.gamma=0.98 --set buffer.capacity=1e5; train --print-config lists the keys"},
	{name: "print-config", kind: "bool", resume: true, help: "print the resolved configuration as YAML (what config.yaml would hold) and exit without training"},
	{name: "dry-run", kind: "bool", resume: true, help: "check the configuration and the run directory, print the resolved configuration and where the run would go, and exit without training or writing"},
	{name: "vlm-required", kind: "bool", resume: true, help: "stop the run at the first VLM server failure (default: keep training, warn once per error kind, report in the summary)"},

	{name: "task", key: "task", help: "task `NAME` (robot-train tasks lists them)"},
	{name: "model", key: "arm.model", help: "MJCF `FILE.xml` of an arm: trains task arm-reach on it (--task reach; pick|push: panda-pick, panda-push with its gripper), with one env, 100-step episodes, --control ee and 20 evaluation episodes every 10,000 steps unless told otherwise"},
	{name: "site", key: "arm.site", help: "--model: end-effector site `NAME` (default ee, or the model's only site), or a body's name for its origin"},
	{name: "actuators", key: "arm.actuators", help: "--model: comma-separated position actuators to drive (default every position servo)"},
	{name: "grip", key: "arm.grip", help: "--model with --task pick|push: the gripper's position actuator `NAME` (default the servo on a slide joint)"},
	{name: "keyframe", key: "arm.keyframe", help: "--model: the model's keyframe `NAME` episodes start from (default qpos0)"},
	{name: "control", key: "arm.control", help: "--model: action space joint (position-target deltas) or ee (end-effector deltas through IK)"},
	{name: "reward", key: "reward", help: "reward SAC trains on: dense|sparse (the task's), erlvlm (learned from VLM ratings), vlmrm (VLM embedding similarity)"},
	{name: "replay", key: "replay", help: "replay sampler: auto|uniform|per|relo|vlmrb|aer|ero (auto: uniform for SAC, per for DQN)"},
	{name: "algo", key: "algo", help: "learner: auto (dqn for the discrete doorkey tasks, sac otherwise) | sac | dqn"},
	{name: "scorer", key: "scorer", help: "clip scorer for vlmrb: pixel|oracle|openai"},
	{name: "steps", key: "steps", resume: true, help: "total environment steps `N`"},
	{name: "seed", key: "seed", help: "random seed `S`"},
	{name: "out", key: "out", noDefault: true, help: "run directory `RUN_DIR` (default runs/TASK-REPLAY-sSEED, or runs/TASK-REPLAY-sSEED_2, _3, … when that already holds a run)"},
	{name: "num-envs", key: "num_envs", help: "parallel training environments"},
	{name: "max-episode-len", key: "max_episode_len", help: "control steps per episode (0 = task default)"},
	{name: "demos", help: "the first `N|PATH` episodes: N driven by the task's scripted expert (config key demos; they count toward steps), or those of the LeRobot v3 dataset at PATH (robot-train record), stored in replay first and marked as demonstrations (config key demos_path)"},
	{name: "learning-starts", key: "sac.learning_starts", dqnKey: "dqn.learning_starts", help: "env steps of random actions before updates"},
	{name: "batch-size", key: "sac.batch_size", dqnKey: "dqn.batch_size", help: "SAC batch size"},
	{name: "updates-per-step", key: "sac.updates_per_step", help: "gradient updates per env step"},
	{name: "hidden", key: "sac.hidden", dqnKey: "dqn.hidden", help: "hidden layer widths, comma-separated"},
	{name: "gamma", key: "sac.gamma", dqnKey: "dqn.gamma", help: "discount factor γ (SAC's 0: the task's default, 0.95 on reach-center, else 0.99)"},
	{name: "tau", key: "sac.tau", dqnKey: "dqn.tau", help: "Polyak coefficient τ of the target networks (DQN: with target_freq)"},
	{name: "actor-lr", key: "sac.actor_lr", help: "SAC actor's Adam learning rate (DQN: --set dqn.lr=X)"},
	{name: "critic-lr", key: "sac.critic_lr", dqnKey: "dqn.lr", help: "SAC critics' (and log α's) Adam learning rate; DQN's Q-network learning rate"},
	{name: "buffer-size", key: "buffer.capacity", help: "replay buffer capacity in transitions (1e6, 100k)"},
	{name: "eval-every", key: "eval.every", resume: true, help: "env steps between evaluations (0 = only at the end)"},
	{name: "eval-episodes", key: "eval.episodes", resume: true, help: "episodes per evaluation"},
	{name: "log-every", key: "log.every", resume: true, help: "env steps between log rows"},
	{name: "checkpoint-every", key: "checkpoint.every", resume: true, help: "env steps between checkpoints (0 = only at exit)"},
	{name: "render-backend", key: "vlm.backend", resume: true, help: "renderer for scorer frames and GIFs: auto|egl|soft"},
	{name: "blas", key: "blas", resume: true, help: "BLAS backend: auto|gonum|openblas"},
	{name: "threads", key: "sac.threads", resume: true, help: "SAC threads: 1, or 2 to run the twin critics in parallel"},
	{name: "vlm-base-url", key: "vlm.base_url", resume: true, noDefault: true, help: "OpenAI-compatible server `URL` for --scorer openai (default $OPENAI_BASE_URL)"},
	{name: "vlm-model", key: "vlm.model", resume: true, noDefault: true, help: "model `NAME` on the --vlm-base-url server (--scorer openai, --rater openai)"},

	{name: "rater", key: "reward_model.rater", help: "erlvlm rater: oracle (task progress, offline) | openai (the --vlm-base-url server)"},
	{name: "label-noise", key: "reward_model.label_noise", help: "erlvlm oracle: probability `P` a rating is replaced by another class"},
	{name: "rating-classes", key: "reward_model.classes", help: "erlvlm rating classes 2–5 (0: the paper's choice for the task)"},
	{name: "embed-base-url", key: "reward_model.embed_base_url", resume: true, noDefault: true, help: "vlmrm: /v1/embeddings server `URL` that embeds images and text"},
	{name: "embed-model", key: "reward_model.embed_model", noDefault: true, help: "vlmrm: embedding model `NAME` on that server"},
	{name: "alpha", key: "reward_model.alpha", help: "vlmrm: goal–baseline projection strength `A` in [0, 1]"},
	{name: "goal", key: "reward_model.goal", help: "vlmrm goal prompt (repeat to average several)"},
	{name: "baseline", key: "reward_model.baseline", help: "vlmrm baseline prompt (repeat to average several)"},
}

// sharedFlag returns the row of trainFlags named name, for commands that
// share a flag with train. It panics for names not in the table (a
// programming error, caught by the tests).
func sharedFlag(name string) flagDef {
	for _, d := range trainFlags {
		if d.name == name {
			return d
		}
	}
	panic("robot-train: no flag " + name + " in trainFlags")
}

// resumeSafeFlags returns the names of the flags allowed with --resume,
// in table order.
func resumeSafeFlags() []string {
	var out []string
	for _, d := range trainFlags {
		if d.resume {
			out = append(out, d.name)
		}
	}
	return out
}

// boundFlags are the flags of a table registered on a FlagSet.
type boundFlags struct {
	fs   *flag.FlagSet
	defs []flagDef
	vals map[string]flag.Value
}

// bindFlags registers every row of defs on fs. A config row gets the
// type and default of its key in def; an option row is a string or bool
// flag with an empty default.
func bindFlags(fs *flag.FlagSet, defs []flagDef, def *rundir.Config) (*boundFlags, error) {
	b := &boundFlags{fs: fs, defs: defs, vals: map[string]flag.Value{}}
	for _, d := range defs {
		if d.key == "" {
			if err := defineOption(fs, d); err != nil {
				return nil, err
			}
			b.vals[d.name] = fs.Lookup(d.name).Value
			continue
		}
		kind, err := rundir.ConfigKeyType(d.key)
		if err != nil {
			return nil, fmt.Errorf("flag --%s: %w", d.name, err)
		}
		text, err := rundir.GetConfigKey(def, d.key)
		if err != nil {
			return nil, fmt.Errorf("flag --%s: %w", d.name, err)
		}
		if d.noDefault {
			text = ""
		}
		if err := defineFlag(fs, d, kind, text); err != nil {
			return nil, err
		}
		b.vals[d.name] = fs.Lookup(d.name).Value
	}
	return b, nil
}

// defineOption registers one option row (no config key) with its kind
// and default.
func defineOption(fs *flag.FlagSet, d flagDef) error {
	var err error
	switch d.kind {
	case "", "string":
		fs.String(d.name, d.def, d.help)
	case "bool":
		fs.Bool(d.name, d.def == "true", d.help)
	case "repeat":
		fs.Var(&repeated{}, d.name, d.help)
	case "duration":
		var v time.Duration
		if d.def != "" {
			v, err = time.ParseDuration(d.def)
		}
		fs.Duration(d.name, v, d.help)
	default:
		kind := map[string]string{"int": "int", "uint": "uint", "float": "float"}[d.kind]
		if kind == "" {
			return fmt.Errorf("flag --%s: unknown kind %q", d.name, d.kind)
		}
		return defineFlag(fs, d, kind, d.def)
	}
	if err != nil {
		return fmt.Errorf("flag --%s: default %q: %w", d.name, d.def, err)
	}
	return nil
}

// defineFlag registers one config row as a flag of the key's kind, so
// that the flag package parses and checks its syntax and -h shows its type.
func defineFlag(fs *flag.FlagSet, d flagDef, kind, def string) error {
	var err error
	switch kind {
	case "string":
		fs.String(d.name, def, d.help)
	case "bool":
		fs.Bool(d.name, def == "true", d.help)
	case "int":
		var v int64
		if def != "" {
			_, err = fmt.Sscan(def, &v)
		}
		fs.Var(&countValue{v: v}, d.name, d.help)
	case "uint":
		var v uint64
		if def != "" {
			_, err = fmt.Sscan(def, &v)
		}
		fs.Var(&countValue{v: int64(v), unsigned: true}, d.name, d.help)
	case "float":
		var v float64
		if def != "" {
			_, err = fmt.Sscan(def, &v)
		}
		fs.Float64(d.name, v, d.help)
	case "[]int":
		v := &keyList{key: d.key}
		if def != "" {
			v.texts = []string{def}
		}
		fs.Var(v, d.name, d.help)
	case "[]string":
		fs.Var(&keyList{key: d.key, repeat: true}, d.name, d.help)
	default:
		return fmt.Errorf("flag --%s: config key %s has unsupported kind %s", d.name, d.key, kind)
	}
	if err != nil {
		return fmt.Errorf("flag --%s: default %q: %w", d.name, def, err)
	}
	return nil
}

// keyList is the flag.Value of a slice key: []int takes one
// comma-separated list (the last one given wins), []string is repeated,
// one element per use. Set checks the text against the key's type.
type keyList struct {
	key    string
	repeat bool
	texts  []string
	set    bool
}

func (l *keyList) String() string {
	if l == nil {
		return ""
	}
	return strings.Join(l.texts, " | ")
}

func (l *keyList) Set(v string) error {
	next := []string{v}
	if l.repeat {
		if !l.set {
			l.texts = nil // a flag given on the command line replaces the default
		}
		next = append(l.texts, v)
	}
	var probe rundir.Config
	if err := rundir.SetConfigKey(&probe, l.key, next...); err != nil {
		if l.repeat && strings.TrimSpace(v) == "" {
			return errors.New("empty prompt")
		}
		return err
	}
	l.texts, l.set = next, true
	return nil
}

// texts returns what flag name was given as, ready for rundir.SetConfigKey.
func (b *boundFlags) texts(name string) []string {
	v := b.vals[name]
	if l, ok := v.(*keyList); ok {
		return l.texts
	}
	return []string{v.String()}
}

// str, on, int, u64, f64 and dur return the values of option rows; a
// name not in the table or of another kind panics (a programming error,
// caught by the tests).
func (b *boundFlags) str(name string) string { return b.vals[name].String() }
func (b *boundFlags) on(name string) bool    { return b.get(name).(bool) }
func (b *boundFlags) int(name string) int    { return int(b.get(name).(int64)) }
func (b *boundFlags) u64(name string) uint64 { return b.get(name).(uint64) }
func (b *boundFlags) f64(name string) float64 {
	return b.get(name).(float64)
}
func (b *boundFlags) dur(name string) time.Duration { return b.get(name).(time.Duration) }

func (b *boundFlags) get(name string) any {
	v, ok := b.vals[name]
	if !ok {
		panic("robot-train: no flag " + name + " in the command's table")
	}
	return v.(flag.Getter).Get()
}

// given reports whether flag name was on the command line.
func (b *boundFlags) given(name string) bool {
	set := false
	b.fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// commandFlags parses args with the flags of table for command name: the
// table's rows bound on a new FlagSet, train's defaults for config rows.
func commandFlags(name, usage string, table []flagDef, args []string, stderr io.Writer) (*boundFlags, error) {
	fs := newFlags(name, usage, stderr)
	def := rundir.DefaultConfig()
	b, err := bindFlags(fs, table, &def)
	if err != nil {
		return nil, err
	}
	if err := parse(fs, args); err != nil {
		return nil, err
	}
	return b, nil
}

// optionRow is a shared train row as an option row of another command
// (same name and help, no config key): the command reads it itself.
func optionRow(name string) flagDef {
	d := sharedFlag(name)
	d.key, d.dqnKey, d.kind = "", "", ""
	return d
}

// apply sets the config key of every flag given on the command line
// (set). Flags override whatever cfg held before (defaults, a --config
// file). applyDQN then sets the dqn keys of the learner flags, for runs
// whose learner resolves to dqn.
func (b *boundFlags) apply(cfg *rundir.Config, set map[string]bool) error {
	return b.applyKeys(cfg, set, func(d flagDef) string { return d.key })
}

func (b *boundFlags) applyDQN(cfg *rundir.Config, set map[string]bool) error {
	return b.applyKeys(cfg, set, func(d flagDef) string { return d.dqnKey })
}

func (b *boundFlags) applyKeys(cfg *rundir.Config, set map[string]bool, key func(flagDef) string) error {
	for _, d := range b.defs {
		k := key(d)
		if k == "" || !set[d.name] {
			continue
		}
		if err := rundir.SetConfigKey(cfg, k, b.texts(d.name)...); err != nil {
			return usagef("--%s: %v", d.name, err)
		}
	}
	return nil
}
