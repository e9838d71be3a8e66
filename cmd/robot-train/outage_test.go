package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vlmrb/vlmrb/internal/embedtest"
)

// outageServer answers chat completions with 401 and image embeddings
// with 401; text embeddings come from a working embedding server, so
// VLM-RM can start and then loses its server.
func outageServer(t *testing.T) *httptest.Server {
	emb := embedtest.New(t, "clip")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if strings.HasSuffix(r.URL.Path, "/embeddings") && !bytes.Contains(body, []byte(`"messages"`)) {
			resp, err := http.Post(emb.URL+r.URL.Path, "application/json", bytes.NewReader(body))
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			defer resp.Body.Close()
			w.WriteHeader(resp.StatusCode)
			_, _ = io.Copy(w, resp.Body)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestVLMOutagePolicy: VLM-RB, ERL-VLM and VLM-RM against a server that
// refuses them all keep training to the end (exit 0), warn once per error
// kind and report the outage in the summary; --vlm-required stops the run
// at the first failure instead.
func TestVLMOutagePolicy(t *testing.T) {
	t.Parallel()
	srv := outageServer(t)
	base := srv.URL + "/v1"
	dir := t.TempDir()
	erlCfg := writeConfig(t, dir, "reward_model: {first: 100, every: 50, per_session: 4, budget: 20, frame_size: 32, cnn_size: 24, ensemble: 1, batch: 16, epochs: 1, workers: 2, per_episode: 10}")
	small := filepath.Join(dir, "small.yaml") // small scorer frames: the server refuses them anyway
	if err := os.WriteFile(small, []byte("vlm: {width: 32, height: 32, frames: 4}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, who string
		args      []string
	}{
		{"vlmrb", "VLM-RB scorer", []string{"--config", small, "--replay", "vlmrb", "--scorer", "openai", "--vlm-base-url", base, "--vlm-model", "m", "--render-backend", "soft"}},
		{"erlvlm", "ERL-VLM rater", []string{"--config", erlCfg, "--reward", "erlvlm", "--rater", "openai", "--rating-classes", "2", "--vlm-base-url", base, "--vlm-model", "m", "--render-backend", "soft"}},
		{"vlmrm", "VLM-RM embedder", []string{"--reward", "vlmrm", "--embed-base-url", base, "--embed-model", "clip", "--goal", "red", "--baseline", "blue", "--render-backend", "soft"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "run")
			code, stdout, stderr := runCLI(t, tiny(out, tc.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: a VLM outage stopped training\nstdout %s\nstderr %s", code, stdout, stderr)
			}
			warn := tc.who + ": first client error"
			if n := strings.Count(stderr, warn); n != 1 {
				t.Fatalf("%q warned %d times, want once\n%s", warn, n, stderr)
			}
			if !strings.Contains(stdout, "VLM outage:  "+tc.who+": ") || !strings.Contains(stdout, "client ") {
				t.Fatalf("summary lacks the outage:\n%s", stdout)
			}
			if !strings.Contains(stdout, "finished at env step 200") {
				t.Fatalf("run did not reach its budget:\n%s", stdout)
			}

			out = filepath.Join(t.TempDir(), "required")
			code, stdout, stderr = runCLI(t, tiny(out, append(tc.args, "--vlm-required")...)...)
			if code != exitFailure || !strings.Contains(stderr, "VLM required but failing: "+tc.who+": client error") {
				t.Fatalf("--vlm-required: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
			}
		})
	}
}
