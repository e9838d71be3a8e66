package rundir

import (
	"context"
	"image"
	"math/rand/v2"
	"testing"

	"github.com/vlmrb/vlmrb/frame"
	"github.com/vlmrb/vlmrb/tasks/grid"
	"github.com/vlmrb/vlmrb/vlmprio"
)

// gridClips renders 16-frame clips of DoorKey-6×6 episodes (frames of
// s_{t+1}) under the planner (expert) or random actions, with the stage
// after each step as progress.
func gridClips(t *testing.T, expert bool, theme grid.Theme, n int) []*vlmprio.Clip {
	t.Helper()
	e, err := grid.New(6, grid.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := grid.Expert(e)
	rng := rand.New(rand.NewPCG(1, 1))
	var clips []*vlmprio.Clip
	for k := 0; len(clips) < n; k++ {
		e.Reset(uint64(k))
		c := &vlmprio.Clip{Task: grid.Mission, Family: grid.Family, Episode: int64(k)}
		for len(c.Frames) < 16 {
			a := grid.Action(rng.IntN(grid.NumActions))
			if expert {
				a = p.Next()
			}
			_, term, trunc := e.StepIndex(a)
			img := image.NewRGBA(image.Rect(0, 0, 96, 96))
			e.Render(img, 16, theme)
			c.Frames = append(c.Frames, frame.Frame{Image: img})
			c.Progress = append(c.Progress, float64(e.Stage())/3)
			if term || trunc {
				break
			}
		}
		c.End = len(c.Frames)
		clips = append(clips, c)
	}
	return clips
}

func meanScore(t *testing.T, s vlmprio.Scorer, clips []*vlmprio.Clip) float64 {
	t.Helper()
	sum := 0.0
	for _, c := range clips {
		v, err := s.Score(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		sum += v.Value
	}
	return sum / float64(len(clips))
}

// TestGridScorersRankExpertClips: on standard tiles, clips of the planner
// (which picks up the key, opens the door and reaches the goal within 16
// steps on 6×6) score higher than clips of random actions, for the event
// oracle and for the pixel scorer; the oracle says yes to every expert
// clip.
func TestGridScorersRankExpertClips(t *testing.T) {
	t.Parallel()
	expert, random := gridClips(t, true, grid.Standard, 20), gridClips(t, false, grid.Standard, 20)
	oracle, _ := NewGridScorer("oracle", VLMConfig{})
	pixel, _ := NewGridScorer("pixel", VLMConfig{})
	if e, r := meanScore(t, oracle, expert), meanScore(t, oracle, random); e != 1 || r >= e {
		t.Errorf("oracle: expert %.2f, random %.2f; want 1 and lower", e, r)
	}
	e, r := meanScore(t, pixel, expert), meanScore(t, pixel, random)
	t.Logf("pixel scorer on standard tiles: expert %.3f, random %.3f", e, r)
	if e <= r {
		t.Errorf("pixel: expert %.3f ≤ random %.3f", e, r)
	}
	// on abstract tiles the colour keys find nothing to score
	abstract := gridClips(t, true, grid.Abstract, 5)
	if _, err := pixel.Score(context.Background(), abstract[0]); err == nil {
		s, _ := pixel.Score(context.Background(), abstract[0])
		if s.Value > 0.1 {
			t.Errorf("pixel scorer scores abstract tiles %.2f", s.Value)
		}
	}
}
