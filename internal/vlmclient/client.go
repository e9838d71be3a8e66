package vlmclient

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vlmrb/vlmrb/internal/redact"
	"github.com/vlmrb/vlmrb/internal/vlmhttp"
)

// Config configures a Client. Zero fields take the defaults noted on each.
type Config struct {
	// BaseURL is the API root including /v1 (required), e.g.
	// http://127.0.0.1:8000/v1. User-info in it is sent as basic
	// credentials to its own host only.
	BaseURL string
	// APIKey is sent as "Authorization: Bearer <key>" to BaseURL's host
	// and to no other host (empty: no Authorization header).
	APIKey string
	// HostKeys adds keys for other hosts, keyed by any URL of the host
	// (see HostKey); a host absent here and not BaseURL's gets no key.
	HostKeys map[string]string

	Timeout       time.Duration // per attempt (default 60 s)
	MaxRetries    int           // retries after the first attempt on 429, 408, 5xx, timeouts and network errors (0: none)
	BackoffBase   time.Duration // first backoff (default 500 ms); doubles per retry, with equal jitter
	BackoffMax    time.Duration // backoff cap (default 20 s)
	MaxRetryAfter time.Duration // a longer Retry-After gives up instead of waiting (default 60 s)
	MaxConcurrent int           // requests in flight at once (0: unlimited)

	// BreakerThreshold consecutive failed calls open the circuit breaker
	// (0: no breaker); it stays open for BreakerCooldown (default 30 s),
	// then lets one probe call through.
	BreakerThreshold int
	BreakerCooldown  time.Duration

	CacheSize int   // cached successful responses (0: no cache)
	MaxBytes  int64 // response cap in bytes (default vlmhttp.MaxChatBytes)

	// HTTPClient is the underlying client (default: one on vlmhttp's shared
	// transport). It is copied, never changed.
	HTTPClient *http.Client
	// Now is the breaker's and Retry-After's clock (default time.Now).
	Now func() time.Time
}

// String describes the configuration with every key redacted.
func (c Config) String() string {
	key := "unset"
	if c.APIKey != "" {
		key = "set (redacted)"
	}
	return fmt.Sprintf("vlmclient{base_url=%s api_key=%s host_keys=%d}", redact.URL(c.BaseURL), key, len(c.HostKeys))
}

// GoString redacts the keys for %#v too.
func (c Config) GoString() string { return c.String() }

// EnvKey returns $OPENAI_API_KEY for a client of baseURL when that key is
// meant for baseURL's host: when $OPENAI_BASE_URL is unset or names the
// same host. A key exported for one server is not sent to another.
func EnvKey(baseURL string) string {
	envBase := os.Getenv("OPENAI_BASE_URL")
	if envBase != "" && !SameHost(envBase, baseURL) {
		return ""
	}
	return os.Getenv("OPENAI_API_KEY")
}

// Stats counts a client's traffic.
type Stats struct {
	Requests      int64 // HTTP requests sent
	Retries       int64 // requests that were retries
	CacheHits     int64 // calls answered from the cache
	BreakerOpens  int64 // times the breaker opened
	BreakerDenied int64 // calls refused while it was open
}

// Request is one logical call (one or more HTTP attempts).
type Request struct {
	// Path is appended to the base URL's path: "/chat/completions",
	// "/embeddings".
	Path string
	// Body is encoded as JSON; a []byte or json.RawMessage is sent as is.
	Body any
	// Temperature, when set, is put into the body unless the body names
	// one already, the model accepts only its default (ReasoningModel), or
	// the server has rejected a temperature for this model before: then
	// the request is resent once without it and the model remembered.
	Temperature *float64
}

// Result describes a successful call.
type Result struct {
	Attempts int  // HTTP requests made (0 for a cache hit)
	Cached   bool // the response came from the cache
}

// Client sends JSON requests to one OpenAI-compatible server. Safe for
// concurrent use.
type Client struct {
	cfg     Config
	base    *url.URL // without credentials: what errors print
	secrets []string
	hc      *http.Client
	sem     chan struct{}
	brk     *breaker
	cache   *lru
	bo      *backoff
	noTemp  sync.Map // model name → true: the server rejected a temperature

	requests, retries, cacheHits atomic.Int64
}

