package vlmviam

import (
	"context"
	"math"
	"testing"
	"time"

	"go.viam.com/rdk/components/camera"
	"go.viam.com/rdk/resource"
	"go.viam.com/rdk/services/vision"
	"go.viam.com/rdk/vision/classification"
)

// TestScorerOracleIsTaskProgress: with the hand held still a clip's
// progress is constant P, so the oracle's score max(P, ½P + ½·0) is P,
// the sim's privileged progress; with the hand on the goal it is 1.
func TestScorerOracleIsTaskProgress(t *testing.T) {
	ctx := context.Background()
	_, sa := simRig(t, "oracle", 0)
	c, err := newSimCamera(ctx, nil, mustConf[*SimConfig](t, camera.API, SimCameraModel, "cam", map[string]any{"task": "reach", "world": "oracle", "backend": "soft", "width": 32, "height": 24}), testLogger)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	w := sa.world()
	w.Reset(3)
	v, err := NewScorer(ctx, resource.Dependencies{camera.Named("cam"): c}, mustConf[*ScorerConfig](t, vision.API, ScorerModel, "scorer",
		map[string]any{"camera": "cam", "task": "reach", "scorer": "oracle", "clip_len": 3, "fps": 50}), testLogger)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close(ctx)
	score := func() float64 {
		t.Helper()
		time.Sleep(200 * time.Millisecond) // 3 frames at 50 fps refill the ring
		var cls classification.Classifications
		for range 50 {
			if cls, err = v.ClassificationsFromCamera(ctx, "cam", 1, nil); err == nil {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if err != nil {
			t.Fatal(err)
		}
		return cls[0].Score()
	}
	p, _ := w.Progress()
	if got := score(); math.Abs(got-p) > 1e-12 {
		t.Fatalf("oracle score at rest %.6f, progress %.6f", got, p)
	}
	obs := w.Obs()
	if _, err := w.Move([3]float64{obs[36] * 1000, obs[37] * 1000, obs[38] * 1000}); err != nil {
		t.Fatal(err)
	}
	for range 10 { // let the hand settle on the goal
		if _, err := w.Move([3]float64{obs[36] * 1000, obs[37] * 1000, obs[38] * 1000}); err != nil {
			t.Fatal(err)
		}
	}
	if p, _ := w.Progress(); p != 1 {
		t.Fatalf("progress with the hand on the goal %.3f, want 1", p)
	}
	if got := score(); got != 1 {
		t.Fatalf("oracle score with the hand on the goal %.6f, want 1", got)
	}
}
