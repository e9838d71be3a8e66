package vlmprio

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vlmrb/vlmrb/replay"
)

const testKey = "sk-test-SECRET-1234567890"

// vlmServer is a local chat-completions server. handle decides each reply
// from the decoded request and the 1-based request number.
type vlmServer struct {
	t      *testing.T
	srv    *httptest.Server
	client *http.Client
	n      atomic.Int64
	mu     sync.Mutex
	reqs   []map[string]any
	times  []time.Time
	handle func(w http.ResponseWriter, r *http.Request, body map[string]any, n int64)
}

func newVLMServer(t *testing.T, handle func(w http.ResponseWriter, r *http.Request, body map[string]any, n int64)) *vlmServer {
	v := &vlmServer{t: t, handle: handle}
	v.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := v.n.Add(1)
		if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		if got := r.Header.Get("Authorization"); got != "Bearer "+testKey {
			t.Errorf("Authorization header %q, want the bearer key", got)
		}
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Errorf("request body is not JSON: %v", err)
		}
		v.mu.Lock()
		v.reqs = append(v.reqs, body)
		v.times = append(v.times, time.Now())
		v.mu.Unlock()
		v.handle(w, r, body, n)
	}))
	tr := &http.Transport{}
	v.client = &http.Client{Transport: tr}
	t.Cleanup(func() {
		v.srv.CloseClientConnections()
		v.srv.Close()
		tr.CloseIdleConnections()
	})
	return v
}

func (v *vlmServer) scorer(t *testing.T, cfg OpenAIConfig) *OpenAIScorer {
	t.Helper()
	cfg.BaseURL = v.srv.URL + "/v1"
	cfg.APIKey = testKey
	if cfg.Model == "" {
		cfg.Model = "Qwen/Qwen2.5-VL-3B-Instruct"
	}
	cfg.HTTPClient = v.client
	if cfg.BackoffBase == 0 {
		cfg.BackoffBase = time.Millisecond
		cfg.BackoffMax = 4 * time.Millisecond
	}
	if cfg.CacheSize == 0 {
		cfg.CacheSize = -1
	}
	s, err := NewOpenAIScorer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (v *vlmServer) requests() []map[string]any {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]map[string]any(nil), v.reqs...)
}

// fixture loads a JSON fixture from testdata as a generic map.
func fixture(t testing.TB, name string) map[string]any {
	t.Helper()
	raw, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return m
}

type tok struct {
	token   string
	logprob float64
}

// logprobsReply builds a response from the official logprobs fixture with
// the answer tokens replaced: content[i] is the sampled token tops[i][0]
// with top alternatives tops[i].
func logprobsReply(t testing.TB, answer string, tops ...[]tok) map[string]any {
	m := fixture(t, "openai_chat_logprobs_response.json")
	ch := m["choices"].([]any)[0].(map[string]any)
	ch["message"].(map[string]any)["content"] = answer
	var content []any
	for _, top := range tops {
		var alts []any
		for _, a := range top {
			alts = append(alts, map[string]any{"token": a.token, "logprob": a.logprob, "bytes": []byte(a.token)})
		}
		content = append(content, map[string]any{"token": top[0].token, "logprob": top[0].logprob, "bytes": []byte(top[0].token), "top_logprobs": alts})
	}
	ch["logprobs"] = map[string]any{"content": content}
	return m
}

