package vlmprio

import (
	"fmt"
	"strings"
	"testing"
)

func TestNewScorerPicksTheFamilysScorer(t *testing.T) {
	spec := ScenePixelSpec([3]uint8{0, 200, 0}, [3]uint8{200, 0, 0}, [3]uint8{0, 0, 200})
	for _, c := range []struct {
		cfg  ScorerConfig
		want string
	}{
		{ScorerConfig{Name: "pixel", Pixel: spec}, "*vlmprio.PixelScorer"},
		{ScorerConfig{Name: "pixel", Grid: true, Pixel: spec}, "*vlmprio.PixelScorer"},
		{ScorerConfig{Name: "oracle"}, "vlmprio.OracleScorer"},
		{ScorerConfig{Name: "oracle", Grid: true}, "vlmprio.EventOracleScorer"},
		{ScorerConfig{Name: "openai", BaseURL: "http://127.0.0.1:1/v1", Model: "m", Family: "reach"}, "*vlmprio.OpenAIScorer"},
	} {
		s, err := NewScorer(c.cfg)
		if err != nil {
			t.Fatalf("%+v: %v", c.cfg, err)
		}
		if got := typeName(s); got != c.want {
			t.Errorf("%s (grid %v) built %s, want %s", c.cfg.Name, c.cfg.Grid, got, c.want)
		}
	}
	// the grid pixel scorer reads every pixel (NewGridPixelScorer), the scene one subsamples
	g, _ := NewScorer(ScorerConfig{Name: "pixel", Grid: true, Pixel: spec})
	if ps := g.(*PixelScorer); ps.MaxSide != GridMaxSide || ps.Spec != spec {
		t.Errorf("grid pixel scorer reads %d px sides with %+v, want GridMaxSide %d with the given keys", ps.MaxSide, ps.Spec, GridMaxSide)
	}
	if _, err := NewScorer(ScorerConfig{Name: "clip"}); err == nil || !strings.Contains(err.Error(), "pixel|oracle|openai") {
		t.Errorf("unknown scorer: %v, want an error listing pixel|oracle|openai", err)
	}
	if _, err := NewScorer(ScorerConfig{Name: "openai", Model: "m", ClipFormat: "gif"}); err == nil {
		t.Error("clip format gif accepted")
	}
}

func TestEncodingFor(t *testing.T) {
	e, err := EncodingFor("", 8, 128, 96)
	if err != nil || e.Layout != ImageParts || e.Frames != 8 || e.Width != 128 || e.Height != 96 {
		t.Errorf("default format: %+v, %v; want 8 image parts of 128×96", e, err)
	}
	if e, err := EncodingFor("sheet", 32, 64, 64); err != nil || e != DefaultEncoding() {
		t.Errorf("sheet: %+v, %v; want DefaultEncoding's contact sheet", e, err)
	}
	if _, err := EncodingFor("video", 8, 64, 64); !FFmpegAvailable() && err != ErrNoFFmpeg {
		t.Errorf("video without ffmpeg: %v, want ErrNoFFmpeg", err)
	}
}

func typeName(s Scorer) string { return fmt.Sprintf("%T", s) }
