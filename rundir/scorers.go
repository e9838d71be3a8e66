package rundir

import (
	"time"

	"github.com/vlmrb/vlmrb/tasks"
	"github.com/vlmrb/vlmrb/tasks/grid"
	"github.com/vlmrb/vlmrb/vlmprio"
)

// PixelSpecFor returns the pixel scorer's colour keys for a task's colours
// (vlmprio.ScenePixelSpec).
func PixelSpecFor(meta tasks.Meta) vlmprio.PixelSpec {
	return vlmprio.ScenePixelSpec(meta.Colors.Goal, meta.Colors.Gripper, meta.Colors.Object)
}

// GridPixelSpec returns the pixel scorer's colour keys for grid frames in
// the standard theme's colours: the key as the object, the green goal as
// the goal and the red agent as the gripper. On the misleading and
// abstract themes these keys find less or nothing, which is the point of
// those renderings.
func GridPixelSpec() vlmprio.PixelSpec {
	return vlmprio.GridPixelSpec(grid.ColorKey, grid.ColorGoal, grid.ColorAgent)
}

// scorerConfig is vlmprio's scorer config for the vlm section.
func (v VLMConfig) scorerConfig(name string) vlmprio.ScorerConfig {
	return vlmprio.ScorerConfig{Name: name, BaseURL: v.BaseURL, Model: v.Model, APIKey: v.APIKey,
		Timeout: time.Duration(v.Timeout * float64(time.Second)), Prompt: v.Prompt,
		ClipFormat: v.ClipFormat, Frames: v.Frames, Width: v.Width, Height: v.Height}
}

// NewScorer builds the named scorer ("pixel", "oracle", "openai") for a
// task from a run's vlm section (vlmprio.NewScorer with the task's pixel
// spec); a bad name or vlm section is a *ConfigError.
func NewScorer(name string, meta tasks.Meta, v VLMConfig) (vlmprio.Scorer, error) {
	sc := v.scorerConfig(name)
	sc.Family, sc.Pixel = meta.Family, PixelSpecFor(meta)
	s, err := vlmprio.NewScorer(sc)
	return s, asConfigError(err)
}

// NewGridScorer builds the named clip scorer for grid tasks: pixel (colour
// keys of GridPixelSpec, every pixel read), oracle
// (vlmprio.EventOracleScorer: yes when the clip shows the key picked up,
// the door opened or the goal reached) or openai (vlmprio.DoorKeyPrompt
// unless vlm.prompt overrides it).
func NewGridScorer(name string, v VLMConfig) (vlmprio.Scorer, error) {
	sc := v.scorerConfig(name)
	sc.Grid, sc.Family, sc.Pixel = true, grid.Family, GridPixelSpec()
	s, err := vlmprio.NewScorer(sc)
	return s, asConfigError(err)
}