// textReply builds a response from the official image-input fixture (no
// logprobs) with the given message content.
func textReply(t testing.TB, content string) map[string]any {
	m := fixture(t, "openai_chat_image_input_response.json")
	m["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)["content"] = content
	return m
}

// vllmExtras adds the extra fields vLLM/SGLang send (synthesized from
// research/ecosystem.md §A.5).
func vllmExtras(m map[string]any) map[string]any {
	m["prompt_logprobs"] = nil
	m["kv_transfer_params"] = nil
	ch := m["choices"].([]any)[0].(map[string]any)
	ch["stop_reason"] = nil
	ch["message"].(map[string]any)["reasoning_content"] = nil
	ch["message"].(map[string]any)["tool_calls"] = []any{}
	m["usage"].(map[string]any)["prompt_tokens_details"] = nil
	return m
}

// ollamaExtras adds the fields Ollama's /v1 endpoint sends.
func ollamaExtras(m map[string]any) map[string]any {
	m["system_fingerprint"] = "fp_ollama"
	m["model"] = "qwen3-vl:8b"
	return m
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func testClip() *Clip {
	c := gradientClip(32, 96, 72)
	c.Task = "push the red puck onto the green goal"
	c.Family = "push"
	c.Refs = []replay.Ref{{Slot: 1, Gen: 1}}
	return c
}

func lp(p float64) float64 { return math.Log(p) }

// checkRequest verifies the wire request: model, prompt with task text,
// JPEG data URL images of the right size and count, logprobs, temperature 0.
func checkRequest(t *testing.T, body map[string]any, model string, enc Encoding, wantLogprobs bool) {
	t.Helper()
	if body["model"] != model {
		t.Errorf("model %v, want %s", body["model"], model)
	}
	temp, ok := body["temperature"]
	if !ok {
		t.Error("request has no temperature: the server default (0.8–1.0) would apply")
	} else if temp.(float64) != 0 {
		t.Errorf("temperature %v, want 0", temp)
	}
	msgs := body["messages"].([]any)
	parts := msgs[0].(map[string]any)["content"].([]any)
	text := parts[0].(map[string]any)
	if text["type"] != "text" || !strings.Contains(text["text"].(string), "push the red puck onto the green goal") {
		t.Errorf("first part is not the prompt with the task text: %v", text)
	}
	enc = enc.withDefaults()
	wantN, wantW, wantH := 1, 0, 0
	if enc.Layout == ImageParts {
		wantN, wantW, wantH = enc.Frames, enc.Width, enc.Height
	} else {
		wantW, wantH = enc.SheetSize(enc.Frames)
	}
	if got := len(parts) - 1; got != wantN {
		t.Fatalf("%d image parts, want %d", got, wantN)
	}
	for _, p := range parts[1:] {
		pm := p.(map[string]any)
		if pm["type"] != "image_url" {
			t.Fatalf("part type %v", pm["type"])
		}
		img := decodeDataURL(t, pm["image_url"].(map[string]any)["url"].(string))
		if b := img.Bounds(); b.Dx() != wantW || b.Dy() != wantH {
			t.Errorf("image %v, want %dx%d", b, wantW, wantH)
		}
	}
	if wantLogprobs {
		if body["logprobs"] != true {
			t.Errorf("logprobs not requested: %v", body["logprobs"])
		}
		if n, _ := body["top_logprobs"].(float64); n < 2 {
			t.Errorf("top_logprobs %v, want ≥ 2", body["top_logprobs"])
		}
	} else {
		rf, _ := body["response_format"].(map[string]any)
		if rf["type"] != "json_schema" {
			t.Errorf("response_format %v, want json_schema", body["response_format"])
		}
	}
}

func TestOpenAIScoresFromLogprobs(t *testing.T) {
	checkNoLeak(t)
	// P over variants: "Yes" 0.6, " yes" 0.1, "No" 0.2, "no" 0.05, "Maybe" 0.05
	wantScore := (0.6 + 0.1) / (0.6 + 0.1 + 0.2 + 0.05)
	yesTop := []tok{{"Yes", lp(0.6)}, {"No", lp(0.2)}, {" yes", lp(0.1)}, {"no", lp(0.05)}, {"Maybe", lp(0.05)}}
	tests := []struct {
		name  string
		enc   Encoding
		reply map[string]any
		want  float64
	}{
		{"openai contact sheet", Encoding{}, logprobsReply(t, "Yes", yesTop), wantScore},
		{"vllm parts", Encoding{Layout: ImageParts, Frames: 4, Width: 64, Height: 48}, vllmExtras(logprobsReply(t, "Yes", yesTop)), wantScore},
		{"ollama", Encoding{Frames: 6}, ollamaExtras(logprobsReply(t, "Yes", yesTop)), wantScore},
		// a preamble token first: the first position naming yes/no counts
		{"json-shaped answer", Encoding{}, logprobsReply(t, `{"answer":"No"}`, []tok{{`{"`, lp(0.99)}}, []tok{{"answer", lp(0.99)}},
			[]tok{{`":"`, lp(0.99)}}, []tok{{"No", lp(0.7)}, {"Yes", lp(0.3)}}), 0.3},
		// the sampled token missing from its top list still counts
		{"sampled not in top", Encoding{}, logprobsReply(t, "No", []tok{{"No", lp(0.5)}, {"Yes", lp(0.4)}}), 0.4 / 0.9},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := newVLMServer(t, func(w http.ResponseWriter, r *http.Request, body map[string]any, n int64) {
				writeJSON(w, 200, tc.reply)
			})
			s := v.scorer(t, OpenAIConfig{Encoding: tc.enc})
			sc, err := s.Score(context.Background(), testClip())
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(sc.Value-tc.want) > 1e-6 {
				t.Fatalf("score %v, want %v", sc.Value, tc.want)
			}
			if sc.Method != "logprobs" || sc.Attempts != 1 || sc.PromptTokens == 0 {
				t.Fatalf("score %+v", sc)
			}
			reqs := v.requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			checkRequest(t, reqs[0], "Qwen/Qwen2.5-VL-3B-Instruct", tc.enc, true)
		})
	}
}