// New returns a client for cfg.
func New(cfg Config) (*Client, error) {
	if cfg.Timeout <= 0 {
		cfg.Timeout = 60 * time.Second
	}
	cfg.MaxRetries = max(cfg.MaxRetries, 0)
	if cfg.BackoffBase <= 0 {
		cfg.BackoffBase = 500 * time.Millisecond
	}
	if cfg.BackoffMax <= 0 {
		cfg.BackoffMax = 20 * time.Second
	}
	if cfg.MaxRetryAfter <= 0 {
		cfg.MaxRetryAfter = 60 * time.Second
	}
	if cfg.BreakerCooldown <= 0 {
		cfg.BreakerCooldown = 30 * time.Second
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = vlmhttp.MaxChatBytes
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, &Error{Kind: KindInput, Msg: fmt.Sprintf("base URL %q must start with http:// or https:// and name a host (e.g. http://127.0.0.1:8000/v1)", redact.URL(cfg.BaseURL))}
	}
	_, creds := redact.StripURL(cfg.BaseURL)
	c := &Client{cfg: cfg, base: u, bo: newBackoff(cfg.BackoffBase, cfg.BackoffMax)}
	c.secrets = append([]string{cfg.APIKey}, creds.Secrets()...)
	keys := map[string]string{hostKey(u): cfg.APIKey}
	for h, k := range cfg.HostKeys {
		if hk := HostKey(h); hk != "" {
			keys[hk] = k
			c.secrets = append(c.secrets, k)
		}
	}
	capped := vlmhttp.Client(cfg.HTTPClient, cfg.MaxBytes)
	hc := *capped
	hc.Transport = &keyTransport{next: capped.Transport, keys: keys}
	c.hc = &hc
	if cfg.MaxConcurrent > 0 {
		c.sem = make(chan struct{}, cfg.MaxConcurrent)
	}
	if cfg.BreakerThreshold > 0 {
		c.brk = &breaker{threshold: cfg.BreakerThreshold, cooldown: cfg.BreakerCooldown}
	}
	if cfg.CacheSize > 0 {
		c.cache = newLRU(cfg.CacheSize)
	}
	return c, nil
}

// Config returns the resolved configuration (String redacts the keys).
func (c *Client) Config() Config { return c.cfg }

// Stats returns a snapshot of the traffic counters.
func (c *Client) Stats() Stats {
	st := Stats{Requests: c.requests.Load(), Retries: c.retries.Load(), CacheHits: c.cacheHits.Load()}
	if c.brk != nil {
		st.BreakerOpens, st.BreakerDenied = c.brk.stats()
	}
	return st
}

// Redact masks the client's keys and URL credentials (and anything that
// looks like a credential) in err's message, keeping its chain.
func (c *Client) Redact(err error) error { return redact.Error(err, c.secrets...) }

// Do sends req and decodes a 2xx response body into out (out nil: the
// body is discarded). Failures are *Error values.
func (c *Client) Do(ctx context.Context, req Request, out any) (Result, error) {
	u := *c.base
	u.Path = strings.TrimRight(u.Path, "/") + req.Path
	target := u.String()
	op := "POST " + redact.URL(target)
	if err := ctx.Err(); err != nil {
		return Result{}, c.ctxErr(ctx, op, err, 0)
	}
	body, err := encode(req.Body)
	if err != nil {
		return Result{}, &Error{Kind: KindInput, Op: op, Msg: "encoding request", Err: err}
	}
	model := modelOf(body)
	tempSent := false
	if req.Temperature != nil && !ReasoningModel(model) {
		if _, rejected := c.noTemp.Load(model); !rejected {
			body, tempSent = withTemperature(body, *req.Temperature)
		}
	}
	var key [32]byte
	if c.cache != nil {
		key = cacheKey(target, body)
		if data, ok := c.cache.get(key); ok && decode(data, out) == nil {
			c.cacheHits.Add(1)
			return Result{Cached: true}, nil
		}
	}
	if c.brk != nil && !c.brk.allow(c.cfg.Now()) {
		return Result{}, &Error{Kind: KindBreaker, Op: op, Msg: "circuit breaker open after repeated failures; calls paused"}
	}
	res, data, err := c.attempts(ctx, target, op, body, tempSent, model, out)
	if c.brk != nil {
		c.brk.done(c.cfg.Now(), err)
	}
	if err == nil && c.cache != nil {
		c.cache.put(key, data)
	}
	return res, err
}

