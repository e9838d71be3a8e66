package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"math"
	"strings"
	"sync"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/render"
	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/tasks"
)

// infoKeys are the per-step diagnostics every task reports (tasks.Env
// info), in the order the C ABI writes them; a key a step does not report
// is written as NaN.
var infoKeys = []string{
	"success", "near_object", "grasp_success", "grasp_reward", "in_place_reward",
	"obj_to_target", "unscaled_reward", "progress", "stage", "sim_unstable",
	"safety_interventions",
}

// envOptions are the keyword options of vlmrb.make, sent as JSON.
type envOptions struct {
	Reward             string  `json:"reward"`
	Engine             string  `json:"engine"` // tasks.Options.Engine: articulated ("" too; sim, removed, is refused)
	MaxSteps           int     `json:"max_episode_steps"`
	HideGoal           bool    `json:"hide_goal"`
	TerminateOnSuccess bool    `json:"terminate_on_success"`
	FreezeLayout       bool    `json:"freeze_layout"`
	LayoutSeed         *uint64 `json:"layout_seed"`
	// frames: the scorer's camera (rundir.NewSimCamera)
	RenderBackend string `json:"render_backend"`
	Camera        string `json:"camera"`
	Theme         string `json:"theme"`
	Width         int    `json:"width"`
	Height        int    `json:"height"`
}

// parseOptions reads task's keyword options; engine sim (removed), an
// unknown engine, or an engine on a task with its own engine is refused
// in train's words (rundir.CheckEngine).
func parseOptions(task, js string) (envOptions, tasks.Options, error) {
	o := envOptions{RenderBackend: "auto", Camera: render.TaskCamera, Width: 128, Height: 128}
	if strings.TrimSpace(js) != "" {
		d := json.NewDecoder(bytes.NewReader([]byte(js)))
		d.DisallowUnknownFields()
		if err := d.Decode(&o); err != nil {
			return o, tasks.Options{}, badf("vlmrb: bad env options: %v (known: reward, engine, max_episode_steps, hide_goal, terminate_on_success, freeze_layout, layout_seed, render_backend, camera, theme, width, height)", err)
		}
	}
	rm, err := tasks.ParseRewardMode(o.Reward)
	if err != nil {
		return o, tasks.Options{}, bad(err)
	}
	if err := rundir.CheckEngine(tasks.Canonical(task), o.Engine); err != nil {
		return o, tasks.Options{}, badf("vlmrb: %v", err)
	}
	if o.MaxSteps < 0 {
		return o, tasks.Options{}, badf("vlmrb: max_episode_steps %d is negative; pass a positive limit or omit it for %d", o.MaxSteps, tasks.DefaultMaxSteps)
	}
	if o.Width <= 0 || o.Height <= 0 {
		return o, tasks.Options{}, badf("vlmrb: render size %dx%d must be positive", o.Width, o.Height)
	}
	to := tasks.Options{Reward: rm, Engine: o.Engine, MaxSteps: o.MaxSteps, HideGoal: o.HideGoal,
		TerminateOnSuccess: o.TerminateOnSuccess, FreezeLayout: o.FreezeLayout}
	if o.LayoutSeed != nil {
		to.LayoutSeed = *o.LayoutSeed
	}
	return o, to, nil
}

// envSpec is what Python needs to build the spaces, metadata and spec.
type envSpec struct {
	Task            string    `json:"task"`
	Description     string    `json:"description"`
	ObsDim          int       `json:"obs_dim"`
	ActDim          int       `json:"act_dim"`
	ActLow          []float64 `json:"act_low"`
	ActHigh         []float64 `json:"act_high"`
	MaxEpisodeSteps int       `json:"max_episode_steps"`
	ControlDt       float64   `json:"control_dt"`
	RenderFPS       float64   `json:"render_fps"`
	RewardLow       float64   `json:"reward_low"`
	RewardHigh      float64   `json:"reward_high"`
	InfoKeys        []string  `json:"info_keys"`
	NumEnvs         int       `json:"num_envs"`
}

