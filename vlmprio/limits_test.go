package vlmprio

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/vlmrb/vlmrb/internal/vlmhttp"
)

// TestOpenAIKeyNeverInErrors: a server that echoes the bearer token in its
// 401 body (as OpenAI does, partly masked; proxies do it whole) must not
// get the key into the error text.
func TestOpenAIKeyNeverInErrors(t *testing.T) {
	checkNoLeak(t)
	v := newVLMServer(t, func(w http.ResponseWriter, r *http.Request, _ map[string]any, _ int64) {
		writeJSON(w, 401, map[string]any{"error": map[string]any{
			"message": "Incorrect API key provided: " + r.Header.Get("Authorization") + ". You can find your API key at https://platform.openai.com/account/api-keys.",
			"type":    "invalid_request_error", "param": nil, "code": "invalid_api_key"}})
	})
	s := v.scorer(t, OpenAIConfig{})
	_, err := s.Score(context.Background(), testClip())
	if err == nil {
		t.Fatal("a 401 scored")
	}
	if KindOf(err) != KindClient {
		t.Fatalf("kind %s, want %s: %v", KindOf(err), KindClient, err)
	}
	msg := fmt.Sprintf("%v %+v %#v", err, err, s.Config())
	if strings.Contains(msg, testKey) || strings.Contains(msg, "SECRET") {
		t.Fatalf("the key leaked: %s", msg)
	}
	if !strings.Contains(err.Error(), "Incorrect API key provided") {
		t.Fatalf("the server's reason was lost: %v", err)
	}
	// credentials in the base URL never print either
	c := OpenAIConfig{BaseURL: "http://bob:pw-hunter2@127.0.0.1:1/v1?api_key=qk-998877", Model: "m"}
	if s := c.String(); strings.Contains(s, "hunter2") || strings.Contains(s, "qk-998877") {
		t.Fatalf("String() = %s", s)
	}
}

// TestOpenAIResponseTooLarge: a server answering with 200 MB is cut off at
// the cap after one request, with kind too_large and no retry.
func TestOpenAIResponseTooLarge(t *testing.T) {
	checkNoLeak(t)
	const total = 200 << 20
	for _, declared := range []bool{false, true} {
		t.Run(fmt.Sprintf("content-length=%v", declared), func(t *testing.T) {
			var sent atomic.Int64
			v := newVLMServer(t, func(w http.ResponseWriter, r *http.Request, _ map[string]any, _ int64) {
				w.Header().Set("Content-Type", "application/json")
				if declared {
					w.Header().Set("Content-Length", fmt.Sprint(total))
				}
				// one endless JSON string: valid as far as it goes
				n, _ := w.Write([]byte(`{"id":"`))
				sent.Add(int64(n))
				chunk := []byte(strings.Repeat("x", 64<<10))
				for sent.Load() < total {
					n, err := w.Write(chunk)
					sent.Add(int64(n))
					if err != nil {
						return // the client hung up at its cap
					}
				}
			})
			s := v.scorer(t, OpenAIConfig{MaxRetries: 3})
			_, err := s.Score(context.Background(), testClip())
			if KindOf(err) != KindTooLarge || !errors.Is(err, vlmhttp.ErrTooLarge) {
				t.Fatalf("err %v (kind %s), want %s", err, KindOf(err), KindTooLarge)
			}
			if got := s.Stats().Requests; got != 1 {
				t.Fatalf("%d requests: a too-large answer must not be retried", got)
			}
			// the server may fill socket buffers beyond the cap, never the body
			if n := sent.Load(); n >= total {
				t.Fatalf("the whole %d bytes were sent: the client read past its cap", n)
			}
		})
	}
}
