package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/vlmrb/vlmrb/train"
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
	rows, err := train.ReadMetricsJSONL(filepath.Join(run, "metrics.jsonl"))
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
