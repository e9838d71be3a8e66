package vlmviam

import (
	"context"
	"errors"
	"math"
	"slices"
	"strconv"
	"sync"
	"time"

	"go.viam.com/rdk/logging"
	"go.viam.com/rdk/resource"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/rundir"
)

// RunnerModel is the policy runner's model name.
var RunnerModel = resource.NewModel(Namespace, ModuleName, "policy-runner")

// maxLatencies caps the tick latencies kept for the status percentiles.
const maxLatencies = 100000

// Runner is vlmrb:vlmrb:policy-runner: it runs a checkpoint's policy in
// closed loop against a Rig at a fixed rate. DoCommand:
//
//	{"start": {"episodes": N, "seed": S}}  start (both optional: the config's)
//	{"stop": true}                          stop; returns once no command is in flight
//	{"status": true}                        episode, step, last action, limit hits, latencies
//
// Reconfigure swaps checkpoint, components and limits without a restart:
// a new checkpoint takes over at the next tick, new components or limits
// at the next episode. A joint outside its limits stops the runner (stop
// reason "joint_limit"); other robot errors stop it too ("error").
type Runner struct {
	resource.Named
	logger logging.Logger

	mu      sync.Mutex
	cfg     RunnerConfig
	pol     *Policy
	rig     *Rig
	rigGen  int
	cancel  context.CancelFunc
	done    chan struct{}
	stat    RunnerStatus
	lat     []float64 // tick latencies (ms)
	closed  bool
	stopReq bool
	stopWhy string    // why the current run is being stopped ("" until asked)
	stopAt  time.Time // when the stop was asked for
	runID   int64     // increments at every start; sentinels name their run
	warn    rateLimiter
	// this run's start, step count and last step, for AchievedHz
	runStart, lastTick time.Time
	runSteps           int64
	ivlSum             float64 // summed step intervals within episodes (s)
	ivlN               int64
}

// RunnerStatus is what {"status": true} reports.
type RunnerStatus struct {
	Running      bool        `json:"running"`
	Checkpoint   string      `json:"checkpoint"`
	CheckpointAt int64       `json:"checkpoint_step"`
	Task         string      `json:"task"`
	Episode      int         `json:"episode"` // episodes started since start
	Step         int         `json:"step"`    // step within the episode
	TotalSteps   int64       `json:"total_steps"`
	Seed         uint64      `json:"seed"` // seed of the current episode
	LastAction   []float64   `json:"last_action"`
	LastTarget   [3]float64  `json:"last_target_mm"`
	Limits       LimitCounts `json:"limit_hits"`
	LastError    string      `json:"last_error,omitempty"`
	Reason       string      `json:"stop_reason,omitempty"`
	RecordDir    string      `json:"record_dir,omitempty"`
	// StopLatencyMS is the time from the last stop request (Stop,
	// DoCommand stop or StopAll) to the loop's exit, arm stopped.
	StopLatencyMS float64 `json:"stop_latency_ms"`
	// StoppedAtStep is TotalSteps when that stop was asked for; the
	// steps after it are TotalSteps − StoppedAtStep.
	StoppedAtStep int64 `json:"stopped_at_step"`
	// DepRetries counts episode starts retried while a dependency was
	// not (yet) reachable.
	DepRetries int `json:"dep_retries"`
	// StopAllWatched is true once a StopAll sentinel of the current run
	// has reached the runner through viam-server (stopwatch.go): from
	// then on the machine-wide stop halts this run. False while the
	// sentinel is still being set up, outside viam-server, and between runs.
	StopAllWatched bool    `json:"stop_all_watched"`
	MedianTickMS   float64 `json:"tick_ms_median"`
	P99TickMS      float64 `json:"tick_ms_p99"`
	Reloads        int     `json:"reloads"`
	// TrainedEngine is the physics the checkpoint was trained on
	// (Policy.TrainedEngine: "sim", the removed old engine, or
	// "articulated").
	TrainedEngine string `json:"trained_engine"`
	// Transfer is rundir.TransferNote when an old-engine checkpoint
	// drives vlmrb's simulated world (engine articulated); else empty.
	Transfer string `json:"transfer,omitempty"`
	// ControlPath is how targets reach the arm: "joints" or "pose".
	ControlPath string `json:"control_path"`
	// AchievedHz is this run's control steps per second, from its start
	// to its last step (episode starts included).
	AchievedHz float64 `json:"achieved_hz"`
	// TickHz is the rate within episodes: 1 / the mean interval between
	// consecutive steps of an episode.
	TickHz float64 `json:"tick_hz"`
	// Outcomes lists this runner's last episodes (at most 1000), oldest
	// first: how each ended and, where the robot side can tell, whether
	// it succeeded.
	Outcomes []EpisodeOutcome `json:"outcomes"`
	// PosesTransformed counts pose-tracker poses this run put into the
	// arm's base frame through the robot's frame system.
	PosesTransformed int `json:"poses_transformed"`
}

