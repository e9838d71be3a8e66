package vlmprio

import (
	"fmt"
	"time"
)

// ScorerConfig is what NewScorer needs to build a clip scorer. The pixel
// and oracle scorers read only Name, Grid and Pixel; the openai scorer
// reads the server fields.
type ScorerConfig struct {
	Name   string    // pixel | oracle | openai
	Grid   bool      // grid-world frames: the grid pixel scorer, EventOracleScorer, DoorKeyPrompt by default
	Family string    // the task's prompt family (the openai scorer's prompt)
	Pixel  PixelSpec // the pixel scorer's colour keys

	BaseURL string        // OpenAI-compatible server
	Model   string        // model name on that server
	APIKey  string        // bearer token; never logged
	Timeout time.Duration // per request (0: OpenAIConfig's default)
	Prompt  string        // replaces Family's prompt template ("" keeps the default)
	// ClipFormat is how a clip reaches the VLM: images (default), video
	// (needs ffmpeg) or sheet (the 8-frame 480×360 contact sheet).
	ClipFormat string
	// Frames, Width and Height are the images and video formats' frames
	// per query (0: all of the clip) and frame size.
	Frames, Width, Height int
}

// NewScorer builds the scorer cfg names: pixel (NewPixelScorer, or
// NewGridPixelScorer for grid frames), oracle (OracleScorer, or
// EventOracleScorer for grid frames) or openai (NewOpenAIScorer with
// EncodingFor's encoding). An unknown name or format is an error saying
// what to choose.
func NewScorer(cfg ScorerConfig) (Scorer, error) {
	switch cfg.Name {
	case "pixel":
		if cfg.Grid {
			return NewGridPixelScorer(cfg.Pixel), nil
		}
		return NewPixelScorer(cfg.Pixel), nil
	case "oracle":
		if cfg.Grid {
			return EventOracleScorer{}, nil
		}
		return OracleScorer{}, nil
	case "openai":
		return newOpenAIScorer(cfg)
	}
	return nil, fmt.Errorf("unknown scorer %q (pixel|oracle|openai)", cfg.Name)
}

// newOpenAIScorer is the OpenAI-compatible scorer of cfg, with cfg.Prompt
// (DoorKeyPrompt on grid frames when empty) as the prompt of cfg.Family.
func newOpenAIScorer(cfg ScorerConfig) (Scorer, error) {
	enc, err := EncodingFor(cfg.ClipFormat, cfg.Frames, cfg.Width, cfg.Height)
	if err != nil {
		return nil, err
	}
	oc := OpenAIConfig{BaseURL: cfg.BaseURL, Model: cfg.Model, APIKey: cfg.APIKey, Encoding: enc, Timeout: cfg.Timeout}
	prompt := cfg.Prompt
	if prompt == "" && cfg.Grid {
		prompt = DoorKeyPrompt
	}
	if prompt != "" {
		p := DefaultPrompts()
		p[cfg.Family] = prompt
		oc.Prompts = p
	}
	return NewOpenAIScorer(oc)
}

// EncodingFor returns the query encoding of a clip format ("" is images):
// images and video send frames frames (0: all of the clip) at w×h; sheet is
// DefaultEncoding's 8-frame 480×360 contact sheet. video without ffmpeg on
// PATH is ErrNoFFmpeg.
func EncodingFor(format string, frames, w, h int) (Encoding, error) {
	if format == "" {
		format = "images"
	}
	layout, err := ParseClipFormat(format)
	if err != nil {
		return Encoding{}, err
	}
	switch layout {
	case ContactSheet:
		return DefaultEncoding(), nil
	case VideoPart:
		if !FFmpegAvailable() {
			return Encoding{}, ErrNoFFmpeg
		}
	}
	return Encoding{Layout: layout, Frames: frames, Width: w, Height: h}, nil
}
