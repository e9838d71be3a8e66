package vlmclient

import (
	"context"
	"encoding/json"
	"image"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const testKey = "sk-unit-SECRET-abcdef0123456789"

// recorder is a local server that records each request's body and
// Authorization header and answers with reply.
type recorder struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []map[string]any
	auths  []string
}

func newRecorder(t *testing.T, reply func(w http.ResponseWriter, body map[string]any, n int)) *recorder {
	rec := &recorder{}
	rec.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		rec.mu.Lock()
		rec.bodies = append(rec.bodies, body)
		rec.auths = append(rec.auths, r.Header.Get("Authorization"))
		n := len(rec.bodies)
		rec.mu.Unlock()
		reply(w, body, n)
	}))
	t.Cleanup(rec.Close)
	return rec
}

func newClient(t *testing.T, cfg Config) *Client {
	t.Helper()
	if cfg.BackoffBase == 0 {
		cfg.BackoffBase, cfg.BackoffMax = time.Millisecond, 2*time.Millisecond
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func okJSON(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"choices":[{"message":{"content":"Yes"}}]}`)
}

// TestTemperature: a zero temperature is added (request structs drop it);
// never for a model that accepts only its default; and a server that
// rejects one gets the request again without it, for good.
func TestTemperature(t *testing.T) {
	t.Parallel()
	zero := 0.0
	rec := newRecorder(t, func(w http.ResponseWriter, body map[string]any, n int) {
		if _, ok := body["temperature"]; ok && body["model"] == "picky" {
			w.WriteHeader(400)
			_, _ = io.WriteString(w, `{"error":{"message":"Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported.","type":"invalid_request_error","param":"temperature","code":"unsupported_value"}}`)
			return
		}
		okJSON(w)
	})
	c := newClient(t, Config{BaseURL: rec.URL + "/v1"})
	ctx := context.Background()
	for _, model := range []string{"qwen", "gpt-5-mini", "picky", "picky"} {
		if _, err := c.Do(ctx, Request{Path: "/chat/completions", Body: map[string]any{"model": model}, Temperature: &zero}, nil); err != nil {
			t.Fatalf("%s: %v", model, err)
		}
	}
	want := []struct {
		model string
		temp  bool
	}{{"qwen", true}, {"gpt-5-mini", false}, {"picky", true}, {"picky", false}, {"picky", false}}
	if len(rec.bodies) != len(want) {
		t.Fatalf("%d requests, want %d", len(rec.bodies), len(want))
	}
	for i, w := range want {
		temp, ok := rec.bodies[i]["temperature"]
		if rec.bodies[i]["model"] != w.model || ok != w.temp || (ok && temp.(float64) != 0) {
			t.Errorf("request %d: %v, want model %s with temperature 0: %v", i, rec.bodies[i], w.model, w.temp)
		}
	}
}

// TestHostKeys: the key goes to the base URL's host, a HostKeys key to its
// own host, and nothing to a third host.
func TestHostKeys(t *testing.T) {
	t.Parallel()
	other := newRecorder(t, func(w http.ResponseWriter, body map[string]any, n int) { okJSON(w) })
	third := newRecorder(t, func(w http.ResponseWriter, body map[string]any, n int) { okJSON(w) })
	base := newRecorder(t, func(w http.ResponseWriter, body map[string]any, n int) {
		target := other.URL
		if n == 2 {
			target = third.URL
		}
		w.Header().Set("Location", target+"/v1/embeddings")
		w.WriteHeader(http.StatusTemporaryRedirect)
	})
	c := newClient(t, Config{BaseURL: base.URL + "/v1", APIKey: testKey, HostKeys: map[string]string{other.URL: "other-key-123"}})
	for range 2 {
		if _, err := c.Do(context.Background(), Request{Path: "/embeddings", Body: map[string]any{"model": "m"}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if base.auths[0] != "Bearer "+testKey || other.auths[0] != "Bearer other-key-123" || third.auths[0] != "" {
		t.Fatalf("Authorization: base %q, other %q, third %q", base.auths[0], other.auths[0], third.auths[0])
	}
	if s := c.Config().String(); strings.Contains(s, testKey) || strings.Contains(s, "other-key-123") {
		t.Fatalf("Config.String leaks a key: %s", s)
	}
}

// TestEnvKey: $OPENAI_API_KEY goes only to $OPENAI_BASE_URL's host.
func TestEnvKey(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", testKey)
	t.Setenv("OPENAI_BASE_URL", "http://vlm.example:8000/v1")
	if k := EnvKey("http://vlm.example:8000/v1"); k != testKey {
		t.Errorf("same host: %q", k)
	}
	if k := EnvKey("http://embed.example:9000/v1"); k != "" {
		t.Errorf("another host got the key: %q", k)
	}
	t.Setenv("OPENAI_BASE_URL", "")
	if k := EnvKey("http://127.0.0.1:8000/v1"); k != testKey {
		t.Errorf("no OPENAI_BASE_URL: %q, want the key for the configured server", k)
	}
}

// TestCache: a repeated request is answered from the cache without a
// request and without consulting the breaker; failures are not cached.
func TestCache(t *testing.T) {
	t.Parallel()
	var fail atomic.Bool
	rec := newRecorder(t, func(w http.ResponseWriter, body map[string]any, n int) {
		if fail.Load() {
			w.WriteHeader(500)
			return
		}
		okJSON(w)
	})
	c := newClient(t, Config{BaseURL: rec.URL + "/v1", CacheSize: 2, BreakerThreshold: 1, BreakerCooldown: time.Hour})
	ctx := context.Background()
	req := func(m string) Request { return Request{Path: "/chat/completions", Body: map[string]any{"model": m}} }
	var out struct{ Choices []any }
	if res, err := c.Do(ctx, req("a"), &out); err != nil || res.Cached || res.Attempts != 1 {
		t.Fatalf("first: %+v %v", res, err)
	}
	fail.Store(true)
	if _, err := c.Do(ctx, req("b"), nil); Kind(err) != KindHTTP {
		t.Fatalf("failing call: %v", err) // opens the breaker (threshold 1)
	}
	out.Choices = nil
	if res, err := c.Do(ctx, req("a"), &out); err != nil || !res.Cached || len(out.Choices) != 1 {
		t.Fatalf("cached call: %+v %v %v", res, err, out)
	}
	if _, err := c.Do(ctx, req("b"), nil); Kind(err) != KindBreaker {
		t.Fatalf("uncached call with the breaker open: %v", err)
	}
	if st := c.Stats(); st.Requests != 2 || st.CacheHits != 1 || st.BreakerOpens != 1 || st.BreakerDenied != 1 {
		t.Fatalf("stats %+v", st)
	}
}

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		v  string
		d  time.Duration
		ok bool
	}{
		{"", 0, false},
		{"3", 3 * time.Second, true},
		{"0.5", 500 * time.Millisecond, true},
		{"-1", 0, false},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0, true},
		{"soon", 0, false},
	} {
		d, ok := RetryAfter(http.Header{"Retry-After": {tc.v}}, now)
		if d != tc.d || ok != tc.ok {
			t.Errorf("%q: %v %v, want %v %v", tc.v, d, ok, tc.d, tc.ok)
		}
	}
}

// TestBackoffBounds: retry n waits within [d/2, d], d = base·2^n capped.
func TestBackoffBounds(t *testing.T) {
	t.Parallel()
	b := newBackoff(100*time.Millisecond, time.Second)
	for n, d := range []time.Duration{100, 200, 400, 800, 1000, 1000} {
		d *= time.Millisecond
		for range 100 {
			if w := b.delay(n); w < d/2 || w > d {
				t.Fatalf("retry %d waited %v, want within [%v, %v]", n, w, d/2, d)
			}
		}
	}
}

func TestPNGDataURL(t *testing.T) {
	t.Parallel()
	u, err := PNGDataURL(image.NewRGBA(image.Rect(0, 0, 2, 2)))
	if err != nil || !strings.HasPrefix(u, "data:image/png;base64,iVBORw0KGgo") {
		t.Fatalf("%.40s %v", u, err)
	}
}

func TestBadBaseURL(t *testing.T) {
	t.Parallel()
	_, err := New(Config{BaseURL: "ftp://user:" + testKey + "@x/v1"})
	if Kind(err) != KindInput || strings.Contains(err.Error(), testKey) {
		t.Fatalf("%v", err)
	}
}