// maxOutcomes caps RunnerStatus.Outcomes.
const maxOutcomes = 1000

// EpisodeOutcome is one episode's end. Success is set for episodes that
// ran to max_steps on a robot side that can score them (a vlmrb sim arm:
// the sim's success at the last step; an arm-reach checkpoint: the end
// effector within 5 cm of the goal at the last step, by the task model's
// forward kinematics of the joints the arm reports) — what in-process
// eval scores.
type EpisodeOutcome struct {
	Episode    int      `json:"episode"`
	Seed       uint64   `json:"seed,string"`
	Steps      int      `json:"steps"`
	End        string   `json:"end"`
	Success    *bool    `json:"success,omitempty"`
	DistanceMM *float64 `json:"final_distance_mm,omitempty"`
}

// NewRunner builds a runner; it starts episodes only when told to (or
// when auto_start is set).
func NewRunner(ctx context.Context, deps resource.Dependencies, conf resource.Config, logger logging.Logger) (resource.Resource, error) {
	r := &Runner{Named: conf.ResourceName().AsNamed(), logger: logger}
	if err := r.Reconfigure(ctx, deps, conf); err != nil {
		return nil, err
	}
	return r, nil
}

// Reconfigure loads the new checkpoint (when it changed) and rebuilds the
// rig; the running loop picks both up without stopping.
func (r *Runner) Reconfigure(ctx context.Context, deps resource.Dependencies, conf resource.Config) error {
	c, err := resource.NativeConfig[*RunnerConfig](conf)
	if err != nil {
		return err
	}
	if _, _, err := c.Validate(""); err != nil {
		return err
	}
	rig, err := NewRig(ctx, deps, c.RigConfig)
	if err != nil {
		return err
	}
	rig.frames = parentFrames // pose-tracker poses through viam-server's frame system
	r.mu.Lock()
	old := r.pol
	sameCkpt := old != nil && r.cfg.Checkpoint == c.Checkpoint
	r.mu.Unlock()
	var pol *Policy
	if !sameCkpt {
		if pol, err = LoadPolicy(c.Checkpoint); err != nil {
			return err
		}
	}
	// the engine rule, on a new checkpoint and on a new sim_reset/engine
	check := pol
	if check == nil {
		check = old
	}
	note, err := check.CheckEngine(c.SimReset, c.Engine, `"engine": "articulated" (with "sim_reset": true)`)
	if err != nil {
		if pol != nil {
			pol.Close()
		}
		return err
	}
	r.mu.Lock()
	first := r.rig == nil
	r.cfg = *c
	r.stat.TrainedEngine, r.stat.Transfer = check.TrainedEngine(), ""
	if note == rundir.TransferNote {
		r.stat.Transfer = note
	}
	rigChanged := false
	if r.rig == nil || !r.rig.same(rig) {
		r.rig = rig
		r.rigGen++
		rigChanged = !first
	}
	if pol != nil {
		r.pol = pol
		if old != nil {
			r.stat.Reloads++
		}
	}
	running := r.cancel != nil
	r.mu.Unlock()
	if pol != nil && old != nil {
		old.Close() // a loop still holding it gets ErrPolicyClosed and re-reads
	}
	if note != "" {
		r.logger.Warnw("policy-runner: "+note, "checkpoint", c.Checkpoint, "trained_engine", check.TrainedEngine(), "sim_reset", c.SimReset)
	}
	switch {
	case first:
		r.logger.Infow("policy-runner configured", "checkpoint", c.Checkpoint, "arm", c.Arm, "rate_hz", c.RateHz, "auto_start", c.AutoStart, "missing_optional", rig.Missing())
	default:
		r.logger.Infow("policy-runner reconfigured", "checkpoint_reloaded", pol != nil, "components_changed", rigChanged, "running", running, "missing_optional", rig.Missing())
	}
	if c.AutoStart && !running {
		return r.start(c.Episodes, c.Seed)
	}
	return nil
}

