package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/tasks/grid"
)

// chatServer speaks OpenAI's chat-completions wire format (the shape of
// vlmprio/testdata/openai_chat_logprobs_response.json): it answers "Yes"
// with P(yes) = 0.8 in top_logprobs, and checks that every request carries
// the model, image parts and a logprobs request.
func chatServer(t *testing.T, calls *atomic.Int64) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		var req struct {
			Model    string `json:"model"`
			Logprobs bool   `json:"logprobs"`
			Messages []struct {
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model != "test-vlm" || !req.Logprobs ||
			len(req.Messages) == 0 || !strings.Contains(string(req.Messages[len(req.Messages)-1].Content), "data:image/jpeg;base64,") {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprint(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1702685778,"model":"test-vlm",
"choices":[{"index":0,"message":{"role":"assistant","content":"Yes"},
"logprobs":{"content":[{"token":"Yes","logprob":-0.2231435513,"bytes":[89,101,115],
"top_logprobs":[{"token":"Yes","logprob":-0.2231435513,"bytes":[89,101,115]},{"token":"No","logprob":-1.6094379124,"bytes":[78,111]}]}]},
"finish_reason":"stop"}],"usage":{"prompt_tokens":120,"completion_tokens":1,"total_tokens":121}}`)
	}))
}

func TestScoreAndTrainWithOpenAIServer(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	srv := chatServer(t, &calls)
	defer srv.Close()
	base := srv.URL + "/v1"

	code, out, stderr := runCLI(t, "score", "--source", "sim:reach", "--scorer", "openai", "--clips", "2",
		"--vlm-base-url", base, "--vlm-model", "test-vlm", "--json")
	if code != 0 {
		t.Fatalf("score: exit %d: %s", code, stderr)
	}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var v scoreLine
		if err := json.Unmarshal([]byte(l), &v); err != nil || v.Score == nil || v.Error != "" {
			t.Fatalf("line %q: %v", l, err)
		}
		// P(yes)/(P(yes)+P(no)) = 0.8/(0.8+0.2)
		if d := *v.Score - 0.8; d > 1e-6 || d < -1e-6 {
			t.Fatalf("score %v, want 0.8", *v.Score)
		}
	}

	run := filepath.Join(t.TempDir(), "run")
	code, _, stderr = runCLI(t, tiny(run, "--replay", "vlmrb", "--scorer", "openai",
		"--vlm-base-url", base, "--vlm-model", "test-vlm")...)
	if code != 0 {
		t.Fatalf("train: exit %d: %s", code, stderr)
	}
	rows, err := rundir.ReadMetricsJSONL(filepath.Join(run, "metrics.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	scored := 0.0
	for _, r := range rows {
		scored = max(scored, r.Values["vlm/clips_scored"])
	}
	if scored == 0 || calls.Load() == 0 {
		t.Fatalf("no clip scored through the server (calls %d)", calls.Load())
	}
}

// ratingServer answers ERL-VLM rating requests in the chat-completions
// format with a JSON-schema enum answer: "Good" for every image, after
// checking the request carries temperature 0, the enum and a PNG frame.
func ratingServer(t *testing.T, calls *atomic.Int64) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model          string          `json:"model"`
			Temperature    *float64        `json:"temperature"`
			Messages       json.RawMessage `json:"messages"`
			ResponseFormat json.RawMessage `json:"response_format"`
		}
		if r.URL.Path != "/v1/chat/completions" || json.NewDecoder(r.Body).Decode(&req) != nil || req.Model != "test-vlm" ||
			req.Temperature == nil || *req.Temperature != 0 || !strings.Contains(string(req.ResponseFormat), `"enum":["Bad","Good"]`) ||
			!strings.Contains(string(req.Messages), "data:image/png;base64,") {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprint(w, `{"id":"chatcmpl-2","object":"chat.completion","created":1702685778,"model":"test-vlm",
"choices":[{"index":0,"message":{"role":"assistant","content":"{\"rating\": \"Good\"}"},"finish_reason":"stop"}],
"usage":{"prompt_tokens":90,"completion_tokens":6,"total_tokens":96}}`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// ERL-VLM with the OpenAI rater: every scheduled rating goes through the
// server and lands in the dataset.
func TestTrainERLVLMWithOpenAIRater(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	srv := ratingServer(t, &calls)
	dir := t.TempDir()
	cfgPath := writeConfig(t, dir, "reward_model: {first: 100, every: 100, per_session: 10, budget: 20, frame_size: 32, cnn_size: 24, ensemble: 1, batch: 16, epochs: 1, workers: 2, per_episode: 10}")
	out := filepath.Join(dir, "run")
	code, stdout, stderr := runCLI(t, tiny(out, "--config", cfgPath, "--reward", "erlvlm", "--rater", "openai", "--rating-classes", "2",
		"--vlm-base-url", srv.URL+"/v1", "--vlm-model", "test-vlm")...)
	if code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	rows, err := rundir.ReadMetricsJSONL(filepath.Join(out, "metrics.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var rated, failed float64
	for _, r := range rows {
		rated, failed = max(rated, r.Values["reward/rated"]), max(failed, r.Values["reward/failed"])
	}
	if rated != 20 || failed != 0 || calls.Load() != 20 {
		t.Fatalf("rated %v, failed %v, server calls %d; want 20, 0, 20", rated, failed, calls.Load())
	}
}

// A grid source asks the server with the DoorKey prompt and the grid's
// mission, with the tile frames as images.
func TestScoreGridWithOpenAIServer(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	inner := chatServer(t, &calls)
	defer inner.Close()
	var mu sync.Mutex
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(b))
		inner.Config.Handler.ServeHTTP(w, r)
	}))
	defer srv.Close()
	code, out, stderr := runCLI(t, "score", "--source", "sim:doorkey-6x6", "--scorer", "openai", "--clips", "2",
		"--size", "64x64", "--vlm-base-url", srv.URL+"/v1", "--vlm-model", "test-vlm", "--json")
	if code != 0 {
		t.Fatalf("score: exit %d: %s", code, stderr)
	}
	if n := strings.Count(strings.TrimSpace(out), "\n") + 1; n != 2 || calls.Load() != 2 {
		t.Fatalf("%d lines, %d server calls; want 2 and 2:\n%s", n, calls.Load(), out)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, b := range bodies {
		for _, want := range []string{"grid-world game", grid.Mission} {
			if !strings.Contains(b, want) {
				t.Errorf("request lacks %q: %.300s…", want, b)
			}
		}
	}
}