func specOf(e *tasks.Env, n int) envSpec {
	s := e.Spec()
	return envSpec{Task: e.Name(), Description: e.Description(), ObsDim: s.ObsDim, ActDim: s.ActDim,
		ActLow: s.ActLow, ActHigh: s.ActHigh, MaxEpisodeSteps: s.MaxEpisodeSteps, ControlDt: s.ControlDt,
		RenderFPS: math.Round(1 / s.ControlDt), RewardLow: s.RewardLow, RewardHigh: s.RewardHigh,
		InfoKeys: infoKeys, NumEnvs: n}
}

// env is one task environment with its lazily opened scorer camera.
type env struct {
	mu   sync.Mutex
	e    *tasks.Env
	opts envOptions
	cam  *render.SimCamera
	img  *image.RGBA
}

func newEnv(task, optsJSON string) (*env, error) {
	o, to, err := parseOptions(task, optsJSON)
	if err != nil {
		return nil, err
	}
	e, err := tasks.Make(task, to)
	if err != nil {
		return nil, bad(err)
	}
	return &env{e: e, opts: o}, nil
}

func writeInfo(dst []float64, info control.Info) {
	for k, key := range infoKeys {
		v, ok := info.Values[key]
		if !ok {
			v = math.NaN()
		}
		dst[k] = v
	}
}

func (v *env) reset(seed uint64, obs, info []float64) {
	o, in := v.e.Reset(seed)
	copy(obs, o)
	writeInfo(info, in)
}

// step checks the action's shape (the Env would panic on a wrong length)
// and steps; NaN/Inf actions and steps after the episode ended come back
// as the Env's errors.
func (v *env) step(act, obs []float64, reward *float64, term, trunc *bool, info []float64) error {
	if n := v.e.Spec().ActDim; len(act) != n {
		return badf("vlmrb: action has %d values, want %d (action_space.shape = (%d,))", len(act), n, n)
	}
	o, r, te, tr, in, err := v.e.Step(act)
	if err != nil {
		if errors.Is(err, control.ErrNeedsReset) {
			return fmt.Errorf("vlmrb: %w (Gymnasium: call reset() after terminated or truncated)", err)
		}
		return err
	}
	copy(obs, o)
	*reward, *term, *trunc = r, te, tr
	writeInfo(info, in)
	return nil
}

// render draws the current state at w×h (0 → the env's width/height) with
// the scorer's camera and writes H×W×3 RGB bytes into dst.
func (v *env) render(w, h int, dst []byte) error {
	if w <= 0 {
		w = v.opts.Width
	}
	if h <= 0 {
		h = v.opts.Height
	}
	if len(dst) != w*h*3 {
		return badf("vlmrb: render buffer has %d bytes, want %d×%d×3 = %d", len(dst), h, w, w*h*3)
	}
	if v.cam != nil {
		if cw, ch := v.cam.Size(); cw != w || ch != h {
			_ = v.cam.Close() // reopened below at the new size
			v.cam = nil
		}
	}
	if v.cam == nil {
		c, err := render.OpenTaskCamera(v.opts.RenderBackend, v.opts.Camera, v.opts.Theme, w, h, render.FilmedOf(v.e.Name(), v.e.Model(), v.e.Data(), v.e.Meta().Views), render.DefaultCameraOptions())
		if err != nil {
			return err
		}
		v.cam, v.img = c, image.NewRGBA(image.Rect(0, 0, w, h))
	}
	if err := v.cam.RenderState(v.e.Model(), v.e.Data(), v.img); err != nil {
		return err
	}
	rgbaToRGB(dst, v.img)
	return nil
}

func rgbaToRGB(dst []byte, img *image.RGBA) {
	b := img.Bounds()
	w := b.Dx()
	for y := 0; y < b.Dy(); y++ {
		row := img.Pix[y*img.Stride : y*img.Stride+4*w]
		out := dst[y*w*3 : (y+1)*w*3]
		for x := 0; x < w; x++ {
			out[3*x], out[3*x+1], out[3*x+2] = row[4*x], row[4*x+1], row[4*x+2]
		}
	}
}

func (v *env) close() error {
	var err error
	if v.cam != nil {
		err = v.cam.Close()
		v.cam = nil
	}
	return errors.Join(err, v.e.Close())
}

func (v *env) lock() error {
	if !v.mu.TryLock() {
		return errors.New("vlmrb: env is in use by another thread; step it from one thread")
	}
	return nil
}