// DoCommand handles start, stop and status.
func (r *Runner) DoCommand(ctx context.Context, cmd map[string]any) (map[string]any, error) {
	if v, ok := cmd["stop_watch"]; ok && len(cmd) == 1 {
		return r.stopWatchCommand(ctx, v)
	}
	out := map[string]any{}
	for _, k := range []string{"stop", "start", "status"} {
		v, ok := cmd[k]
		if !ok {
			continue
		}
		switch k {
		case "start":
			r.mu.Lock()
			eps, seed := r.cfg.Episodes, r.cfg.Seed
			r.mu.Unlock()
			if m, ok := v.(map[string]any); ok {
				var err error
				if eps, err = intArg(m, "episodes", eps); err != nil {
					return nil, err
				}
				var s int
				if s, err = intArg(m, "seed", int(seed)); err != nil {
					return nil, err
				}
				seed = uint64(s)
			}
			if err := r.start(eps, seed); err != nil {
				return nil, err
			}
			out["started"] = true
		case "stop":
			out["stopped"] = r.stop(ctx, "stopped")
		case "status":
		}
	}
	for k := range cmd {
		if k != "start" && k != "stop" && k != "status" {
			return nil, invalidArg("policy-runner: unknown command %q; use start, stop or status", k)
		}
	}
	st := r.State()
	out["status"] = statusMap(st)
	return out, nil
}

func intArg(m map[string]any, key string, def int) (int, error) {
	v, ok := m[key]
	if !ok {
		return def, nil
	}
	f, ok := v.(float64)
	if !ok || f < 0 || f != float64(int64(f)) {
		return 0, invalidArg("policy-runner: %q is %v; use a non-negative integer", key, v)
	}
	return int(f), nil
}

// Status is rdk's resource status (v0.75+: machine status, GetStatus):
// the same map as DoCommand {"status": true}.
func (r *Runner) Status(context.Context) (map[string]any, error) {
	return statusMap(r.State()), nil
}

// State returns a snapshot of the runner's state.
func (r *Runner) State() RunnerStatus {
	r.mu.Lock()
	defer r.mu.Unlock()
	st := r.stat
	st.LastAction = slices.Clone(st.LastAction)
	st.Outcomes = slices.Clone(st.Outcomes)
	if r.pol != nil {
		st.Checkpoint, st.CheckpointAt, st.Task = r.pol.Dir, r.pol.Step(), r.pol.Task()
	}
	st.MedianTickMS, st.P99TickMS = percentile(r.lat, 0.5), percentile(r.lat, 0.99)
	if d := r.lastTick.Sub(r.runStart).Seconds(); r.runSteps > 0 && d > 0 {
		st.AchievedHz = float64(r.runSteps) / d
	}
	if r.ivlN > 0 && r.ivlSum > 0 {
		st.TickHz = float64(r.ivlN) / r.ivlSum
	}
	return st
}

func statusMap(st RunnerStatus) map[string]any {
	act := make([]any, len(st.LastAction))
	for i, a := range st.LastAction {
		act[i] = a
	}
	return map[string]any{
		"running": st.Running, "checkpoint": st.Checkpoint, "checkpoint_step": float64(st.CheckpointAt), "task": st.Task,
		"episode": float64(st.Episode), "step": float64(st.Step), "total_steps": float64(st.TotalSteps), "seed": strconv.FormatUint(st.Seed, 10),
		"last_action": act, "last_target_mm": []any{st.LastTarget[0], st.LastTarget[1], st.LastTarget[2]},
		"limit_hits": map[string]any{"workspace": float64(st.Limits.Workspace), "step": float64(st.Limits.Step),
			"joint": float64(st.Limits.Joint), "non_finite": float64(st.Limits.NonFinite), "ik_fallback": float64(st.Limits.IKFallback)},
		"last_error": st.LastError, "stop_reason": st.Reason, "record_dir": st.RecordDir,
		"tick_ms_median": st.MedianTickMS, "tick_ms_p99": st.P99TickMS, "reloads": float64(st.Reloads),
		"control_path": st.ControlPath, "achieved_hz": st.AchievedHz, "tick_hz": st.TickHz, "stop_latency_ms": st.StopLatencyMS, "stopped_at_step": float64(st.StoppedAtStep), "dep_retries": float64(st.DepRetries),
		"stop_all_watched": st.StopAllWatched, "outcomes": outcomesAny(st.Outcomes), "poses_transformed": float64(st.PosesTransformed),
		"trained_engine": st.TrainedEngine, "transfer": st.Transfer,
	}
}

