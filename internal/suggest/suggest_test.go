package suggest

import (
	"slices"
	"testing"
)

// Distances of the optimal-string-alignment metric, by hand: one edit of
// each kind, a transposition as one edit, and the textbook kitten→sitting.
func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		d    int
	}{
		{"gamma", "gamma", 0}, {"gama", "gamma", 1}, {"gammma", "gamma", 1}, {"gamna", "gamma", 1},
		{"gmama", "gamma", 1}, {"kitten", "sitting", 3}, {"", "tau", 3},
	} {
		if got := Distance(tc.a, tc.b); got != tc.d {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.d)
		}
	}
}

func TestClosest(t *testing.T) {
	keys := []string{"sac.gamma", "sac.tau", "sac.batch_size", "dqn.gamma", "steps"}
	if got := Closest("sac.gama", keys); !slices.Equal(got, []string{"sac.gamma"}) {
		t.Fatalf("sac.gama: %v", got)
	}
	if got := Closest("reech", []string{"reach", "push", "door-open"}); !slices.Equal(got, []string{"reach"}) {
		t.Fatalf("reech: %v", got)
	}
	if got := Closest("zzzzzz", keys); got != nil {
		t.Fatalf("nothing close: %v", got)
	}
	if got := DidYouMean("--", []string{"steps"}); got != "; did you mean --steps?" {
		t.Fatalf("DidYouMean %q", got)
	}
}