func TestOpenAIYesNoScoreNoSampledDoubleCount(t *testing.T) {
	t.Parallel()
	got, ok := YesNoScore(nil)
	if ok {
		t.Fatalf("empty logprobs gave %v", got)
	}
}

// TestOpenAIFallbackToJSON: a server that returns no logprobs (LM Studio)
// gets a JSON-schema question instead, and later calls go straight to JSON.
func TestOpenAIFallbackToJSON(t *testing.T) {
	checkNoLeak(t)
	for _, mode := range []AnswerMode{AnswerJSONEnum, AnswerJSONInt} {
		t.Run(mode.String(), func(t *testing.T) {
			v := newVLMServer(t, func(w http.ResponseWriter, r *http.Request, body map[string]any, n int64) {
				rf, _ := body["response_format"].(map[string]any)
				if rf == nil {
					writeJSON(w, 200, textReply(t, "Yes.")) // logprobs ignored
					return
				}
				js := rf["json_schema"].(map[string]any)
				props := js["schema"].(map[string]any)["properties"].(map[string]any)
				if mode == AnswerJSONEnum {
					enum := props["answer"].(map[string]any)["enum"].([]any)
					if fmt.Sprint(enum) != "[yes no]" {
						t.Errorf("enum %v", enum)
					}
					writeJSON(w, 200, vllmExtras(textReply(t, `{"answer": "yes"}`)))
				} else {
					if props["score"].(map[string]any)["type"] != "integer" {
						t.Errorf("score schema %v", props["score"])
					}
					writeJSON(w, 200, textReply(t, `{"score": 7}`))
				}
			})
			s := v.scorer(t, OpenAIConfig{Fallback: mode})
			want := map[AnswerMode]float64{AnswerJSONEnum: 1, AnswerJSONInt: 0.7}[mode]
			for i := range 2 {
				sc, err := s.Score(context.Background(), testClip())
				if err != nil {
					t.Fatal(err)
				}
				if sc.Value != want || sc.Method != mode.String() {
					t.Fatalf("call %d: score %+v, want %v by %s", i, sc, want, mode)
				}
			}
			reqs := v.requests()
			if len(reqs) != 3 { // logprobs try, JSON retry, then JSON only
				t.Fatalf("%d requests, want 3", len(reqs))
			}
			checkRequest(t, reqs[0], "Qwen/Qwen2.5-VL-3B-Instruct", Encoding{}, true)
			checkRequest(t, reqs[1], "Qwen/Qwen2.5-VL-3B-Instruct", Encoding{}, false)
			checkRequest(t, reqs[2], "Qwen/Qwen2.5-VL-3B-Instruct", Encoding{}, false)
			if !s.Stats().JSONFallback {
				t.Fatal("Stats does not report the JSON fallback")
			}
		})
	}
}