func outcomesAny(os []EpisodeOutcome) []any {
	out := make([]any, len(os))
	for i, o := range os {
		m := map[string]any{"episode": float64(o.Episode), "seed": strconv.FormatUint(o.Seed, 10), "steps": float64(o.Steps), "end": o.End}
		if o.Success != nil {
			m["success"] = *o.Success
		}
		if o.DistanceMM != nil {
			m["final_distance_mm"] = *o.DistanceMM
		}
		out[i] = m
	}
	return out
}

// percentile of xs (nearest rank); 0 for none.
func percentile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	i := min(int(q*float64(len(s))), len(s)-1)
	return s[i]
}

func (r *Runner) start(episodes int, seed uint64) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return failedPrecondition("policy-runner: closed")
	}
	if r.cancel != nil {
		return failedPrecondition("policy-runner: already running; send {\"stop\": true} first")
	}
	if r.cfg.RecordDir != "" {
		if _, err := nextEpisodeNumber(r.cfg.RecordDir); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	r.runID++
	r.cancel, r.done, r.stopReq, r.stopWhy = cancel, make(chan struct{}), false, ""
	r.stat.Running, r.stat.Episode, r.stat.Step, r.stat.LastError, r.stat.Reason = true, 0, 0, "", ""
	r.stat.StopAllWatched = false
	r.stat.Outcomes, r.stat.PosesTransformed = nil, 0
	r.lat = r.lat[:0]
	r.runStart, r.runSteps, r.ivlSum, r.ivlN = time.Now(), 0, 0, 0
	r.logger.Infow("policy-runner started", "episodes", episodes, "seed", seed, "rate_hz", r.cfg.RateHz, "run", r.runID)
	go r.loop(ctx, r.done, episodes, seed)
	go r.watchStopAll(ctx, r.runID)
	return nil
}

// stop asks the loop to halt before its next command, cancels any command
// in flight, waits for the loop to exit and stops the arm. It reports
// whether a loop was running.
func (r *Runner) stop(ctx context.Context, why string) bool {
	r.mu.Lock()
	cancel, done := r.cancel, r.done
	r.stopReq = true
	if cancel != nil && r.stopWhy == "" {
		r.stopWhy, r.stopAt = why, time.Now()
		r.stat.StoppedAtStep = r.stat.TotalSteps
	}
	r.mu.Unlock()
	if cancel == nil {
		return false
	}
	cancel()
	select {
	case <-done:
	case <-ctx.Done():
	}
	return true
}

// stopFor stops run (if it is still the current one) for why, without
// waiting for the loop: it is called from a sentinel's handler.
func (r *Runner) stopFor(run int64, why string) {
	r.mu.Lock()
	cur := r.runID == run && r.cancel != nil
	r.mu.Unlock()
	if cur {
		go r.stop(context.Background(), why)
	}
}

// Stop is resource.Actuator's Stop: it halts the loop before its next
// command, cancels the command in flight, stops the arm and returns once
// the loop has exited (or ctx ends).
func (r *Runner) Stop(ctx context.Context, _ map[string]any) error {
	r.stop(ctx, "stopped")
	return nil
}

// IsMoving is resource.Actuator's IsMoving: true while the loop runs.
func (r *Runner) IsMoving(context.Context) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cancel != nil, nil
}

// snap is what one control step reads under the lock.
type snap struct {
	pol  *Policy
	rig  *Rig
	gen  int // rig generation: a change ends the episode
	cfg  RunnerConfig
	stop bool // a stop was asked for
}

func (r *Runner) snapshot() snap {
	r.mu.Lock()
	defer r.mu.Unlock()
	return snap{pol: r.pol, rig: r.rig, gen: r.rigGen, cfg: r.cfg, stop: r.stopReq}
}

func (r *Runner) setErr(reason string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.stat.LastError = err.Error()
	}
	if reason != "" {
		r.stat.Reason = reason
	}
}

