package vlmprio

import (
	"context"
	"errors"
	"image"
	"testing"
	"time"

	"github.com/vlmrb/vlmrb/frame"
	"github.com/vlmrb/vlmrb/replay"
)

// countGame is a deterministic episodic world: its state counts the steps
// of the whole run, episode k lasts 3+k%4 steps and every other episode
// terminates (the rest truncate). Its frames carry the state in their
// first pixel, so a clip's frames say which states they show.
type countGame struct {
	state, t, ep int
}

func (g *countGame) length() int      { return 3 + g.ep%4 }
func (g *countGame) terminates() bool { return g.ep%2 == 0 }

func (g *countGame) Reset(ep int) error { g.ep, g.t = ep, 0; g.state++; return nil }

func (g *countGame) Observe(dst *frame.Frame) (float64, error) {
	dst.Image = frame.EnsureRGBA(dst.Image, image.Rect(0, 0, 2, 2))
	dst.Image.Pix[0] = uint8(g.state)
	dst.Seq = uint64(g.t)
	return float64(g.t) / 10, nil
}

func (g *countGame) Act() (bool, bool, error) {
	g.state++
	g.t++
	done := g.t == g.length()
	return done && g.terminates(), done && !g.terminates(), nil
}

// limitedGame plays n episodes, then refuses to reset.
type limitedGame struct {
	countGame
	n int
}

var errPlayed = errors.New("played every episode")

func (g *limitedGame) Reset(ep int) error {
	if ep == g.n {
		return errPlayed
	}
	return g.countGame.Reset(ep)
}

// gameSource is the same game seen as a training env's camera.
type gameSource struct{ g *countGame }

func (s gameSource) Next(_ context.Context, dst *frame.Frame) error {
	_, err := s.g.Observe(dst)
	return err
}
func (gameSource) Close() error { return nil }

// TestEpisodeClipsMatchTraining: score's clips (EpisodeClips) and the
// training loop's (Pipeline: Capture before the step, Terminal before the
// reset, Push after) are the same clips of the same states.
func TestEpisodeClipsMatchTraining(t *testing.T) {
	cc := ClipperConfig{Length: 4, Stride: 2}
	const episodes = 6
	var scored []*Clip
	err := EpisodeClips(context.Background(), &limitedGame{countGame{}, episodes}, NewClipper(cc), func(cs []*Clip) bool {
		scored = append(scored, cs...)
		return false
	})
	if !errors.Is(err, errPlayed) {
		t.Fatalf("EpisodeClips ended with %v, want the player's own error", err)
	}

	g := &countGame{}
	sc := &keepScorer{}
	p := NewPipeline(sc, nopSink{}, PipelineConfig{Envs: 1, Sources: []frame.Source{gameSource{g}}, Clipper: cc, Prioritizer: PrioritizerConfig{Inline: true}})
	ctx := context.Background()
	p.Start(ctx)
	defer p.Close()
	slot := int32(0)
	for ep := range episodes {
		g.Reset(ep)
		for {
			o, err := p.Capture(ctx, 0, float64(g.t)/10, true, time.Duration(slot))
			if err != nil {
				t.Fatal(err)
			}
			term, trunc, _ := g.Act()
			if term {
				if err := p.Terminal(ctx, 0, float64(g.t)/10, true, time.Duration(slot)); err != nil {
					t.Fatal(err)
				}
			}
			slot++
			p.Push(0, int64(ep), replay.Ref{Slot: slot, Gen: 1}, o, term || trunc)
			if term || trunc {
				break
			}
		}
	}
	trained := sc.clips
	if len(scored) != len(trained) || len(trained) < 2*episodes {
		t.Fatalf("score cut %d clips, training %d, from %d episodes", len(scored), len(trained), episodes)
	}
	sawTerminal := false
	for i, a := range scored {
		b := trained[i]
		if a.Episode != b.Episode || a.Start != b.Start || a.End != b.End || a.Padded != b.Padded || len(a.Frames) != len(b.Frames) || len(a.Refs) != len(b.Refs) {
			t.Fatalf("clip %d: score ep %d %d–%d pad %d, training ep %d %d–%d pad %d", i, a.Episode, a.Start, a.End, a.Padded, b.Episode, b.Start, b.End, b.Padded)
		}
		for k := range a.Frames {
			if a.Frames[k].Image.Pix[0] != b.Frames[k].Image.Pix[0] || a.Progress[k] != b.Progress[k] {
				t.Fatalf("clip %d frame %d: score shows state %d (progress %g), training state %d (%g)", i, k, a.Frames[k].Image.Pix[0], a.Progress[k], b.Frames[k].Image.Pix[0], b.Progress[k])
			}
		}
		for k := range a.Refs {
			if a.Refs[k] != b.Refs[k] {
				t.Fatalf("clip %d ref %d: score %v, training %v", i, k, a.Refs[k], b.Refs[k])
			}
		}
		// the first episode terminates after 3 steps: its last real frame is o_3
		if a.Episode == 0 && a.End == 4 {
			sawTerminal = true
		}
	}
	if !sawTerminal {
		t.Error("no clip of the terminated first episode ends with its o_T")
	}
}