func checkLen(name string, got, want int) error {
	if got != want {
		return badf("vlmrb: %s has %d values, want %d", name, got, want)
	}
	return nil
}

// Reset is reset for the C ABI: buffer lengths checked, one caller at a time.
func (v *env) Reset(seed uint64, obs, info []float64) error {
	if err := v.lock(); err != nil {
		return err
	}
	defer v.mu.Unlock()
	if err := errors.Join(checkLen("obs buffer", len(obs), v.e.Spec().ObsDim), checkLen("info buffer", len(info), len(infoKeys))); err != nil {
		return err
	}
	v.reset(seed, obs, info)
	return nil
}

// Step is step for the C ABI.
func (v *env) Step(act, obs []float64, r *float64, te, tr *bool, info []float64) error {
	if err := v.lock(); err != nil {
		return err
	}
	defer v.mu.Unlock()
	if err := errors.Join(checkLen("obs buffer", len(obs), v.e.Spec().ObsDim), checkLen("info buffer", len(info), len(infoKeys))); err != nil {
		return err
	}
	return v.step(act, obs, r, te, tr, info)
}

// Render is render for the C ABI.
func (v *env) Render(w, h int, dst []byte) error {
	if err := v.lock(); err != nil {
		return err
	}
	defer v.mu.Unlock()
	return v.render(w, h, dst)
}

// goRollout is the Go-side reference rollout: tasks.Make and Env.Step
// directly, with no handle, no cgo buffers and no Python. obs gets
// (steps+1)×ObsDim values (the reset observation first), rew steps values;
// a rollout stops being written at the first terminated/truncated step.
func goRollout(task, optsJSON string, seed uint64, steps int, act, obs, rew []float64) error {
	_, to, err := parseOptions(task, optsJSON)
	if err != nil {
		return err
	}
	e, err := tasks.Make(task, to)
	if err != nil {
		return err
	}
	s := e.Spec()
	if err := errors.Join(checkLen("actions", len(act), steps*s.ActDim), checkLen("obs buffer", len(obs), (steps+1)*s.ObsDim), checkLen("rewards buffer", len(rew), steps)); err != nil {
		return err
	}
	o, _ := e.Reset(seed)
	copy(obs, o)
	for t := range steps {
		o, r, te, tr, _, err := e.Step(act[t*s.ActDim : (t+1)*s.ActDim])
		if err != nil {
			return fmt.Errorf("step %d: %w", t, err)
		}
		copy(obs[(t+1)*s.ObsDim:], o)
		rew[t] = r
		if te || tr {
			break
		}
	}
	return nil
}

// libInfo describes the library: its tasks, render backends, infos.
func libInfo() map[string]any {
	return map[string]any{"abi": 1, "tasks": tasks.Names(), "render_backends": render.Backends(), "info_keys": infoKeys}
}

// closeHandle closes any handle; closing one twice is not an error.
func closeHandle(h int64) error {
	v, ok := dropHandle(h)
	if !ok {
		return nil
	}
	if c, ok := v.(interface{ Close() error }); ok {
		return c.Close()
	}
	return nil
}

// Close closes the env; it waits for a call in progress.
func (v *env) Close() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.close()
}

// goEnvSteps steps one tasks.Env in Go for steps steps after Reset(seed),
// resetting it (next episode seed seed+k) when an episode ends: the Go
// baseline of the single-env overhead benchmark. actions holds
// steps×ActDim values.
func goEnvSteps(task string, steps int, seed uint64, optsJSON string, actions []float64) error {
	_, to, err := parseOptions(task, optsJSON)
	if err != nil {
		return err
	}
	e, err := tasks.Make(task, to)
	if err != nil {
		return bad(err)
	}
	ad := e.Spec().ActDim
	if err := checkLen("actions", len(actions), steps*ad); err != nil {
		return err
	}
	e.Reset(seed)
	k := uint64(0)
	for t := range steps {
		_, _, te, tr, _, err := e.Step(actions[t*ad : (t+1)*ad])
		if err != nil {
			return err
		}
		if te || tr {
			k++
			e.Reset(seed + k)
		}
	}
	return nil
}