func (r *Runner) loop(ctx context.Context, done chan struct{}, episodes int, seed uint64) {
	defer func() {
		r.mu.Lock()
		rig := r.rig
		r.mu.Unlock()
		var stopErr error
		if rig != nil {
			// stop the arm; a fresh context, the loop's is cancelled
			sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			stopErr = rig.Arm().Stop(sctx, nil)
			cancel()
		}
		r.mu.Lock()
		runCancel := r.cancel
		r.cancel, r.done = nil, nil
		r.stat.Running, r.stat.StopAllWatched = false, false
		if r.stopWhy != "" {
			r.stat.Reason = r.stopWhy
			r.stat.StopLatencyMS = float64(time.Since(r.stopAt).Microseconds()) / 1000
		}
		st := r.stat
		r.mu.Unlock()
		close(done)
		// a run that ended by itself ends its StopAll watch too
		runCancel()
		r.logger.Infow("policy-runner stopped", "reason", st.Reason, "episodes", st.Episode, "total_steps", st.TotalSteps,
			"stop_latency_ms", st.StopLatencyMS, "limit_hits", st.Limits, "last_error", st.LastError, "arm_stop_err", stopErr)
	}()
	for k := 0; episodes == 0 || k < episodes; k++ {
		if ctx.Err() != nil {
			r.setErr("stopped", nil)
			return
		}
		if err := r.episode(ctx, k, control.EpisodeSeed(seed, 0, k)); err != nil {
			if ctx.Err() != nil {
				r.setErr("stopped", nil)
				return
			}
			if isStopAllCancel(err) {
				// viam-server cancelled our arm call: StopAll
				r.mu.Lock()
				if r.stopWhy == "" {
					r.stopWhy, r.stopAt, r.stat.StoppedAtStep = "stop_all", time.Now(), r.stat.TotalSteps
				}
				r.mu.Unlock()
				return
			}
			r.logger.Warnw("episode ended on an error", "episode", k, "err", err)
			switch {
			case errors.Is(err, errReconfigured):
				r.setErr("", err) // the next episode runs on the new rig
			case errors.Is(err, ErrJointLimit):
				r.setErr("joint_limit", err) // a person has to look at the arm
				return
			default:
				r.setErr("error", err)
				return
			}
		}
	}
	r.setErr("episodes done", nil)
}

var errReconfigured = errors.New("policy-runner: components or limits were reconfigured; the episode ends")

// episodeRun is one episode in progress: what it drives, its pacing and
// where it stands. The loop owns it.
type episodeRun struct {
	k        int
	seed     uint64
	pol      *Policy
	rig      *Rig
	drv      driver
	gen      int
	cfg      RunnerConfig
	rec      *EpisodeRecorder
	maxSteps int
	period   time.Duration
	next     time.Time // the current tick's slot
	obs      []float64 // what the policy acts on next
	prevObs  []float64 // what it acted on this tick (recorded)
	action   []float64
	steps    int
	reason   string // how it ended
	// transformed is the rig's Transformed already counted in the status
	transformed int
}

// episode runs one episode: begin, then ticks of pace → observe → act →
// record until max_steps, a stop, a reconfigure or an error.
func (r *Runner) episode(ctx context.Context, k int, seed uint64) error {
	ep, err := r.beginEpisode(ctx, k, seed)
	if err != nil {
		return err
	}
	defer r.endEpisode(ep)
	for t := 0; t < ep.maxSteps; t++ {
		ep.pace(ctx)
		if err := r.observe(ctx, ep); err != nil {
			return err
		}
		t0 := time.Now()
		target, err := r.act(ctx, ep)
		if err != nil {
			return err
		}
		if err := r.record(ep, t, t0, target); err != nil {
			return err
		}
	}
	return nil
}

// driverFor picks the episode's robot side for the checkpoint: its
// arm-reach joints, or the tabletop tasks' end-effector deltas.
func (r *Runner) driverFor(sn snap) (driver, error) {
	if sn.pol.Config.IsArmTask() {
		return newArmTaskDriver(sn.rig, sn.cfg, sn.pol)
	}
	return &rigDriver{rig: sn.rig, cfg: sn.cfg}, nil
}

