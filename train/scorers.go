package train

import (
	"fmt"
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

// NewScorer builds the named scorer ("pixel", "oracle", "openai") for a task.
func NewScorer(name string, meta tasks.Meta, v VLMConfig) (vlmprio.Scorer, error) {
	switch name {
	case "pixel":
		return vlmprio.NewPixelScorer(PixelSpecFor(meta)), nil
	case "oracle":
		return vlmprio.OracleScorer{}, nil
	case "openai":
		return newOpenAIScorer(meta.Family, v)
	}
	return nil, &ConfigError{Msg: fmt.Sprintf("unknown scorer %q (pixel|oracle|openai)", name)}
}

// NewGridScorer builds the named clip scorer for grid tasks: pixel (colour
// keys of GridPixelSpec, every pixel read), oracle
// (vlmprio.EventOracleScorer: yes when the clip shows the key picked up,
// the door opened or the goal reached) or openai (vlmprio.DoorKeyPrompt
// unless vlm.prompt overrides it).
func NewGridScorer(name string, v VLMConfig) (vlmprio.Scorer, error) {
	switch name {
	case "pixel":
		return vlmprio.NewGridPixelScorer(GridPixelSpec()), nil
	case "oracle":
		return vlmprio.EventOracleScorer{}, nil
	case "openai":
		if v.Prompt == "" {
			v.Prompt = vlmprio.DoorKeyPrompt
		}
		return newOpenAIScorer(grid.Family, v)
	}
	return nil, &ConfigError{Msg: fmt.Sprintf("unknown scorer %q (pixel|oracle|openai)", name)}
}

// newOpenAIScorer is the OpenAI-compatible scorer of the vlm section, with
// vlm.prompt (when set) as the prompt of family.
func newOpenAIScorer(family string, v VLMConfig) (vlmprio.Scorer, error) {
	enc, err := ClipEncoding(v)
	if err != nil {
		return nil, err
	}
	oc := vlmprio.OpenAIConfig{
		BaseURL: v.BaseURL, Model: v.Model, APIKey: v.APIKey,
		Encoding: enc,
		Timeout:  time.Duration(v.Timeout * float64(time.Second)),
	}
	if v.Prompt != "" {
		p := vlmprio.DefaultPrompts()
		p[family] = v.Prompt
		oc.Prompts = p
	}
	s, err := vlmprio.NewOpenAIScorer(oc)
	if err != nil {
		return nil, &ConfigError{Msg: err.Error()}
	}
	return s, nil
}

// ClipEncoding returns the query encoding of vlm.clip_format: images and
// video send vlm.frames frames (all of the clip by default) at the scorer
// frame size; sheet is the 8-frame 480×360 contact sheet.
func ClipEncoding(v VLMConfig) (vlmprio.Encoding, error) {
	format := v.ClipFormat
	if format == "" {
		format = "images"
	}
	layout, err := vlmprio.ParseClipFormat(format)
	if err != nil {
		return vlmprio.Encoding{}, &ConfigError{Msg: err.Error()}
	}
	switch layout {
	case vlmprio.ContactSheet:
		return vlmprio.DefaultEncoding(), nil
	case vlmprio.VideoPart:
		if !vlmprio.FFmpegAvailable() {
			return vlmprio.Encoding{}, &ConfigError{Msg: vlmprio.ErrNoFFmpeg.Error()}
		}
	}
	return vlmprio.Encoding{Layout: layout, Frames: v.Frames, Width: v.Width, Height: v.Height}, nil
}