// TestOpenAIFaults drives every failure mode and checks the error kind,
// that retries are bounded, and that the key never shows in the error.
func TestOpenAIFaults(t *testing.T) {
	checkNoLeak(t)
	const retries = 2
	html := "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>"
	tests := []struct {
		name     string
		handle   func(w http.ResponseWriter, r *http.Request, n int64)
		kind     ErrorKind
		attempts int // requests the server must see
		ok       bool
	}{
		{"500 then ok", func(w http.ResponseWriter, r *http.Request, n int64) {
			if n == 1 {
				writeJSON(w, 500, map[string]any{"error": map[string]any{"message": "engine died", "type": "InternalServerError", "param": nil, "code": 500}})
				return
			}
			writeJSON(w, 200, logprobsReply(t, "Yes", []tok{{"Yes", lp(0.9)}, {"No", lp(0.1)}}))
		}, "", 2, true},
		{"503 always", func(w http.ResponseWriter, r *http.Request, n int64) {
			w.WriteHeader(503)
			io.WriteString(w, `{"object":"error","message":"overloaded","type":"ServiceUnavailable","code":503}`)
		}, KindServer, retries + 1, false},
		{"html proxy page 502", func(w http.ResponseWriter, r *http.Request, n int64) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(502)
			io.WriteString(w, html)
		}, KindServer, retries + 1, false},
		{"html page with 200", func(w http.ResponseWriter, r *http.Request, n int64) {
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, html)
		}, KindMalformed, 1, false},
		{"truncated json", func(w http.ResponseWriter, r *http.Request, n int64) {
			io.WriteString(w, `{"id": "x", "choices": [ {"index": 0, "message": `)
		}, KindMalformed, retries + 1, false}, // a body cut short is malformed, and retried as transient
		{"invalid json", func(w http.ResponseWriter, r *http.Request, n int64) {
			io.WriteString(w, `{"id": "x", "choices": nope}`)
		}, KindMalformed, 1, false},
		{"empty choices", func(w http.ResponseWriter, r *http.Request, n int64) {
			m := fixture(t, "openai_chat_logprobs_response.json")
			m["choices"] = []any{}
			writeJSON(w, 200, m)
		}, KindMalformed, 1, false},
		{"neither yes nor no", func(w http.ResponseWriter, r *http.Request, n int64) {
			writeJSON(w, 200, logprobsReply(t, "Maybe", []tok{{"Maybe", lp(0.6)}, {"Perhaps", lp(0.3)}}, []tok{{".", lp(0.99)}}))
		}, KindNoScore, 1, false},
		{"connection reset", func(w http.ResponseWriter, r *http.Request, n int64) {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
		}, KindNetwork, retries + 1, false},
		{"timeout", func(w http.ResponseWriter, r *http.Request, n int64) {
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		}, KindTimeout, retries + 1, false},
		{"401 bad key", func(w http.ResponseWriter, r *http.Request, n int64) {
			writeJSON(w, 401, map[string]any{"error": map[string]any{"message": "Incorrect API key provided", "type": "invalid_request_error", "code": "invalid_api_key"}})
		}, KindClient, 1, false},
		{"429 then ok", func(w http.ResponseWriter, r *http.Request, n int64) {
			if n == 1 {
				w.Header().Set("Retry-After", "0")
				writeJSON(w, 429, map[string]any{"error": map[string]any{"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}})
				return
			}
			writeJSON(w, 200, logprobsReply(t, "No", []tok{{"No", lp(0.8)}, {"Yes", lp(0.2)}}))
		}, "", 2, true},
		{"429 retry-after too long", func(w http.ResponseWriter, r *http.Request, n int64) {
			w.Header().Set("Retry-After", "3600")
			writeJSON(w, 429, map[string]any{"error": map[string]any{"message": "Rate limit reached", "code": "rate_limit_exceeded"}})
		}, KindRateLimit, 1, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := newVLMServer(t, func(w http.ResponseWriter, r *http.Request, body map[string]any, n int64) { tc.handle(w, r, n) })
			// The per-attempt deadline only matters to the timeout case (1 s,
			// so that even under load the server reads each attempt before
			// the client gives up on it); every other case answers at once
			// and gets 10 s, so a slow machine does not turn it into a
			// timeout and a retry.
			timeout := 10 * time.Second
			if tc.kind == KindTimeout {
				timeout = time.Second
			}
			s := v.scorer(t, OpenAIConfig{MaxRetries: retries, Timeout: timeout, Answer: AnswerLogprobs})
			sc, err := s.Score(context.Background(), testClip())
			if got := v.n.Load(); got != int64(tc.attempts) {
				t.Errorf("server saw %d requests, want %d", got, tc.attempts)
			}
			if tc.ok {
				if err != nil {
					t.Fatalf("error %v, want a score", err)
				}
				if sc.Attempts != tc.attempts {
					t.Fatalf("Attempts %d, want %d", sc.Attempts, tc.attempts)
				}
				return
			}
			if err == nil {
				t.Fatalf("got score %+v, want a %s error", sc, tc.kind)
			}
			if k := KindOf(err); k != tc.kind {
				t.Fatalf("error kind %s, want %s (%v)", k, tc.kind, err)
			}
			if strings.Contains(err.Error(), testKey) || strings.Contains(err.Error(), "<html>") {
				t.Fatalf("error leaks the key or a whole HTML page: %v", err)
			}
		})
	}
}

