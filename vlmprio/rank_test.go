package vlmprio

import (
	"context"
	"image"
	"testing"

	"github.com/vlmrb/vlmrb/frame"
)

// rankFraction returns the fraction of (expert, random) clip pairs in which
// the expert clip scores strictly higher.
func rankFraction(t *testing.T, s Scorer, expert, random []*Clip) float64 {
	t.Helper()
	score := func(cs []*Clip) []float64 {
		out := make([]float64, len(cs))
		for i, c := range cs {
			sc, err := s.Score(context.Background(), c)
			if err != nil {
				t.Fatalf("clip %d: %v", i, err)
			}
			if sc.Value < 0 || sc.Value > 1 {
				t.Fatalf("score %v outside [0,1]", sc.Value)
			}
			out[i] = sc.Value
		}
		return out
	}
	return pairWinFraction(score(expert), score(random))
}

// pairWinFraction is the fraction of (e, r) pairs with e > r: the
// probability that a scorer ranks a random expert clip above a random
// other one (ties count as losses).
func pairWinFraction(e, r []float64) float64 {
	wins := 0
	for _, a := range e {
		for _, b := range r {
			if a > b {
				wins++
			}
		}
	}
	return float64(wins) / float64(len(e)*len(r))
}

// syntheticClips returns clips from expert and random pick-place episodes
// (fixed seeds), drawn at w×h.
func syntheticClips(t *testing.T, w, h int) (expert, random []*Clip) {
	for seed := uint64(1); seed <= 6; seed++ {
		expert = append(expert, episodeClips(t, true, 64, w, h, seed)...)
		random = append(random, episodeClips(t, false, 64, w, h, 100+seed)...)
	}
	return expert, random
}

// minRank is the bar: expert clips above random clips in ≥ 90% of pairs.
const minRank = 0.90

func TestPixelScorerRanksExpertAboveRandom(t *testing.T) {
	t.Parallel()
	expert, random := syntheticClips(t, 128, 96)
	got := rankFraction(t, NewPixelScorer(testSpec), expert, random)
	t.Logf("pixel: expert > random in %.3f of %d pairs", got, len(expert)*len(random))
	if got < minRank {
		t.Fatalf("pixel scorer ranks expert above random in %.3f of pairs, want ≥ %.2f", got, minRank)
	}
}

func TestOracleScorerRanksExpertAboveRandom(t *testing.T) {
	t.Parallel()
	expert, random := syntheticClips(t, 32, 24)
	got := rankFraction(t, OracleScorer{}, expert, random)
	t.Logf("oracle: expert > random in %.3f of %d pairs", got, len(expert)*len(random))
	if got < minRank {
		t.Fatalf("oracle scorer ranks expert above random in %.3f of pairs, want ≥ %.2f", got, minRank)
	}
}

// TestPixelScorerResolutionInvariant: distances are in units of the image
// diagonal, so the same scene at another resolution scores about the same.
func TestPixelScorerResolutionInvariant(t *testing.T) {
	t.Parallel()
	s := NewPixelScorer(testSpec)
	a := episodeClips(t, true, 48, 96, 72, 9)
	b := episodeClips(t, true, 48, 256, 192, 9)
	for i := range a {
		sa, err := s.Score(context.Background(), a[i])
		if err != nil {
			t.Fatal(err)
		}
		sb, err := s.Score(context.Background(), b[i])
		if err != nil {
			t.Fatal(err)
		}
		const tol = 0.1 // subsampling grids differ by resolution
		if d := sa.Value - sb.Value; d > tol || d < -tol {
			t.Fatalf("clip %d: %v at 96x72 vs %v at 256x192", i, sa.Value, sb.Value)
		}
	}
}

func TestScorersOnUnusableClips(t *testing.T) {
	t.Parallel()
	blank := &Clip{Frames: []frame.Frame{{Image: image.NewRGBA(image.Rect(0, 0, 16, 16))}}}
	// nothing visible is no evidence, not a failure: value and confidence 0
	if sc, err := NewPixelScorer(testSpec).Score(context.Background(), blank); err != nil || sc.Value != 0 || sc.Confidence != 0 {
		t.Fatalf("pixel on a blank clip: %+v, %v; want value 0, confidence 0, no error", sc, err)
	}
	if _, err := NewPixelScorer(PixelSpec{}).Score(context.Background(), blank); KindOf(err) != KindInput {
		t.Fatalf("pixel with an empty spec: %v, want an input error", err)
	}
	if _, err := (OracleScorer{}).Score(context.Background(), blank); KindOf(err) != KindInput {
		t.Fatalf("oracle without progress: %v, want an input error", err)
	}
}

func TestOracleScoreFormula(t *testing.T) {
	t.Parallel()
	c := &Clip{Progress: []float64{0.2, 0.25, 0.3}}
	sc, err := OracleScorer{}.Score(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	// max(0.3, 0.5·0.3 + 0.5·clamp((0.3−0.2)/0.1)) = max(0.3, 0.65)
	if want := 0.65; sc.Value < want-1e-12 || sc.Value > want+1e-12 {
		t.Fatalf("oracle %v, want %v", sc.Value, want)
	}
	// holding a success scores fully although nothing changes
	sc, err = OracleScorer{}.Score(context.Background(), &Clip{Progress: []float64{1, 1, 1}})
	if err != nil || sc.Value != 1 {
		t.Fatalf("idle at success: %v, %v; want 1", sc.Value, err)
	}
}

// TestPixelOcclusionLowersConfidence: hiding the object in half of the
// frames of an expert clip (as a gripper over a puck does) keeps the clip
// scorable and lowers the confidence instead of failing.
func TestPixelOcclusionLowersConfidence(t *testing.T) {
	t.Parallel()
	clips := episodeClips(t, true, 48, 128, 96, 5)
	s := NewPixelScorer(testSpec)
	c := clips[len(clips)-1]
	full, err := s.Score(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	hidden := &Clip{Env: 1, Episode: 77, Task: c.Task, Family: c.Family}
	for i, f := range c.Frames {
		img := image.NewRGBA(f.Image.Rect)
		copy(img.Pix, f.Image.Pix)
		if i%2 == 1 { // paint the object's pixels over with the background
			k := newMatcher(testSpec.Object)
			for p := 0; p+3 < len(img.Pix); p += 4 {
				if k.match(float64(img.Pix[p]), float64(img.Pix[p+1]), float64(img.Pix[p+2])) {
					img.Pix[p], img.Pix[p+1], img.Pix[p+2] = 0, 0, 0
				}
			}
		}
		hidden.Frames = append(hidden.Frames, frame.Frame{Image: img})
	}
	occ, err := s.Score(context.Background(), hidden)
	if err != nil {
		t.Fatalf("occluded clip: %v", err)
	}
	t.Logf("confidence %.3f visible, %.3f with the object hidden in half the frames", full.Confidence, occ.Confidence)
	if !(occ.Confidence < full.Confidence) || occ.Confidence <= 0 {
		t.Fatalf("confidence %.3f with occlusion, %.3f without; want lower but > 0", occ.Confidence, full.Confidence)
	}
}
