package vlmviam

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"testing"

	"go.viam.com/rdk/components/camera"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/tasks"
	"github.com/vlmrb/vlmrb/vlmreward"
)

// embedStub is an OpenAI-style /v1/embeddings server: the goal text embeds
// to e1, any other text to e2, every image to (0.6, 0.8, 0).
func embedStub(t *testing.T, goal string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil || r.URL.Path != "/v1/embeddings" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		var data []any
		if in, ok := body["input"].([]any); ok {
			for i, s := range in {
				e := []float64{0, 1, 0}
				if s == goal {
					e = []float64{1, 0, 0}
				}
				data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": e})
			}
		} else {
			data = append(data, map[string]any{"object": "embedding", "index": 0, "embedding": []float64{0.6, 0.8, 0}})
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": body["model"]})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestRobotEnvVLMRMReward: RobotEnv over the sim components takes its
// reward from VLM-RM of the camera frame: with goal e1, baseline e2, image
// (0.6, 0.8, 0) and α = ½, R = 1 − ½‖P(x − g)‖² = 1 − ½·0.74 = 0.63.
func TestRobotEnvVLMRMReward(t *testing.T) {
	ctx := context.Background()
	deps, sa := simRig(t, "robotenv", 0)
	c, err := newSimCamera(ctx, nil, mustConf[*SimConfig](t, camera.API, SimCameraModel, "cam", map[string]any{"task": "reach", "world": "robotenv", "backend": "soft", "width": 64, "height": 48}), testLogger)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	deps[camera.Named("cam")] = c
	meta, _ := tasks.Lookup("reach")
	srv := embedStub(t, meta.Description)
	emb, err := vlmreward.NewHTTPEmbedder(srv.URL+"/v1", "clip", "")
	if err != nil {
		t.Fatal(err)
	}
	rm, err := vlmreward.NewVLMRMFromPrompts(ctx, emb, []string{meta.Description}, []string{"a robot arm"}, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	env, err := NewRobotEnv(context.Background(), deps, EnvConfig{RigConfig: RigConfig{Arm: "arm", Gripper: "gripper", GripperMode: "proportional", PoseTracker: "poses", Camera: "cam"},
		MaxSteps: 3, SimReset: true, Reward: VLMRMReward{Embedder: emb, RM: rm}})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	obs, _ := env.Reset(9)
	if env.Err() != nil {
		t.Fatal(env.Err())
	}
	if want := sa.world().Obs(); math.Abs(obs[36]-want[36]) > 1e-12 || math.Abs(obs[0]-want[0]) > 1e-12 {
		t.Fatalf("first observation %v, sim %v", obs[:4], want[:4])
	}
	moves := sa.world().moves
	if _, _, _, _, _, err := env.Step([]float64{math.NaN(), 0, 0, 0}); !errors.Is(err, control.ErrNonFiniteAction) || sa.world().moves != moves {
		t.Fatalf("NaN action: %v (sim moved %d)", err, sa.world().moves-moves)
	}
	for k := range 3 {
		_, r, term, trunc, _, err := env.Step([]float64{0.5, 0, 0, -1})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(r-0.63) > 1e-9 || term || trunc != (k == 2) {
			t.Fatalf("step %d: reward %.12f (want 0.63), terminated %v, truncated %v", k, r, term, trunc)
		}
	}
	if _, _, _, _, _, err := env.Step([]float64{0, 0, 0, 0}); !errors.Is(err, control.ErrNeedsReset) {
		t.Fatalf("step after truncation: %v", err)
	}
}