// TestOpenAIRetryAfterHonoured: the retry after a 429 waits at least the
// Retry-After delay (a lower bound, so load cannot break it).
func TestOpenAIRetryAfterHonoured(t *testing.T) {
	checkNoLeak(t)
	v := newVLMServer(t, func(w http.ResponseWriter, r *http.Request, body map[string]any, n int64) {
		if n == 1 {
			w.Header().Set("Retry-After", "1")
			writeJSON(w, 429, map[string]any{"error": map[string]any{"message": "slow down", "code": "rate_limit_exceeded"}})
			return
		}
		writeJSON(w, 200, logprobsReply(t, "Yes", []tok{{"Yes", lp(0.9)}, {"No", lp(0.1)}}))
	})
	s := v.scorer(t, OpenAIConfig{})
	if _, err := s.Score(context.Background(), testClip()); err != nil {
		t.Fatal(err)
	}
	v.mu.Lock()
	gap := v.times[1].Sub(v.times[0])
	v.mu.Unlock()
	if gap < time.Second {
		t.Fatalf("retried after %v, Retry-After asked for 1 s", gap)
	}
}

func TestOpenAICircuitBreakerAndCache(t *testing.T) {
	checkNoLeak(t)
	var fail atomic.Bool
	fail.Store(true)
	v := newVLMServer(t, func(w http.ResponseWriter, r *http.Request, body map[string]any, n int64) {
		if fail.Load() {
			w.WriteHeader(500)
			return
		}
		writeJSON(w, 200, logprobsReply(t, "Yes", []tok{{"Yes", lp(0.75)}, {"No", lp(0.25)}}))
	})
	s := v.scorer(t, OpenAIConfig{MaxRetries: -1, BreakerThreshold: 2, BreakerCooldown: 500 * time.Millisecond, CacheSize: 16})
	// a fake breaker clock, so a slow machine cannot let the cooldown lapse
	// between the calls below
	var clock atomic.Int64
	clock.Store(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	s.now = func() time.Time { return time.Unix(0, clock.Load()) }
	ctx := context.Background()
	for i := range 2 {
		if _, err := s.Score(ctx, testClip()); KindOf(err) != KindServer {
			t.Fatalf("call %d: %v, want a server error", i, err)
		}
	}
	if _, err := s.Score(ctx, testClip()); KindOf(err) != KindCircuitOpen {
		t.Fatalf("third call: %v, want circuit_open", err)
	}
	if n := v.n.Load(); n != 2 {
		t.Fatalf("open breaker still sent requests: %d", n)
	}
	fail.Store(false)
	clock.Add(int64(600 * time.Millisecond)) // past the cooldown: one probe is allowed
	sc, err := s.Score(ctx, testClip())
	if err != nil || math.Abs(sc.Value-0.75) > 1e-9 {
		t.Fatalf("probe: %+v, %v", sc, err)
	}
	// same content again: served from the cache, no request
	sc, err = s.Score(ctx, testClip())
	if err != nil || !sc.Cached || math.Abs(sc.Value-0.75) > 1e-9 {
		t.Fatalf("cached call: %+v, %v", sc, err)
	}
	if n := v.n.Load(); n != 3 {
		t.Fatalf("%d requests, want 3", n)
	}
	st := s.Stats()
	if st.BreakerOpens != 1 || st.CacheHits != 1 || st.BreakerDenied != 1 {
		t.Fatalf("stats %+v", st)
	}
}

func TestOpenAIConcurrencyLimit(t *testing.T) {
	checkNoLeak(t)
	var inFlight, peak atomic.Int64
	v := newVLMServer(t, func(w http.ResponseWriter, r *http.Request, body map[string]any, n int64) {
		cur := inFlight.Add(1)
		for {
			p := peak.Load()
			if cur <= p || peak.CompareAndSwap(p, cur) {
				break
			}
		}
		time.Sleep(20 * time.Millisecond)
		inFlight.Add(-1)
		writeJSON(w, 200, logprobsReply(t, "Yes", []tok{{"Yes", lp(0.5)}, {"No", lp(0.5)}}))
	})
	s := v.scorer(t, OpenAIConfig{MaxConcurrent: 2})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := testClip()
			c.Task += fmt.Sprint(i) // distinct content
			if _, err := s.Score(context.Background(), c); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if p := peak.Load(); p > 2 {
		t.Fatalf("%d requests in flight, limit 2", p)
	}
}

func TestOpenAIConfigRedactsKey(t *testing.T) {
	t.Parallel()
	cfg := OpenAIConfig{BaseURL: "http://x/v1", Model: "m", APIKey: testKey}
	for _, s := range []string{fmt.Sprint(cfg), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%#v", cfg), cfg.String()} {
		if strings.Contains(s, testKey) {
			t.Fatalf("config formatting leaks the key: %s", s)
		}
	}
	if _, err := NewOpenAIScorer(OpenAIConfig{BaseURL: "http://x/v1"}); err == nil && os.Getenv("OPENAI_MODEL") == "" {
		t.Fatal("no model accepted")
	}
	if _, err := NewOpenAIScorer(OpenAIConfig{BaseURL: "ftp://x", Model: "m"}); err == nil {
		t.Fatal("bad base URL accepted")
	}
}

func TestOpenAICancel(t *testing.T) {
	checkNoLeak(t)
	release := make(chan struct{})
	v := newVLMServer(t, func(w http.ResponseWriter, r *http.Request, body map[string]any, n int64) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	defer close(release)
	s := v.scorer(t, OpenAIConfig{})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	_, err := s.Score(ctx, testClip())
	if KindOf(err) != KindCanceled || !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v (kind %s), want canceled", err, KindOf(err))
	}
}

// TestOpenAIReasoningModelFallsBack: go-openai refuses logprobs for
// reasoning models client-side; AnswerAuto then asks for a JSON answer, and
// no temperature is forced on a model that accepts only the default.
func TestOpenAIReasoningModelFallsBack(t *testing.T) {
	checkNoLeak(t)
	v := newVLMServer(t, func(w http.ResponseWriter, r *http.Request, body map[string]any, n int64) {
		if _, ok := body["temperature"]; ok {
			t.Errorf("temperature sent to a reasoning model: %v", body["temperature"])
		}
		writeJSON(w, 200, textReply(t, `{"answer":"no"}`))
	})
	s := v.scorer(t, OpenAIConfig{Model: "gpt-5-mini"})
	sc, err := s.Score(context.Background(), testClip())
	if err != nil || sc.Value != 0 || sc.Method != "json-enum" {
		t.Fatalf("score %+v, err %v", sc, err)
	}
	if n := v.n.Load(); n != 1 {
		t.Fatalf("%d requests, want 1 (the logprobs request never leaves the client)", n)
	}
}
