package vlmprio

import (
	"context"
	"image"
	"sync"
	"testing"
	"time"

	"github.com/vlmrb/vlmrb/frame"
	"github.com/vlmrb/vlmrb/replay"
)

// countSource yields frames whose Seq counts its Next calls and whose
// first pixel's red channel is that count, so a clip's frame says which
// capture it was.
type countSource struct{ n uint64 }

func (s *countSource) Next(_ context.Context, dst *frame.Frame) error {
	dst.Image = frame.EnsureRGBA(dst.Image, image.Rect(0, 0, 2, 2))
	dst.Image.Pix[0] = uint8(s.n)
	dst.Seq = s.n
	s.n++
	return nil
}

func (s *countSource) Close() error { return nil }

type keepScorer struct {
	mu    sync.Mutex
	clips []*Clip
}

func (k *keepScorer) Score(_ context.Context, c *Clip) (Score, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.clips = append(k.clips, c)
	return Score{Value: 1}, nil
}

type nopSink struct{}

func (nopSink) SetScore(replay.Ref, float64) bool { return true }

// Transitions that reach Push two steps after their capture (3-step
// returns) still get their own frame: the clip of transition i starts
// with capture i of the episode, and a terminated episode's clips end
// with the capture Terminal took.
func TestPipelineFrameRuleWithLag(t *testing.T) {
	src := &countSource{}
	sc := &keepScorer{}
	p := NewPipeline(sc, nopSink{}, PipelineConfig{Envs: 1, Sources: []frame.Source{src},
		Clipper: ClipperConfig{Length: 3, Stride: 1}, Prioritizer: PrioritizerConfig{Inline: true}})
	ctx := context.Background()
	p.Start(ctx)
	defer p.Close()
	const T, lag = 7, 2
	slot := int32(0)
	var carried []Observed // the loop's n-step queue: each frame travels with its step
	push := func(done bool) {
		slot++
		p.Push(0, 5, replay.Ref{Slot: slot, Gen: 1}, carried[0], done)
		carried = carried[1:]
	}
	for step := range T {
		o, err := p.Capture(ctx, 0, float64(step), true, time.Duration(step)*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		carried = append(carried, o)
		if step >= lag {
			push(false)
		}
	}
	if err := p.Terminal(ctx, 0, T, true, T*time.Second); err != nil {
		t.Fatal(err)
	}
	for k := range lag {
		push(k == lag-1)
	}
	if len(sc.clips) != T {
		t.Fatalf("%d clips for %d transitions (stride 1)", len(sc.clips), T)
	}
	for _, c := range sc.clips {
		if int(c.Refs[0].Slot) != c.Start+1 {
			t.Fatalf("clip starting at o_%d scores slot %d", c.Start, c.Refs[0].Slot)
		}
		for k := 0; k < c.End-c.Start; k++ {
			f := c.Frames[k]
			if int(f.Seq) != c.Start+k || int(f.Image.Pix[0]) != c.Start+k || c.Progress[k] != float64(c.Start+k) {
				t.Fatalf("clip %d–%d frame %d is capture %d (progress %g), want o_%d", c.Start, c.End, k, f.Seq, c.Progress[k], c.Start+k)
			}
		}
	}
	last := sc.clips[T-1]
	if last.Start != T-1 || last.End != T+1 || last.Padded != 1 || last.Frames[1].Seq != T {
		t.Fatalf("last clip %d–%d padded %d ends with capture %d, want o_%d then o_T (capture %d)", last.Start, last.End, last.Padded, last.Frames[1].Seq, T-1, T)
	}
}
