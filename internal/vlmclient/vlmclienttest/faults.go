package vlmclienttest

import (
	"context"
	_ "embed" // fixtures
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vlmrb/vlmrb/internal/vlmclient"
)

// Wire-format answers a client accepts, derived from the official OpenAI
// API examples (research/fixtures): a chat completion whose first token is
// "Yes" with top_logprobs Yes 0.9 / No 0.1, a chat completion whose
// content is {"rating": "Good"}, and an embeddings list with one vector.
var (
	//go:embed testdata/chat_logprobs_yes.json
	ChatLogprobsYes []byte
	//go:embed testdata/chat_rating_good.json
	ChatRatingGood []byte
	//go:embed testdata/embeddings.json
	Embeddings []byte
)

// Endpoints of the OpenAI wire format.
const (
	ChatPath       = "/v1/chat/completions"
	EmbeddingsPath = "/v1/embeddings"
)

// Key is the API key every target is configured with; it must appear in
// no error and reach no host but the configured one.
const Key = "sk-faulttest-SECRET-0123456789abcdef"

// Settings are what Run asks a target's client to use.
type Settings struct {
	BaseURL          string        // the test server's API root (…/v1)
	Key              string        // the API key, for BaseURL's host only
	Retries          int           // retries after the first attempt (0: none)
	Timeout          time.Duration // per attempt
	Backoff          time.Duration // first backoff
	BreakerThreshold int           // consecutive failed calls that open the breaker (0: no breaker)
}

// Target is one client under test.
type Target struct {
	Name string
	Path string // ChatPath or EmbeddingsPath
	OK   []byte // a 200 body the client accepts (ChatLogprobsYes, ChatRatingGood, Embeddings)
	Cap  int64  // the client's response cap (bytes)
	// New builds the client for s and returns one logical call (one
	// scoring, one rating, one embedding of one image).
	New func(t *testing.T, s Settings) func(ctx context.Context) error
}

// Timing bounds. The lower bounds are the specification (a retry never
// comes before the announced delay); the upper bounds leave room for a
// loaded machine.
const (
	retries    = 2
	backoff    = 5 * time.Millisecond
	okTimeout  = 10 * time.Second       // per attempt in rows that do not time out
	hangLimit  = 300 * time.Millisecond // per attempt in the timeout row
	slack      = 5 * time.Second        // allowed beyond an announced delay (a loaded CI machine)
	dateSkew   = 50 * time.Millisecond  // clock reading error allowed on an HTTP-date
	htmlPage   = "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>"
	rateLimit  = `{"error":{"message":"Rate limit reached for requests","type":"requests","param":null,"code":"rate_limit_exceeded"}}`
	serverErr  = `{"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}`
	overloaded = `{"object":"error","message":"overloaded","type":"ServiceUnavailable","param":null,"code":503}`
)

// server is a local OpenAI-compatible server whose n-th reply comes from
// reply; it records arrival times and checks every request.
type server struct {
	*httptest.Server
	t     *testing.T
	tg    Target
	n     atomic.Int64
	mu    sync.Mutex
	times []time.Time
	sent  atomic.Int64 // body bytes written by streaming replies
	reply func(s *server, w http.ResponseWriter, r *http.Request, n int64)
}

func newServer(t *testing.T, tg Target, reply func(s *server, w http.ResponseWriter, r *http.Request, n int64)) *server {
	s := &server{t: t, tg: tg, reply: reply}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(func() {
		s.CloseClientConnections()
		s.Close()
	})
	return s
}

func (s *server) handle(w http.ResponseWriter, r *http.Request) {
	n := s.n.Add(1)
	s.mu.Lock()
	s.times = append(s.times, time.Now())
	s.mu.Unlock()
	if r.Method != http.MethodPost || r.URL.Path != s.tg.Path {
		s.t.Errorf("%s %s, want POST %s", r.Method, r.URL.Path, s.tg.Path)
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	if got := r.Header.Get("Authorization"); got != "Bearer "+Key {
		s.t.Errorf("Authorization %q on the configured host, want the bearer key", got)
	}
	var body map[string]json.RawMessage
	raw, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(raw, &body); err != nil || body["model"] == nil {
		s.t.Errorf("request body is not an OpenAI request with a model: %.200s", raw)
	}
	if s.tg.Path == ChatPath && body["messages"] == nil {
		s.t.Errorf("chat request without messages: %.200s", raw)
	}
	s.reply(s, w, r, n)
}

// gap returns the time between the arrivals of requests i and i+1.
func (s *server) gap(i int) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.times) <= i+1 {
		return -1
	}
	return s.times[i+1].Sub(s.times[i])
}

func (s *server) arrival(i int) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.times[i]
}

