package vlmprio

import (
	"context"
	"testing"
)

func TestEventOracleScorer(t *testing.T) {
	t.Parallel()
	const k, d, g = 1.0 / 3, 2.0 / 3, 1.0 // DoorKey stages: key, door, goal
	for _, tc := range []struct {
		name   string
		prog   []float64
		start  int
		padded int
		want   float64
	}{
		{"nothing happens", []float64{0, 0, 0, 0}, 8, 0, 0},
		{"key picked up", []float64{0, 0, k, k}, 8, 0, 1},
		{"holding the key, nothing new", []float64{k, k, k, k}, 8, 0, 0},
		{"door opened", []float64{k, k, d, d}, 8, 0, 1},
		{"goal reached on the last frame", []float64{d, d, d, g}, 8, 0, 1},
		{"episode start with the key already (first transition picked it up)", []float64{k, k, k}, 0, 0, 1},
		{"episode start, nothing", []float64{0, 0, 0}, 0, 0, 0},
		{"padding repeats the last frame: no event", []float64{d, d, d, d}, 8, 2, 0},
	} {
		s, err := EventOracleScorer{}.Score(context.Background(), &Clip{Progress: tc.prog, Start: tc.start, Padded: tc.padded})
		if err != nil {
			t.Fatal(err)
		}
		if s.Value != tc.want {
			t.Errorf("%s: score %g, want %g", tc.name, s.Value, tc.want)
		}
	}
	if _, err := (EventOracleScorer{}).Score(context.Background(), &Clip{}); KindOf(err) != KindInput {
		t.Errorf("clip without progress: %v, want an input error", err)
	}
	if got := (Prompts{"doorkey": DoorKeyPrompt}).Render("doorkey", "use the key to open the door and then get to the goal"); got == DoorKeyPrompt {
		t.Error("DoorKeyPrompt has no {task} placeholder")
	}
}