// attempts runs the retry loop of one call.
func (c *Client) attempts(ctx context.Context, target, op string, body []byte, tempSent bool, model string, out any) (Result, []byte, error) {
	var res Result
	for attempt := 0; ; attempt++ {
		status, header, data, err := c.send(ctx, target, body)
		res.Attempts++
		var e *Error
		retry := false
		switch {
		case err != nil:
			e, retry = c.transportErr(ctx, op, err)
		case status/100 == 2:
			derr := decode(data, out)
			if derr == nil {
				return res, data, nil
			}
			// a body cut short (a proxy or server dying mid-answer) is
			// transient; well-formed text that is not the answer is not
			e = &Error{Kind: KindParse, Op: op, Msg: "decoding response (" + c.redact(summary(data)) + ")", Err: derr}
			retry = truncated(derr)
		case status == http.StatusBadRequest && tempSent && bytes.Contains(bytes.ToLower(data), []byte("temperature")):
			// the server accepts only the model's default temperature:
			// resend without one, and never send one for this model again
			c.noTemp.Store(model, true)
			body, _ = withoutTemperature(body)
			tempSent = false
			continue
		default:
			e = &Error{Kind: KindHTTP, Status: status, Op: op, Msg: c.redact(summary(data))}
			retry = status == http.StatusTooManyRequests || status == http.StatusRequestTimeout || status >= 500
		}
		e.Attempts = res.Attempts
		if e.Kind == KindCanceled || (e.Kind == KindTimeout && ctx.Err() != nil) {
			return res, nil, e
		}
		wait := c.bo.delay(attempt)
		if ra, ok := RetryAfter(header, c.cfg.Now()); ok && e.Kind == KindHTTP {
			if ra > c.cfg.MaxRetryAfter {
				retry = false
				e.Msg += fmt.Sprintf(" (Retry-After %v is over the %v limit)", ra, c.cfg.MaxRetryAfter)
			}
			wait = max(wait, ra)
		}
		if !retry || attempt >= c.cfg.MaxRetries {
			return res, nil, e
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return res, nil, c.ctxErr(ctx, op, ctx.Err(), res.Attempts)
		case <-t.C:
		}
		c.retries.Add(1)
	}
}

// send makes one HTTP request under the concurrency limit and the
// per-attempt timeout, and reads the (capped) body.
func (c *Client) send(ctx context.Context, target string, body []byte) (int, http.Header, []byte, error) {
	if c.sem != nil {
		select {
		case c.sem <- struct{}{}:
		case <-ctx.Done():
			return 0, nil, nil, ctx.Err()
		}
		defer func() { <-c.sem }()
	}
	actx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return 0, nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	c.requests.Add(1)
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	data, err := io.ReadAll(resp.Body) // capped by the vlmhttp transport
	cerr := resp.Body.Close()
	if err == nil {
		err = cerr
	}
	return resp.StatusCode, resp.Header, data, err
}

// transportErr classifies a failed exchange (no status, or a body that
// could not be read) and says whether to retry it.
func (c *Client) transportErr(ctx context.Context, op string, err error) (*Error, bool) {
	if ctx.Err() != nil {
		return c.ctxErr(ctx, op, err, 0), false
	}
	err = c.Redact(err)
	var ne net.Error
	switch {
	case errors.Is(err, vlmhttp.ErrTooLarge):
		return &Error{Kind: KindTooLarge, Op: op, Err: err}, false
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return &Error{Kind: KindTimeout, Op: op, Msg: fmt.Sprintf("no complete answer within %v", c.cfg.Timeout), Err: err}, true
	}
	return &Error{Kind: KindNetwork, Op: op, Err: err}, true
}

// ctxErr is the error of a call the caller's ctx ended: timeout for a
// passed deadline, canceled otherwise.
func (c *Client) ctxErr(ctx context.Context, op string, err error, attempts int) *Error {
	kind := KindCanceled
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		kind = KindTimeout
	}
	return &Error{Kind: kind, Op: op, Err: c.Redact(err), Attempts: attempts}
}

func (c *Client) redact(s string) string { return redact.String(s, c.secrets...) }

func encode(body any) ([]byte, error) {
	switch b := body.(type) {
	case []byte:
		return b, nil
	case json.RawMessage:
		return b, nil
	}
	return json.Marshal(body)
}

func decode(data []byte, out any) error {
	if out == nil {
		return nil
	}
	return json.Unmarshal(data, out)
}

// truncated reports a JSON error caused by input that stops early.
func truncated(err error) bool {
	var se *json.SyntaxError
	return errors.Is(err, io.ErrUnexpectedEOF) || (errors.As(err, &se) && strings.Contains(se.Error(), "unexpected end"))
}

func cacheKey(target string, body []byte) [32]byte {
	h := sha256.New()
	var n [8]byte
	for _, part := range [][]byte{[]byte(target), body} {
		binary.LittleEndian.PutUint64(n[:], uint64(len(part)))
		h.Write(n[:])
		h.Write(part)
	}
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// apiMessage reads the message of an error body in the OpenAI form
// {"error": {"message": …}}, vLLM's {"object": "error", "message": …} or
// FastAPI's {"detail": …}.
func apiMessage(b []byte) string {
	var m struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  any             `json:"detail"`
	}
	if json.Unmarshal(b, &m) != nil {
		return ""
	}
	var inner struct {
		Message string `json:"message"`
	}
	if len(m.Error) > 0 && json.Unmarshal(m.Error, &inner) == nil && inner.Message != "" {
		return inner.Message
	}
	var s string
	if len(m.Error) > 0 && json.Unmarshal(m.Error, &s) == nil && s != "" {
		return s
	}
	if m.Message != "" {
		return m.Message
	}
	if d, ok := m.Detail.(string); ok {
		return d
	}
	return ""
}