// beginEpisode starts the episode on the robot (retrying while the
// components are not reachable yet) and opens its recording.
func (r *Runner) beginEpisode(ctx context.Context, k int, seed uint64) (*episodeRun, error) {
	sn := r.snapshot()
	drv, err := r.driverFor(sn)
	if err != nil {
		return nil, err
	}
	ep := &episodeRun{k: k, seed: seed, pol: sn.pol, rig: sn.rig, drv: drv, gen: sn.gen, cfg: sn.cfg,
		maxSteps: sn.cfg.MaxSteps, reason: "max_steps", action: make([]float64, drv.actDim())}
	ep.transformed = sn.rig.Transformed()
	// the components may not be reachable yet (a module restarted by
	// viam-server re-adds them one by one): retry with backoff
	err = r.awaitDeps(ctx, func() error {
		// an optional dependency that appears while we wait makes
		// viam-server reconfigure the runner: start on the new rig
		if sn2 := r.snapshot(); sn2.gen != ep.gen && sn2.pol == ep.pol {
			d, err := r.driverFor(sn2)
			if err != nil {
				return err
			}
			drv, ep.drv, ep.rig, ep.gen, ep.cfg = d, d, sn2.rig, sn2.gen, sn2.cfg
			ep.maxSteps, ep.transformed = sn2.cfg.MaxSteps, sn2.rig.Transformed()
		}
		var err error
		ep.obs, err = drv.begin(ctx, seed)
		return err
	})
	if err != nil {
		return nil, err
	}
	if ep.maxSteps == 0 {
		ep.maxSteps = ep.pol.EpisodeLen()
	}
	if ep.cfg.RecordDir != "" {
		// numbered on from what the folder holds now: a restart, or a
		// record_dir changed by a reconfigure, never overwrites a recording
		n, err := nextEpisodeNumber(ep.cfg.RecordDir)
		if err != nil {
			return nil, err
		}
		if ep.rec, err = NewEpisodeRecorder(ep.cfg.RecordDir, n); err != nil {
			return nil, err
		}
	}
	rig := ep.rig
	r.mu.Lock()
	r.stat.Episode, r.stat.Step, r.stat.Seed, r.stat.RecordDir = k+1, 0, seed, ep.cfg.RecordDir
	pathChanged := r.stat.ControlPath != rig.ControlPath()
	r.stat.ControlPath = rig.ControlPath()
	r.mu.Unlock()
	if pathChanged {
		if rig.ControlPath() == "pose" && rig.Model() != nil && len(rig.Model().DoF()) >= 4 {
			r.logger.Warnw("policy-runner: control path pose: MoveToPosition every tick, which most arms answer with a motion plan; use \"control\": \"joints\"", "arm", ep.cfg.Arm)
		} else {
			r.logger.Infow("policy-runner: control path", "path", rig.ControlPath(), "arm", ep.cfg.Arm)
		}
	}
	if ep.cfg.RateHz > 0 {
		ep.period = time.Duration(float64(time.Second) / ep.cfg.RateHz)
	}
	ep.next = time.Now()
	return ep, nil
}

// endEpisode closes the recording and keeps the episode's outcome.
func (r *Runner) endEpisode(ep *episodeRun) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	o := EpisodeOutcome{Episode: ep.k, Seed: ep.seed, Steps: ep.steps, End: ep.reason}
	if s, d, ok := ep.drv.outcome(ctx); ok && ep.reason == "max_steps" {
		o.Success = &s
		if !math.IsNaN(d) {
			o.DistanceMM = &d
		}
	}
	r.mu.Lock()
	if len(r.stat.Outcomes) >= maxOutcomes {
		r.stat.Outcomes = r.stat.Outcomes[1:]
	}
	r.stat.Outcomes = append(r.stat.Outcomes, o)
	r.mu.Unlock()
	if ep.rec != nil {
		_ = ep.rec.Finish(map[string]any{"episode": ep.k, "seed": ep.seed, "steps": ep.steps, "end": ep.reason,
			"checkpoint": ep.pol.Dir, "task": ep.pol.Task(), "limit_hits": ep.rig.Counts(), "success": o.Success})
	}
}

// pace waits for the tick's slot (rate_hz). A tick late by less than a
// period is made up by the next one; one more than a period behind starts
// a new schedule rather than a burst of catch-up ticks.
func (ep *episodeRun) pace(ctx context.Context) {
	if ep.period <= 0 {
		return
	}
	ep.next = ep.next.Add(ep.period)
	if d := time.Until(ep.next); d > 0 {
		select {
		case <-ctx.Done():
		case <-time.After(d):
		}
	} else if -d > ep.period {
		ep.next = time.Now()
	}
}

