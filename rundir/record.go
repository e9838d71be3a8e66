package rundir

import (
	"context"
	"encoding/json"
	"fmt"
	"image"
	"io"
	"os"
	"slices"
	"time"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/lerobot"
	"github.com/vlmrb/vlmrb/render"
	"github.com/vlmrb/vlmrb/tasks"
)

// RecordOptions configures Record: which task and policy, how many
// episodes, how they are seeded and which cameras are filmed.
type RecordOptions struct {
	Task string // task name ("" takes the run's task with a RUN policy)
	// Engine is a tabletop task's physics engine (tasks.Options.Engine;
	// "" takes the run's with a RUN policy, else articulated);
	// CheckEngine's rule. A RUN policy trained on the old engine sim
	// (OldEngine) needs Engine articulated, said as a transfer.
	Engine string
	// Arm is the imported arm of tasks arm-reach, panda-pick and
	// panda-push (Model is required for them; a RUN policy of such a task
	// brings its own).
	Arm ArmConfig
	// Policy is expert (the task's scripted expert), random (uniform
	// actions) or the directory of a training run (its newest agent
	// checkpoint, acting deterministically).
	Policy   string
	Episodes int
	// Seed and NumEnvs lay out the episode seeds as a training run with
	// that seed and that many envs would: episode k is the next episode of
	// the env that finishes first (control.EpisodeSeed), so recorded
	// expert episodes are the ones a run's first `demos` episodes are.
	Seed          uint64
	NumEnvs       int
	MaxEpisodeLen int    // control steps (0 = the run's, else training's default for the task)
	Reward        string // dense | sparse: the reward stored in next.reward
	// Cameras are sim camera names (task, workspace, corner, topview, …),
	// each a video observation.images.<name> of Width×Height pixels.
	Cameras       []string
	Width, Height int
	Backend       string // renderer: auto | egl | soft
	Codec         string // auto | av1 | h264
	Progress      io.Writer

	transfer bool // a policy of the old engine sim, recorded on articulated
}

// Fits says why demonstrations recorded as m cannot train the run cfg
// (another task, reward or engine, with the record command that fixes it),
// or nil when they can.
func (m RecordMeta) Fits(cfg *Config) error {
	// a tabletop dataset without an engine was recorded on the old engine
	// sim; a run without one trains on articulated
	tabletop := slices.Contains(tasks.Names(), tasks.Canonical(cfg.Task))
	recorded, trains := m.Engine, cfg.Engine
	if tabletop && recorded == "" {
		recorded = tasks.EngineSim
	}
	if tabletop && trains == "" {
		trains = tasks.EngineArticulated
	}
	switch {
	case m.Task != cfg.Task:
		return fmt.Errorf("recorded on task %s, the run trains %s; record demonstrations of %s (robot-train record --task %s)", m.Task, cfg.Task, cfg.Task, cfg.Task)
	case m.Reward != cfg.EnvReward():
		return fmt.Errorf("holds %s rewards, the run's env reward is %s; record with --reward %s", m.Reward, cfg.EnvReward(), cfg.EnvReward())
	case recorded == tasks.EngineSim && trains != recorded:
		return fmt.Errorf("recorded on the old engine sim, which was removed; the run trains on %s; record the demonstrations again (robot-train record --task %s)", trains, cfg.Task)
	case recorded != trains:
		return fmt.Errorf("recorded on the %s engine, the run trains on %s; record the demonstrations again (robot-train record --task %s)", recorded, trains, cfg.Task)
	}
	return nil
}

// RecordMeta is meta/vlmrb.json of a recorded dataset: where its episodes
// came from, so train --demos can check that they fit the run.
type RecordMeta struct {
	Task     string   `json:"task"`
	Engine   string   `json:"engine,omitempty"` // the tabletop task's engine: articulated ("" or sim: recorded on the old engine sim)
	Reward   string   `json:"reward"`
	Policy   string   `json:"policy"`
	Seed     uint64   `json:"seed"`
	NumEnvs  int      `json:"num_envs"`
	Seeds    []uint64 `json:"episode_seeds"`
	EnvOf    []int    `json:"episode_envs"`
	Renderer string   `json:"renderer,omitempty"`
}

// RecordResult is what Record wrote and how fast.
type RecordResult struct {
	*lerobot.Summary
	Successes int
	Lengths   []int // frames of each episode, in order
	Elapsed   time.Duration
	FPS       float64 // frames recorded per second of wall time, encoding included
	// Transfer is TransferNote when a RUN_DIR policy trained on the old
	// engine sim was recorded on the articulated engine, else "".
	Transfer string
}

