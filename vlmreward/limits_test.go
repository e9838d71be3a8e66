package vlmreward

import (
	"context"
	"errors"
	"fmt"
	"image"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/vlmrb/vlmrb/internal/vlmhttp"
)

const limitsKey = "sk-test-LEAKME-0987654321"

// TestRaterAndEmbedderRedactAndCap runs ERL-VLM's rater and VLM-RM's
// embedder against real local servers that echo the key in a 401 body and
// that answer with 200 MB: errors carry neither the key nor more than the
// cap, and too-large answers are not retried.
func TestRaterAndEmbedderRedactAndCap(t *testing.T) {
	const total = 200 << 20
	var sent, requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if strings.HasPrefix(r.URL.Path, "/echo/") {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(401)
			fmt.Fprintf(w, `{"error":{"message":"Incorrect API key provided: %s","type":"invalid_request_error","code":"invalid_api_key"}}`, r.Header.Get("Authorization"))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		n, _ := w.Write([]byte(`{"data":[{"embedding":[`))
		sent.Add(int64(n))
		chunk := []byte(strings.Repeat("0.1,", 16<<10))
		for sent.Load() < total {
			n, err := w.Write(chunk)
			sent.Add(int64(n))
			if err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	img := image.NewRGBA(image.Rect(0, 0, 8, 8))
	ctx := context.Background()

	rater := func(base string) *OpenAIRater {
		r, err := NewOpenAIRater(OpenAIRaterConfig{BaseURL: srv.URL + base, Model: "m", APIKey: limitsKey, Classes: 3, MaxRetries: 2, Backoff: 1})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	emb := func(base string) *HTTPEmbedder {
		e, err := NewHTTPEmbedder(srv.URL+base, "clip", limitsKey)
		if err != nil {
			t.Fatal(err)
		}
		e.MaxRetries, e.Backoff = 2, 1
		return e
	}

	_, err := rater("/echo/v1").Rate(ctx, &Query{Image: img, Task: "reach"})
	checkRedacted(t, "rater 401", err)
	_, err = emb("/echo/v1").EmbedTexts(ctx, []string{"a robot"})
	checkRedacted(t, "embedder 401", err)

	for name, call := range map[string]func() error{
		"rater":    func() error { _, err := rater("/v1").Rate(ctx, &Query{Image: img, Task: "reach"}); return err },
		"embedder": func() error { _, err := emb("/v1").EmbedImages(ctx, []image.Image{img}); return err },
	} {
		sent.Store(0)
		requests.Store(0)
		err := call()
		if !errors.Is(err, vlmhttp.ErrTooLarge) {
			t.Fatalf("%s against a 200 MB answer: %v, want ErrTooLarge", name, err)
		}
		if n := requests.Load(); n != 1 {
			t.Fatalf("%s: %d requests, want 1 (too large is not retried)", name, n)
		}
		if n := sent.Load(); n >= total {
			t.Fatalf("%s: all %d bytes sent: read past the cap", name, n)
		}
	}
}

func checkRedacted(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error", what)
	}
	if strings.Contains(err.Error(), "LEAKME") {
		t.Fatalf("%s: key in the error: %v", what, err)
	}
	if !strings.Contains(err.Error(), "401") {
		t.Fatalf("%s: the status was lost: %v", what, err)
	}
}
