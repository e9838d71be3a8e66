package tasks

import (
	"math/rand/v2"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/sim"
)

// RewardMode selects the reward an Env returns.
type RewardMode int

const (
	// Dense is the shaped MetaWorld v2-style reward in [0, 10].
	Dense RewardMode = iota
	// Sparse is reward = success ∈ {0, 1} per step (the RL-VLM-F convention).
	Sparse
)

// String returns "dense" or "sparse".
func (r RewardMode) String() string {
	if r == Sparse {
		return "sparse"
	}
	return "dense"
}

// ParseRewardMode parses "dense" or "sparse".
func ParseRewardMode(s string) (RewardMode, error) {
	switch s {
	case "dense", "":
		return Dense, nil
	case "sparse":
		return Sparse, nil
	}
	return Dense, &unknownError{what: "reward mode", name: s, known: []string{"dense", "sparse"}}
}

// DefaultMaxSteps is MetaWorld's max_path_length.
const DefaultMaxSteps = 500

// Options configure a task environment. The zero value is MetaWorld's
// goal-observable single-task setting with the dense reward.
type Options struct {
	Reward RewardMode
	// MaxSteps is the time limit in control steps (0 → DefaultMaxSteps).
	MaxSteps int
	// HideGoal zeroes the goal in the observation (MetaWorld's
	// partially_observable=True / ML benchmarks).
	HideGoal bool
	// TerminateOnSuccess ends the episode (terminated=true) on the first
	// successful step; by default episodes run to the time limit as in
	// MetaWorld training.
	TerminateOnSuccess bool
	// FreezeLayout makes every episode use the object and goal layout drawn
	// from LayoutSeed, ignoring the Reset seed (MetaWorld's
	// _freeze_rand_vec=True, as in its MT1/ML1 tasks). By default each
	// Reset(seed) draws a new layout (_freeze_rand_vec=False, as RL-VLM-F,
	// ERL-VLM and TD-MPC2 use).
	FreezeLayout bool
	LayoutSeed   uint64
	// Safety, when non-nil, filters every mocap target through a
	// control.Safety with these limits (speed cap, workspace box) — the same
	// filter a real robot driver would use. Interventions so far are
	// reported in info "safety_interventions".
	Safety *control.Limits
	// Engine is the physics engine: "" or EngineArticulated
	// (sim/articulated, MuJoCo's equations, on the scenes in MJCF,
	// tasks/scenes/*.xml), the only one. EngineSim, the old engine, was
	// removed: Make refuses it with ErrEngineRemoved.
	Engine string
}

// Colors are the RGB colours (0–255, before lighting) the scene draws the
// task's key parts with, matching the words of the task Description, for
// the pixel scorer: Object is the thing to move (the gripper itself for
// reach), Goal marks where it must go, Gripper is the fingers and palm.
type Colors struct {
	Object, Goal, Gripper [3]uint8
}

// Meta is a task's static description.
type Meta struct {
	Name        string // registry name, e.g. "pick-place"
	Description string // instruction text used in VLM prompts
	Family      string // prompt-template family: reach, push, pick_place, articulated, press, sweep
	Stages      []string
	Colors      Colors
	HandInit    sim.Vec3 // initial hand position (m)
	// Parts names the bodies that show the gripper, the object and the goal,
	// and Views the scorer camera(s) that keep them in frame (one view, or
	// two to tile side by side).
	Parts Parts
	Views []View
	// SuccessRadius is the distance threshold of the success test (m or, for
	// some articulated tasks, the documented coordinate).
	SuccessRadius float64
}

// eval is what a task computes every step from the state.
type eval struct {
	reward  float64 // dense reward in [0, 10]
	success bool
	// metrics are the MetaWorld info keys (near_object, grasp_success,
	// grasp_reward, in_place_reward, obj_to_target, unscaled_reward).
	nearObject, graspSuccess, graspReward, inPlace, objToTarget float64
}

// task is implemented by each task type; one value per Env.
type task interface {
	meta() Meta
	// bind looks up the task's ids by name in the engine's scene.
	bind(b *binder)
	// reset randomises the episode: it poses the objects through e.ph and sets e.goal.
	reset(e *Env, rng *rand.Rand)
	// start records episode-initial values (object and TCP start
	// positions) after the objects have settled.
	start(e *Env)
	// objects writes obj1 pos(3)+quat(4) and obj2 pos(3)+quat(4) into dst[0:14].
	objects(e *Env, dst []float64)
	// evaluate computes reward and success after a step with action act.
	evaluate(e *Env, act []float64) eval
	// progress returns privileged progress in [0,1] and the index of the
	// highest stage reached in meta().Stages.
	progress(e *Env) (float64, int)
	// expert returns the scripted expert for e.
	expert(e *Env) control.Policy
}