// recordEnv is what Record drives: a tabletop task (*tasks.Env) or a task
// over an imported arm (ArmEnv).
type recordEnv interface {
	control.Env
	Expert() control.Policy
	Progress() (float64, string)
}

// recordCam films its env's current state.
type recordCam interface {
	film(dst *image.RGBA) error
	Describe() string
	Close() error
}

// recordSource is the env Record drives, its cameras and how the dataset
// names what it records.
type recordSource struct {
	env                  recordEnv
	cams                 []recordCam
	lcams                []lerobot.Camera
	imgs                 []*image.RGBA
	robot                string
	stateNames, actNames []string
	describe             func() string // the episode's task text, after Reset
}

func (s *recordSource) close() {
	for _, c := range s.cams {
		_ = c.Close()
	}
	if s.env != nil {
		_ = s.env.Close()
	}
}

// Record runs o.Episodes episodes of a task under a policy and writes them
// as a LeRobot v3.0 dataset at dir (see package lerobot): states, actions
// in the env's bounds, reward, done, success and the camera videos, at the
// control rate. A tabletop task records 39-value states and 4-value
// actions at 80 fps; a task over an imported arm (recordarm.go) its own
// observation and action at 25 fps.
func Record(ctx context.Context, dir string, o RecordOptions) (*RecordResult, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	pol, agentSpace, closePol, err := recordPolicy(&o)
	if err != nil {
		return nil, err
	}
	defer closePol()
	if err := CheckEngine(o.Task, o.Engine); err != nil {
		return nil, err
	}
	src := &recordSource{}
	defer src.close()
	if isArmTaskName(o.Task) || o.Arm.Model != "" {
		err = openArmRecord(&o, src)
	} else {
		err = openTaskRecord(&o, src)
	}
	if err != nil {
		return nil, err
	}
	env, cams, imgs := src.env, src.cams, src.imgs
	spec := env.Spec()
	w, err := lerobot.Create(ctx, dir, lerobot.Spec{
		FPS: 1 / spec.ControlDt, RobotType: src.robot,
		StateDim: spec.ObsDim, ActionDim: spec.ActDim, StateNames: src.stateNames, ActionNames: src.actNames,
		NextState: true, Rewards: true, Progress: true, Cameras: src.lcams, Codec: o.Codec,
	})
	if err != nil {
		return nil, err
	}
	defer w.Abort() // no-op after Close

	engine := o.Engine
	if engine == "" && slices.Contains(tasks.Names(), tasks.Canonical(o.Task)) {
		engine = tasks.EngineArticulated
	}
	meta := RecordMeta{Task: o.Task, Engine: engine, Reward: o.Reward, Policy: o.Policy, Seed: o.Seed, NumEnvs: o.NumEnvs}
	if len(cams) > 0 {
		meta.Renderer = cams[0].Describe()
	}
	sched := NewEpisodeSchedule(o.NumEnvs)
	res := &RecordResult{}
	if o.transfer {
		res.Transfer = TransferNote
	}
	t0 := time.Now()
	fr := lerobot.Frame{Images: imgs}
	for ep := range o.Episodes {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		ei, k := sched.Next()
		seed := control.EpisodeSeed(o.Seed, ei, k)
		meta.Seeds, meta.EnvOf = append(meta.Seeds, seed), append(meta.EnvOf, ei)
		obs, _ := env.Reset(seed)
		p := pol(env, ep)
		if err := w.BeginEpisode(src.describe()); err != nil {
			return nil, err
		}
		n, success, err := recordEpisode(w, env, obs, p, cams, imgs, o.Cameras, &fr, agentSpace, ep)
		if err != nil {
			return nil, err
		}
		if err := w.EndEpisode(""); err != nil {
			return nil, err
		}
		sched.Finish(ei, n)
		res.Lengths = append(res.Lengths, n)
		if success {
			res.Successes++
		}
		if o.Progress != nil {
			_, _ = fmt.Fprintf(o.Progress, "episode %d/%d: %d frames, success %v\n", ep+1, o.Episodes, n, success)
		}
	}
	mb, err := json.MarshalIndent(meta, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := w.SetMeta("vlmrb.json", append(mb, '\n')); err != nil {
		return nil, err
	}
	sum, err := w.Close()
	if err != nil {
		return nil, err
	}
	res.Summary, res.Elapsed = sum, time.Since(t0)
	res.FPS = float64(sum.Frames) / res.Elapsed.Seconds()
	return res, nil
}

// defaults checks o and fills its zero fields: one env, the sparse
// reward (the episode length is settled by the source, after the policy).
func (o *RecordOptions) defaults() error {
	if o.Episodes <= 0 {
		return &ConfigError{Msg: fmt.Sprintf("--episodes %d must be positive", o.Episodes)}
	}
	if o.MaxEpisodeLen < 0 {
		return &ConfigError{Msg: fmt.Sprintf("--max-episode-len %d must be ≥ 0 (0: the task's default)", o.MaxEpisodeLen)}
	}
	if o.NumEnvs <= 0 {
		o.NumEnvs = 1
	}
	if o.Reward == "" {
		o.Reward = "sparse"
	}
	return nil
}

// openTaskRecord opens a tabletop task and its sim cameras.
func openTaskRecord(o *RecordOptions, src *recordSource) error {
	if o.MaxEpisodeLen == 0 {
		o.MaxEpisodeLen = DefaultConfig().MaxEpisodeLen // what a run's episodes last
	}
	reward, err := tasks.ParseRewardMode(o.Reward)
	if err != nil {
		return &ConfigError{Msg: err.Error()}
	}
	env, err := tasks.Make(o.Task, tasks.Options{Reward: reward, MaxSteps: o.MaxEpisodeLen, Engine: o.Engine})
	if err != nil {
		return &ConfigError{Msg: err.Error() + " (robot-train tasks lists them)"}
	}
	src.env, src.describe = env, env.Description
	if env.Spec().Discrete > 0 {
		return &ConfigError{Msg: fmt.Sprintf("task %s has discrete actions; record writes the manipulation tasks", o.Task)}
	}
	src.robot, src.stateNames, src.actNames = "vlmrb-sawyer-sim", tasks.ObsNames(), tasks.ActNames()
	return recordCameras(*o, env, src)
}

// recordPolicy is record's --policy: the task's expert, uniform random
// actions, or a run's newest agent (filling o's task and episode length
// from the run); agentSpace reports actions in [−1, 1]; closePol releases
// the agent.
func recordPolicy(o *RecordOptions) (pol func(env recordEnv, ep int) control.Policy, agentSpace bool, closePol func(), err error) {
	closePol = func() {}
	agentSpace = true // the policy acts in [−1, 1]
	switch o.Policy {
	case "expert":
		return func(env recordEnv, _ int) control.Policy { return env.Expert() }, false, closePol, nil
	case "random":
		return func(_ recordEnv, ep int) control.Policy {
			return control.RandomPolicy(o.Seed ^ uint64(ep+1)*0x9e3779b97f4a7c15)
		}, true, closePol, nil
	}
	st, err := os.Stat(o.Policy)
	if err != nil || !st.IsDir() {
		return nil, false, closePol, &ConfigError{Msg: fmt.Sprintf("--policy %q is not expert, random or a run directory", o.Policy)}
	}
	a, cfg, _, err := LoadAgent(o.Policy)
	if err != nil {
		return nil, false, closePol, err
	}
	closePol = a.Close
	if o.Task == "" {
		o.Task = cfg.Task
	}
	if o.MaxEpisodeLen == 0 && cfg.MaxEpisodeLen != 0 {
		o.MaxEpisodeLen = cfg.MaxEpisodeLen
	}
	if OldEngine(&cfg) {
		if o.Engine == "" {
			return nil, false, closePol, OldEngineError(o.Policy, "record")
		}
		o.transfer = true
	}
	if o.Engine == "" {
		o.Engine = cfg.Engine // the run's engine; --engine records it on another
	}
	if o.Task != cfg.Task {
		return nil, false, closePol, &ConfigError{Msg: fmt.Sprintf("run %s trained on %s, not %s", o.Policy, cfg.Task, o.Task)}
	}
	if cfg.IsArmTask() {
		if o.Arm.Model != "" {
			return nil, false, closePol, &ConfigError{Msg: fmt.Sprintf("run %s records on the arm it trained on (%s); omit --model and the arm's flags", o.Policy, cfg.Arm.Model)}
		}
		o.Arm = cfg.Arm
	}
	p := AgentPolicy(a)
	return func(recordEnv, int) control.Policy { return p }, agentSpace, closePol, nil
}

// simRecordCam is a tabletop sim camera filming its env.
type simRecordCam struct {
	*render.SimCamera
	env *tasks.Env
}

func (c simRecordCam) film(dst *image.RGBA) error { return c.Render(c.env, dst) }

// recordCameras opens o's cameras on env into src, with the dataset's
// camera entries and one image buffer each (src.close closes the cameras
// opened so far when one fails).
func recordCameras(o RecordOptions, env *tasks.Env, src *recordSource) error {
	for _, name := range o.Cameras {
		c, err := NewSimCamera(o.Backend, name, "", o.Width, o.Height, env)
		if err != nil {
			return err
		}
		src.addCam(simRecordCam{c, env}, name, o.Width, o.Height)
	}
	return nil
}

// addCam adds camera c, filmed as observation.images.<name>, w × h.
func (s *recordSource) addCam(c recordCam, name string, w, h int) {
	s.cams = append(s.cams, c)
	s.lcams = append(s.lcams, lerobot.Camera{Name: name, Width: w, Height: h})
	s.imgs = append(s.imgs, image.NewRGBA(image.Rect(0, 0, w, h)))
}

// recordEpisode runs policy p from obs to the episode's end, writing one
// dataset frame per step: the cameras' renders and the progress of the
// state the action is taken in, the state, the action in the env's bounds
// and the outcome. It returns the episode's length and success.
func recordEpisode(w *lerobot.Writer, env recordEnv, obs []float64, p control.Policy, cams []recordCam, imgs []*image.RGBA,
	names []string, fr *lerobot.Frame, agentSpace bool, ep int) (int, bool, error) {
	spec := env.Spec()
	act, envAct := make([]float64, spec.ActDim), make([]float64, spec.ActDim)
	n, success := 0, false
	for {
		for i, c := range cams {
			if err := c.film(imgs[i]); err != nil {
				return n, success, fmt.Errorf("render %s: %w", names[i], err)
			}
		}
		fr.Progress, _ = env.Progress() // at the state the action is taken in, as the scorer sees it
		p.Act(obs, act)
		toEnvAction(envAct, act, spec, agentSpace)
		next, r, term, trunc, info, err := env.Step(envAct)
		if err != nil {
			return n, success, fmt.Errorf("episode %d step %d: %w", ep, n, err)
		}
		succ := info.Values["success"] != 0
		success = success || succ
		done := term || trunc
		fr.State, fr.Action, fr.NextState = obs, envAct, next
		fr.Reward, fr.Done, fr.Truncated, fr.Success = r, done, trunc, succ
		if err := w.AddFrame(fr); err != nil {
			return n, success, err
		}
		n++
		if done {
			return n, success, nil
		}
		obs = append(obs[:0], next...)
	}
}

// toEnvAction maps a policy's action to the env's bounds (from [−1, 1]
// when agentSpace) and clamps it there: the dataset stores what the env
// executes.
func toEnvAction(dst, a []float64, spec control.Spec, agentSpace bool) {
	lo, hi := spec.ActLow, spec.ActHigh
	for j, v := range a {
		if agentSpace && lo != nil && hi != nil {
			v = lo[j] + (v+1)/2*(hi[j]-lo[j])
		}
		if lo != nil && hi != nil {
			v = min(max(v, lo[j]), hi[j])
		}
		dst[j] = v
	}
}

// EpisodeSchedule hands out episodes to n envs the way a training loop's
// vector steps do: the next episode goes to the env whose current episode
// ends first (ties to the lowest env index, as the loop closes episodes
// in env order).
type EpisodeSchedule struct {
	end   []int // vector step at which each env's last assigned episode ends
	count []int // episodes assigned per env
}

// NewEpisodeSchedule starts a schedule over n envs.
func NewEpisodeSchedule(n int) *EpisodeSchedule {
	return &EpisodeSchedule{end: make([]int, n), count: make([]int, n)}
}

// Next returns the env of the next episode and that episode's index in the
// env's seed sequence.
func (s *EpisodeSchedule) Next() (env, k int) {
	for i := range s.end {
		if s.end[i] < s.end[env] {
			env = i
		}
	}
	k = s.count[env]
	s.count[env]++
	return env, k
}

// Finish records that env's episode lasted n steps.
func (s *EpisodeSchedule) Finish(env, n int) { s.end[env] += n }

// Steps is the vector steps the schedule fills: the end of its longest env.
func (s *EpisodeSchedule) Steps() int { return slices.Max(s.end) }