func write(w http.ResponseWriter, status int, ctype, body string) {
	w.Header().Set("Content-Type", ctype)
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

// row is one fault: how the server answers the n-th request and what the
// client must do.
type row struct {
	name     string
	reply    func(s *server, w http.ResponseWriter, r *http.Request, n int64)
	timeout  time.Duration // per attempt (default okTimeout)
	requests int64         // requests the server must see
	kind     string        // final error's vlmclient.Kind ("" : success)
	status   int           // final error's HTTP status (0: not checked)
	check    func(t *testing.T, s *server, err error)
}

func rows(tg Target) []row {
	ok := string(tg.OK)
	var dateMu sync.Mutex
	var date time.Time // the Retry-After date announced in the date row
	return []row{
		{name: "429 Retry-After seconds then ok", reply: func(s *server, w http.ResponseWriter, r *http.Request, n int64) {
			if n == 1 {
				w.Header().Set("Retry-After", "1")
				write(w, http.StatusTooManyRequests, "application/json", rateLimit)
				return
			}
			write(w, 200, "application/json", ok)
		}, requests: 2, check: func(t *testing.T, s *server, err error) {
			if g := s.gap(0); g < time.Second || g > time.Second+slack {
				t.Errorf("retried %v after a 429 with Retry-After: 1, want within [1 s, %v]", g, time.Second+slack)
			}
		}},
		{name: "503 Retry-After HTTP-date then ok", reply: func(s *server, w http.ResponseWriter, r *http.Request, n int64) {
			if n == 1 {
				d := time.Now().Add(2 * time.Second).UTC().Truncate(time.Second)
				dateMu.Lock()
				date = d
				dateMu.Unlock()
				w.Header().Set("Retry-After", d.Format(http.TimeFormat))
				write(w, http.StatusServiceUnavailable, "application/json", overloaded)
				return
			}
			write(w, 200, "application/json", ok)
		}, requests: 2, check: func(t *testing.T, s *server, err error) {
			dateMu.Lock()
			d := date
			dateMu.Unlock()
			if at := s.arrival(1); at.Before(d.Add(-dateSkew)) || at.After(d.Add(slack)) {
				t.Errorf("retry arrived at %v, Retry-After announced %v", at.Format(time.StampMilli), d.Format(time.StampMilli))
			}
		}},
		{name: "429 Retry-After over the limit gives up", reply: func(s *server, w http.ResponseWriter, r *http.Request, n int64) {
			w.Header().Set("Retry-After", "3600")
			write(w, http.StatusTooManyRequests, "application/json", rateLimit)
		}, requests: 1, kind: vlmclient.KindHTTP, status: http.StatusTooManyRequests},
		{name: "500 then ok", reply: func(s *server, w http.ResponseWriter, r *http.Request, n int64) {
			if n == 1 {
				write(w, http.StatusInternalServerError, "application/json", serverErr)
				return
			}
			write(w, 200, "application/json", ok)
		}, requests: 2},
		{name: "503 always", reply: func(s *server, w http.ResponseWriter, r *http.Request, n int64) {
			write(w, http.StatusServiceUnavailable, "application/json", overloaded)
		}, requests: retries + 1, kind: vlmclient.KindHTTP, status: http.StatusServiceUnavailable},
		{name: "timeout", timeout: hangLimit, reply: func(s *server, w http.ResponseWriter, r *http.Request, n int64) {
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
		}, requests: retries + 1, kind: vlmclient.KindTimeout},
		{name: "truncated body", reply: func(s *server, w http.ResponseWriter, r *http.Request, n int64) {
			write(w, 200, "application/json", ok[:len(ok)/2])
		}, requests: retries + 1, kind: vlmclient.KindParse},
		{name: "connection cut mid-body then ok", reply: func(s *server, w http.ResponseWriter, r *http.Request, n int64) {
			if n == 1 {
				conn, buf, err := w.(http.Hijacker).Hijack()
				if err != nil {
					s.t.Error(err)
					return
				}
				_, _ = fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(ok), ok[:len(ok)/2])
				_ = buf.Flush()
				_ = conn.Close()
				return
			}
			write(w, 200, "application/json", ok)
		}, requests: 2},
		{name: "HTML error page", reply: func(s *server, w http.ResponseWriter, r *http.Request, n int64) {
			write(w, http.StatusBadGateway, "text/html", htmlPage)
		}, requests: retries + 1, kind: vlmclient.KindHTTP, status: http.StatusBadGateway, check: func(t *testing.T, s *server, err error) {
			if strings.Contains(err.Error(), "<html") || !strings.Contains(err.Error(), "502") {
				t.Errorf("error should name the status, not quote the page: %v", err)
			}
		}},
		{name: "HTML page with 200", reply: func(s *server, w http.ResponseWriter, r *http.Request, n int64) {
			write(w, 200, "text/html", htmlPage)
		}, requests: 1, kind: vlmclient.KindParse},
		{name: "oversize body", reply: func(s *server, w http.ResponseWriter, r *http.Request, n int64) {
			w.Header().Set("Content-Type", "application/json")
			chunk := []byte(strings.Repeat(" ", 64<<10))
			for s.sent.Load() < 4*tg.Cap {
				m, err := w.Write(chunk)
				s.sent.Add(int64(m))
				if err != nil {
					return
				}
			}
		}, requests: 1, kind: vlmclient.KindTooLarge, check: func(t *testing.T, s *server, err error) {
			if s.sent.Load() >= 4*tg.Cap {
				t.Errorf("the client read the whole %d-byte answer; cap %d", s.sent.Load(), tg.Cap)
			}
		}},
		{name: "401 echoes the key", reply: func(s *server, w http.ResponseWriter, r *http.Request, n int64) {
			write(w, http.StatusUnauthorized, "application/json",
				`{"error":{"message":"Incorrect API key provided: `+r.Header.Get("Authorization")+`. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`)
		}, requests: 1, kind: vlmclient.KindHTTP, status: http.StatusUnauthorized},
	}
}

