package vlmviam

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
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

// TestScorerOpenAIOutage: a VLM server that answers 503 makes
// ClassificationsFromCamera fail within timeout_s with a classified error
// that never contains the API key; the failure is counted.
func TestScorerOpenAIOutage(t *testing.T) {
	const key = "sk-outage-SECRET-42424242"
	t.Setenv("OPENAI_API_KEY", key)
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		http.Error(w, `{"error": {"message": "overloaded"}}`, http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	ctx := context.Background()
	_, _ = simRig(t, "outage", 0)
	c, err := newSimCamera(ctx, nil, mustConf[*SimConfig](t, camera.API, SimCameraModel, "cam", map[string]any{"task": "reach", "world": "outage", "backend": "soft", "width": 32, "height": 24}), testLogger)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	v, err := NewScorer(ctx, resource.Dependencies{camera.Named("cam"): c}, mustConf[*ScorerConfig](t, vision.API, ScorerModel, "scorer",
		map[string]any{"camera": "cam", "task": "reach", "scorer": "openai", "base_url": srv.URL + "/v1", "model": "m", "clip_len": 2, "fps": 50, "timeout_s": 1}), testLogger)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close(ctx)
	time.Sleep(100 * time.Millisecond)
	t0 := time.Now()
	var cls classification.Classifications
	for range 50 {
		cls, err = v.ClassificationsFromCamera(ctx, "cam", 1, nil)
		if err == nil || !strings.Contains(err.Error(), "no frame") {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err == nil {
		t.Fatalf("scored %v against a server that only answers 503", cls)
	}
	const slack = 3 * time.Second // the 1 s deadline plus scheduling on a loaded machine
	if d := time.Since(t0); d > time.Second+slack {
		t.Fatalf("failure took %v with timeout_s 1", d)
	}
	if strings.Contains(err.Error(), key) || calls.Load() == 0 {
		t.Fatalf("error %q (server calls %d)", err, calls.Load())
	}
	t.Logf("outage error: %v", err)
	st, err := v.DoCommand(ctx, map[string]any{"status": true})
	if err != nil || st["failures"].(float64) < 1 {
		t.Fatalf("status %v, %v", st, err)
	}
}