// observe readies the tick: it honours a stop or a reconfigure, takes a
// new checkpoint (from this tick; new components from the next episode),
// and records the camera frame. The observation the policy acts on is
// ep.obs: the episode's start, then what the previous tick's command led to.
func (r *Runner) observe(ctx context.Context, ep *episodeRun) error {
	sn := r.snapshot()
	if sn.stop || ctx.Err() != nil {
		ep.reason = "stopped"
		return ctx.Err()
	}
	if sn.gen != ep.gen || !sameTask(sn.pol, ep.pol) {
		ep.reason = "reconfigured"
		return errReconfigured
	}
	ep.pol = sn.pol
	if ep.rec != nil && ep.rig.Camera() != nil {
		if err := ep.rec.Frame(ctx, ep.rig.Camera()); err != nil {
			return err
		}
	}
	return nil
}

// sameTask says whether a checkpoint swapped in mid-episode speaks the
// episode's observation and action layout.
func sameTask(a, b *Policy) bool {
	return a == b || (a.Task() == b.Task() && a.Config.Arm == b.Config.Arm)
}

// act is the tick proper: the policy's action, the command behind the
// limits, and the observation the command led to (ep.obs for the next
// tick). It returns the commanded target.
func (r *Runner) act(ctx context.Context, ep *episodeRun) ([3]float64, error) {
	if err := ep.pol.Act(ep.obs, ep.action); err != nil {
		// replaced between the snapshot and now: take the new one
		sn := r.snapshot()
		if !sameTask(sn.pol, ep.pol) {
			ep.reason = "reconfigured"
			return ep.rig.target, errReconfigured
		}
		ep.pol = sn.pol
		if err := ep.pol.Act(ep.obs, ep.action); err != nil {
			return ep.rig.target, err
		}
	}
	target, err := ep.drv.act(ctx, ep.action)
	rig := ep.rig
	counts := rig.Counts() // the loop owns the rig; status reads this copy
	r.mu.Lock()
	prev := r.stat.Limits
	r.stat.Limits = counts
	r.mu.Unlock()
	if counts.IKFallback > prev.IKFallback {
		r.warn.Warnw(r.logger, "ik", "policy-runner: IK found no joint solution for the target; sent MoveToPosition (a motion plan) instead",
			"target_mm", rig.Target(), "ik_fallbacks", counts.IKFallback)
	}
	if d := counts.Total() - prev.Total(); d > 0 && counts.IKFallback == prev.IKFallback {
		r.warn.Warnw(r.logger, "limits", "policy-runner: a safety limit acted", "limit_hits", counts)
	}
	if err != nil {
		ep.reason = "error"
		return target, err
	}
	ep.prevObs = ep.obs
	if ep.obs, err = ep.drv.observe(ctx); err != nil {
		ep.reason = "error"
		return target, err
	}
	return target, nil
}

// record writes the tick to the recording and the status: step counts,
// rate, last action and target, and the tick's latency (from the
// policy's action to the observation read back).
func (r *Runner) record(ep *episodeRun, t int, t0 time.Time, target [3]float64) error {
	ms := float64(time.Since(t0).Microseconds()) / 1000
	if ep.rec != nil {
		if err := ep.rec.Step(StepRecord{T: t, Obs: ep.prevObs, Action: slices.Clone(ep.action), TargetMM: target, LatencyMS: ms}); err != nil {
			return err
		}
	}
	ep.steps++
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stat.Step, r.stat.TotalSteps = t+1, r.stat.TotalSteps+1
	r.runSteps++
	now := time.Now()
	if t > 0 {
		r.ivlSum += now.Sub(r.lastTick).Seconds()
		r.ivlN++
	}
	r.lastTick = now
	r.stat.LastAction = append(r.stat.LastAction[:0], ep.action...)
	r.stat.LastTarget = target
	n := ep.rig.Transformed() // the rig's poses this tick (and, first, the episode start's)
	r.stat.PosesTransformed += n - ep.transformed
	ep.transformed = n
	if len(r.lat) < maxLatencies {
		r.lat = append(r.lat, ms)
	}
	return nil
}

// Close stops the loop and releases the policy.
func (r *Runner) Close(ctx context.Context) error {
	r.stop(ctx, "closed")
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	if r.pol != nil {
		r.pol.Close()
		r.pol = nil
	}
	return nil
}