// Run runs the fault table against tg, then the breaker and foreign-host
// checks.
func Run(t *testing.T, tg Target) {
	for _, rw := range rows(tg) {
		t.Run(rw.name, func(t *testing.T) {
			s := newServer(t, tg, rw.reply)
			timeout := rw.timeout
			if timeout == 0 {
				timeout = okTimeout
			}
			call := tg.New(t, Settings{BaseURL: s.URL + "/v1", Key: Key, Retries: retries, Timeout: timeout, Backoff: backoff})
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			err := call(ctx)
			if got := s.n.Load(); got != rw.requests {
				t.Errorf("server saw %d requests, want %d", got, rw.requests)
			}
			if got := vlmclient.Kind(err); got != rw.kind {
				t.Fatalf("error kind %q, want %q (error: %v)", got, rw.kind, err)
			}
			if err != nil {
				noKey(t, err)
				if rw.status != 0 && vlmclient.Status(err) != rw.status {
					t.Errorf("status %d, want %d (%v)", vlmclient.Status(err), rw.status, err)
				}
			}
			if rw.check != nil {
				rw.check(t, s, err)
			}
		})
	}
	t.Run("breaker opens after consecutive failures", func(t *testing.T) {
		s := newServer(t, tg, func(s *server, w http.ResponseWriter, r *http.Request, n int64) {
			write(w, http.StatusInternalServerError, "application/json", serverErr)
		})
		call := tg.New(t, Settings{BaseURL: s.URL + "/v1", Key: Key, Timeout: okTimeout, Backoff: backoff, BreakerThreshold: 2})
		ctx := context.Background()
		for i := range 2 {
			if err := call(ctx); vlmclient.Kind(err) != vlmclient.KindHTTP {
				t.Fatalf("call %d: %v, want an http error", i, err)
			}
		}
		err := call(ctx)
		if vlmclient.Kind(err) != vlmclient.KindBreaker {
			t.Fatalf("third call: %v (kind %q), want %q", err, vlmclient.Kind(err), vlmclient.KindBreaker)
		}
		noKey(t, err)
		if n := s.n.Load(); n != 2 {
			t.Fatalf("the open breaker let requests through: %d, want 2", n)
		}
	})
	t.Run("key not sent to a foreign host", func(t *testing.T) {
		var foreignAuth atomic.Value
		foreignAuth.Store("")
		var foreignN atomic.Int64
		foreign := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			foreignN.Add(1)
			foreignAuth.Store(r.Header.Get("Authorization"))
			write(w, 200, "application/json", string(tg.OK))
		}))
		defer foreign.Close()
		s := newServer(t, tg, func(s *server, w http.ResponseWriter, r *http.Request, n int64) {
			http.Redirect(w, r, foreign.URL+r.URL.Path, http.StatusTemporaryRedirect)
		})
		call := tg.New(t, Settings{BaseURL: s.URL + "/v1", Key: Key, Timeout: okTimeout, Backoff: backoff})
		err := call(context.Background())
		if foreignN.Load() == 0 {
			t.Fatalf("the redirect was not followed (%v): the check saw nothing", err)
		}
		if a := foreignAuth.Load().(string); a != "" {
			t.Fatalf("a host the key was not configured for got Authorization %q", a)
		}
		if err != nil {
			t.Fatalf("redirected call: %v", err)
		}
	})
}

func noKey(t *testing.T, err error) {
	t.Helper()
	for _, s := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err)} {
		if strings.Contains(s, Key) || strings.Contains(s, Key[3:]) {
			t.Fatalf("error leaks the key: %s", s)
		}
	}
}
