package vlmprio

import (
	"bytes"
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/sashabaranov/go-openai/jsonschema"

	"github.com/vlmrb/vlmrb/internal/redact"
	"github.com/vlmrb/vlmrb/internal/vlmhttp"
)

// AnswerMode says how the OpenAI scorer reads a score from the server.
type AnswerMode int

const (
	// AnswerAuto asks for top_logprobs and, when the server returns none
	// (LM Studio, some proxies), switches to the Fallback JSON mode for this
	// and all later calls.
	AnswerAuto AnswerMode = iota
	// AnswerLogprobs reads P(yes)/(P(yes)+P(no)) from top_logprobs only.
	AnswerLogprobs
	// AnswerJSONEnum constrains the answer with response_format json_schema
	// to {"answer": "yes"|"no"}; yes scores 1, no 0.
	AnswerJSONEnum
	// AnswerJSONInt constrains the answer to {"score": 0..10}; the score is n/10.
	AnswerJSONInt
)

func (m AnswerMode) String() string {
	switch m {
	case AnswerAuto:
		return "auto"
	case AnswerLogprobs:
		return "logprobs"
	case AnswerJSONEnum:
		return "json-enum"
	case AnswerJSONInt:
		return "json-int"
	}
	return fmt.Sprintf("AnswerMode(%d)", int(m))
}

// ParseAnswerMode parses "auto", "logprobs", "json-enum" or "json-int".
func ParseAnswerMode(s string) (AnswerMode, error) {
	for _, m := range []AnswerMode{AnswerAuto, AnswerLogprobs, AnswerJSONEnum, AnswerJSONInt} {
		if m.String() == s {
			return m, nil
		}
	}
	return 0, fmt.Errorf("vlmprio: unknown answer mode %q (want auto, logprobs, json-enum or json-int)", s)
}

// OpenAIConfig configures an OpenAIScorer. Zero fields take the defaults
// noted on each field.
type OpenAIConfig struct {
	// BaseURL is the server's API root including /v1
	// (default $OPENAI_BASE_URL, else https://api.openai.com/v1).
	BaseURL string
	// Model is the served model name (required; default $OPENAI_MODEL).
	Model string
	// APIKey is sent as a bearer token (default $OPENAI_API_KEY; empty is
	// fine for local servers). It is never logged or written to disk.
	APIKey string

	Prompts  Prompts  // prompt templates per family (default DefaultPrompts)
	Encoding Encoding // how frames are packed into images (default DefaultEncoding)

	Answer   AnswerMode // default AnswerAuto
	Fallback AnswerMode // JSON mode AnswerAuto falls back to (default AnswerJSONEnum)
	// TopLogprobs is the number of alternatives requested per token
	// (default 10; OpenAI allows ≤ 20, vLLM's default server cap is 20).
	TopLogprobs int
	// MaxTokens caps the answer length (default 8 for logprobs, 32 for JSON).
	MaxTokens int
	// Detail is the image_url detail hint ("low", "high", "auto"; default "low").
	Detail string

	Timeout       time.Duration // per HTTP request (default 60 s)
	MaxRetries    int           // retries after the first attempt on 429/5xx/timeouts/network errors (default 4; negative: none)
	BackoffBase   time.Duration // first backoff (default 500 ms); doubles per retry, with jitter
	BackoffMax    time.Duration // backoff cap (default 20 s)
	MaxRetryAfter time.Duration // a longer Retry-After gives up instead of waiting (default 60 s)
	MaxConcurrent int           // requests in flight at once (default 4)

	// BreakerThreshold consecutive failed calls open the circuit breaker
	// (default 5; negative disables it); it stays open for BreakerCooldown
	// (default 30 s), then lets one probe call through.
	BreakerThreshold int
	BreakerCooldown  time.Duration

	CacheSize int // content-hash cache entries (default 4096; negative disables)

	// HTTPClient is the underlying client (default: a new http.Client; the
	// per-request timeout is applied through the request context).
	HTTPClient *http.Client
}

// String describes the configuration with the API key redacted.
func (c OpenAIConfig) String() string {
	key := "unset"
	if c.APIKey != "" {
		key = "set (redacted)"
	}
	return fmt.Sprintf("openai{base_url=%s model=%s api_key=%s answer=%s}", redact.URL(c.BaseURL), c.Model, key, c.Answer)
}

// GoString redacts the key for %#v too.
func (c OpenAIConfig) GoString() string { return c.String() }

func (c OpenAIConfig) withDefaults() OpenAIConfig {
	if c.BaseURL == "" {
		c.BaseURL = os.Getenv("OPENAI_BASE_URL")
	}
	if c.BaseURL == "" {
		c.BaseURL = "https://api.openai.com/v1"
	}
	if c.Model == "" {
		c.Model = os.Getenv("OPENAI_MODEL")
	}
	if c.APIKey == "" {
		c.APIKey = os.Getenv("OPENAI_API_KEY")
	}
	if c.Prompts == nil {
		c.Prompts = DefaultPrompts()
	}
	c.Encoding = c.Encoding.withDefaults()
	if c.Fallback != AnswerJSONInt {
		c.Fallback = AnswerJSONEnum
	}
	if c.TopLogprobs <= 0 {
		c.TopLogprobs = 10
	}
	if c.Detail == "" {
		c.Detail = "low"
	}
	if c.Timeout <= 0 {
		c.Timeout = 60 * time.Second
	}
	if c.MaxRetries == 0 {
		c.MaxRetries = 4
	} else if c.MaxRetries < 0 {
		c.MaxRetries = 0
	}
	if c.BackoffBase <= 0 {
		c.BackoffBase = 500 * time.Millisecond
	}
	if c.BackoffMax <= 0 {
		c.BackoffMax = 20 * time.Second
	}
	if c.MaxRetryAfter <= 0 {
		c.MaxRetryAfter = 60 * time.Second
	}
	if c.MaxConcurrent <= 0 {
		c.MaxConcurrent = 4
	}
	if c.BreakerThreshold == 0 {
		c.BreakerThreshold = 5
	}
	if c.BreakerCooldown <= 0 {
		c.BreakerCooldown = 30 * time.Second
	}
	if c.CacheSize == 0 {
		c.CacheSize = 4096
	}
	return c
}

// OpenAIStats counts the scorer's traffic.
type OpenAIStats struct {
	Requests      int64 // HTTP requests sent
	Retries       int64 // requests that were retries
	CacheHits     int64
	BreakerOpens  int64 // times the breaker opened
	BreakerDenied int64 // calls refused while open
	JSONFallback  bool  // AnswerAuto has switched to JSON answers
}

// OpenAIScorer scores clips with a VLM behind an OpenAI-compatible
// chat-completions endpoint (vLLM, SGLang, Ollama, llama.cpp server,
// LM Studio, OpenAI, Gemini). Safe for concurrent use.
type OpenAIScorer struct {
	cfg    OpenAIConfig
	client *openai.Client
	sem    chan struct{}
	brk    *breaker
	cache  *lru

	noLogprobs atomic.Bool // AnswerAuto saw a response without logprobs

	requests, retries, cacheHits atomic.Int64

	rngMu sync.Mutex
	rng   *rand.Rand

	now func() time.Time // the breaker's clock; time.Now outside tests
}

// NewOpenAIScorer returns a scorer for cfg. It fails when no model is named.
func NewOpenAIScorer(cfg OpenAIConfig) (*OpenAIScorer, error) {
	cfg = cfg.withDefaults()
	if cfg.Model == "" {
		return nil, errors.New("vlmprio: openai scorer needs a model name: set --vlm-model or OPENAI_MODEL")
	}
	if !strings.HasPrefix(cfg.BaseURL, "http://") && !strings.HasPrefix(cfg.BaseURL, "https://") {
		return nil, fmt.Errorf("vlmprio: openai base URL %q must start with http:// or https:// (e.g. http://127.0.0.1:8000/v1)", redact.URL(cfg.BaseURL))
	}
	// every response capped (vlmhttp.MaxChatBytes): a runaway server costs
	// one capped read and a too_large error, never the process's memory
	hc := vlmhttp.Client(cfg.HTTPClient, vlmhttp.MaxChatBytes)
	oc := openai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = cfg.BaseURL
	oc.HTTPClient = videoPartDoer{zeroTemperatureDoer{hc}}
	s := &OpenAIScorer{
		cfg:    cfg,
		client: openai.NewClientWithConfig(oc),
		sem:    make(chan struct{}, cfg.MaxConcurrent),
		rng:    rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0x9e3779b97f4a7c15)),
		now:    time.Now,
	}
	if cfg.BreakerThreshold > 0 {
		s.brk = &breaker{threshold: cfg.BreakerThreshold, cooldown: cfg.BreakerCooldown}
	}
	if cfg.CacheSize > 0 {
		s.cache = newLRU(cfg.CacheSize)
	}
	return s, nil
}

// Config returns the resolved configuration (String redacts the key).
func (s *OpenAIScorer) Config() OpenAIConfig { return s.cfg }

// Stats returns a snapshot of the traffic counters.
func (s *OpenAIScorer) Stats() OpenAIStats {
	st := OpenAIStats{
		Requests:     s.requests.Load(),
		Retries:      s.retries.Load(),
		CacheHits:    s.cacheHits.Load(),
		JSONFallback: s.noLogprobs.Load(),
	}
	if s.brk != nil {
		st.BreakerOpens, st.BreakerDenied = s.brk.stats()
	}
	return st
}

// Score asks the VLM whether the clip shows progress on its task.
func (s *OpenAIScorer) Score(ctx context.Context, c *Clip) (Score, error) {
	if err := ctx.Err(); err != nil {
		return Score{}, &ScoreError{Kind: ctxKind(ctx), Err: err}
	}
	urls, err := EncodeClip(c, s.cfg.Encoding)
	if err != nil {
		return Score{}, &ScoreError{Kind: KindInput, Err: err}
	}
	prompt := s.cfg.Prompts.Render(c.Family, c.Task)
	mode := s.mode()
	key := s.cacheKey(mode, prompt, urls)
	if s.cache != nil {
		if sc, ok := s.cache.get(key); ok {
			s.cacheHits.Add(1)
			sc.Cached, sc.PromptTokens, sc.CompletionTokens, sc.Attempts = true, 0, 0, 0
			return sc, nil
		}
	}
	if s.brk != nil && !s.brk.allow(s.now()) {
		return Score{}, &ScoreError{Kind: KindCircuitOpen, Err: errors.New("circuit breaker open after repeated failures; scoring paused")}
	}
	sc, err := s.scoreMode(ctx, mode, prompt, urls)
	if err != nil && mode == AnswerAuto && KindOf(err) == KindNoScore && errors.Is(err, errNoLogprobs) {
		// the server answered but returned no logprobs: switch to JSON answers
		s.noLogprobs.Store(true)
		var sc2 Score
		sc2, err = s.scoreMode(ctx, s.cfg.Fallback, prompt, urls)
		sc2.PromptTokens += sc.PromptTokens
		sc2.CompletionTokens += sc.CompletionTokens
		sc2.Attempts += sc.Attempts
		sc = sc2
	}
	if s.brk != nil {
		s.brk.done(s.now(), err)
	}
	if err != nil {
		return sc, s.redactErr(err)
	}
	if s.cache != nil {
		s.cache.put(key, sc)
	}
	return sc, nil
}

func (s *OpenAIScorer) mode() AnswerMode {
	if s.cfg.Answer == AnswerAuto && s.noLogprobs.Load() {
		return s.cfg.Fallback
	}
	return s.cfg.Answer
}

func (s *OpenAIScorer) cacheKey(mode AnswerMode, prompt string, urls []string) [32]byte {
	h := sha256.New()
	var n [8]byte
	for _, part := range append([]string{s.cfg.BaseURL, s.cfg.Model, mode.String(), prompt}, urls...) {
		binary.LittleEndian.PutUint64(n[:], uint64(len(part)))
		h.Write(n[:])
		h.Write([]byte(part))
	}
	var k [32]byte
	h.Sum(k[:0])
	return k
}

var errNoLogprobs = errors.New("server returned no logprobs")

// scoreMode runs one logical query (with retries) in one answer mode.
func (s *OpenAIScorer) scoreMode(ctx context.Context, mode AnswerMode, prompt string, urls []string) (Score, error) {
	req := s.request(mode, prompt, urls)
	var sc Score
	for attempt := 0; ; attempt++ {
		resp, err := s.send(ctx, req)
		sc.Attempts++
		if err == nil {
			sc.PromptTokens += resp.Usage.PromptTokens
			sc.CompletionTokens += resp.Usage.CompletionTokens
			v, method, perr := parseAnswer(resp, mode)
			if perr != nil {
				perr.Attempts = sc.Attempts
				return sc, perr
			}
			sc.Value, sc.Method = v, method
			return sc, nil
		}
		if errors.Is(err, openai.ErrReasoningModelLimitationsLogprobs) || errors.Is(err, openai.ErrO1BetaLimitationsLogprobs) { //nolint:staticcheck // older go-openai paths still return the O1 error
			// go-openai refuses logprobs for reasoning models client-side
			return sc, &ScoreError{Kind: KindNoScore, Err: fmt.Errorf("%w: model %s cannot return logprobs", errNoLogprobs, s.cfg.Model), Attempts: sc.Attempts}
		}
		kind, retry := classify(ctx, err)
		wait := s.backoff(attempt)
		if ra, ok := retryAfter(resp.Header()); ok && (kind == KindRateLimit || kind == KindServer) {
			if ra > s.cfg.MaxRetryAfter {
				retry = false
			}
			wait = max(wait, ra)
		}
		if !retry || attempt >= s.cfg.MaxRetries {
			return sc, &ScoreError{Kind: kind, Err: shortErr(err), Attempts: sc.Attempts}
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return sc, &ScoreError{Kind: ctxKind(ctx), Err: ctx.Err(), Attempts: sc.Attempts}
		case <-t.C:
		}
		s.retries.Add(1)
	}
}

// send makes one HTTP request under the concurrency limit and per-request timeout.
func (s *OpenAIScorer) send(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
	select {
	case s.sem <- struct{}{}:
	case <-ctx.Done():
		return openai.ChatCompletionResponse{}, ctx.Err()
	}
	defer func() { <-s.sem }()
	actx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	s.requests.Add(1)
	return s.client.CreateChatCompletion(actx, req)
}

func (s *OpenAIScorer) backoff(attempt int) time.Duration {
	d := s.cfg.BackoffBase << min(attempt, 30)
	if d <= 0 || d > s.cfg.BackoffMax {
		d = s.cfg.BackoffMax
	}
	s.rngMu.Lock()
	j := s.rng.Int64N(int64(d)/2 + 1)
	s.rngMu.Unlock()
	return d/2 + time.Duration(j) // "equal jitter": uniform in [d/2, d]
}

// request builds the chat-completions request. Temperature is 0; go-openai
// drops a zero temperature (omitempty), so zeroTemperatureDoer puts it back.
func (s *OpenAIScorer) request(mode AnswerMode, prompt string, urls []string) openai.ChatCompletionRequest {
	parts := make([]openai.ChatMessagePart, 0, 1+len(urls))
	parts = append(parts, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeText, Text: prompt})
	for _, u := range urls {
		if strings.HasPrefix(u, "data:video/") {
			// renamed to a video_url part by videoPartDoer
			parts = append(parts, openai.ChatMessagePart{Type: "video_url", ImageURL: &openai.ChatMessageImageURL{URL: u}})
			continue
		}
		parts = append(parts, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeImageURL,
			ImageURL: &openai.ChatMessageImageURL{URL: u, Detail: openai.ImageURLDetail(s.cfg.Detail)}})
	}
	req := openai.ChatCompletionRequest{
		Model:    s.cfg.Model,
		Messages: []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, MultiContent: parts}},
	}
	var maxTokens int
	switch mode {
	case AnswerJSONEnum, AnswerJSONInt:
		maxTokens = max(s.cfg.MaxTokens, 32)
		req.ResponseFormat = &openai.ChatCompletionResponseFormat{
			Type:       openai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{Name: "answer", Schema: answerSchema(mode), Strict: true},
		}
		if mode == AnswerJSONEnum {
			req.Messages[0].MultiContent[0].Text += ` Reply as JSON: {"answer": "yes"} or {"answer": "no"}.`
		} else {
			req.Messages[0].MultiContent[0].Text += ` Reply as JSON {"score": N}, N an integer from 0 (clearly no) to 10 (clearly yes).`
		}
	default:
		maxTokens = s.cfg.MaxTokens
		if maxTokens <= 0 {
			maxTokens = 8
		}
		req.LogProbs = true
		req.TopLogProbs = s.cfg.TopLogprobs
	}
	if reasoningModel(s.cfg.Model) {
		// these reject max_tokens and spend completion tokens on reasoning
		req.MaxCompletionTokens = max(maxTokens, 1024)
	} else {
		// max_tokens, not max_completion_tokens: vLLM, SGLang, Ollama and
		// llama.cpp servers read this one
		req.MaxTokens = maxTokens //nolint:staticcheck // deprecated by OpenAI for reasoning models only
	}
	return req
}

func answerSchema(mode AnswerMode) *jsonschema.Definition {
	if mode == AnswerJSONInt {
		return &jsonschema.Definition{
			Type: jsonschema.Object,
			Properties: map[string]jsonschema.Definition{
				"score": {Type: jsonschema.Integer, Description: "0 = clearly no … 10 = clearly yes"},
			},
			Required:             []string{"score"},
			AdditionalProperties: false,
		}
	}
	return &jsonschema.Definition{
		Type: jsonschema.Object,
		Properties: map[string]jsonschema.Definition{
			"answer": {Type: jsonschema.String, Enum: []string{"yes", "no"}},
		},
		Required:             []string{"answer"},
		AdditionalProperties: false,
	}
}

// parseAnswer extracts the score from a successful response.
func parseAnswer(resp openai.ChatCompletionResponse, mode AnswerMode) (float64, string, *ScoreError) {
	if len(resp.Choices) == 0 {
		return 0, "", scoreErr(KindMalformed, "response has no choices")
	}
	ch := resp.Choices[0]
	switch mode {
	case AnswerJSONEnum, AnswerJSONInt:
		return parseJSONAnswer(ch.Message.Content, mode)
	}
	if ch.LogProbs == nil || len(ch.LogProbs.Content) == 0 {
		return 0, "", &ScoreError{Kind: KindNoScore, Err: errNoLogprobs}
	}
	v, ok := YesNoScore(ch.LogProbs.Content)
	if !ok {
		return 0, "", scoreErr(KindNoScore, "logprobs name neither yes nor no (answer %q)", truncate(ch.Message.Content, 80))
	}
	return v, "logprobs", nil
}

func parseJSONAnswer(content string, mode AnswerMode) (float64, string, *ScoreError) {
	s := strings.TrimSpace(content)
	s = strings.TrimPrefix(s, "```json")
	s = strings.TrimPrefix(s, "```")
	s = strings.TrimSuffix(strings.TrimSpace(s), "```")
	if mode == AnswerJSONInt {
		var a struct {
			Score *float64 `json:"score"`
		}
		if err := json.Unmarshal([]byte(s), &a); err != nil || a.Score == nil {
			return 0, "", scoreErr(KindNoScore, "answer %q is not {\"score\": 0..10}", truncate(content, 80))
		}
		n := *a.Score
		if n != math.Trunc(n) || n < 0 || n > 10 {
			return 0, "", scoreErr(KindNoScore, "score %v is not an integer in 0..10", n)
		}
		return n / 10, "json-int", nil
	}
	var a struct {
		Answer string `json:"answer"`
	}
	if err := json.Unmarshal([]byte(s), &a); err != nil {
		return 0, "", scoreErr(KindNoScore, "answer %q is not {\"answer\": \"yes\"|\"no\"}", truncate(content, 80))
	}
	switch normToken(a.Answer) {
	case "yes":
		return 1, "json-enum", nil
	case "no":
		return 0, "json-enum", nil
	}
	return 0, "", scoreErr(KindNoScore, "answer %q is neither yes nor no", truncate(a.Answer, 40))
}

// YesNoScore returns P(yes)/(P(yes)+P(no)) at the first answer position
// whose token or top alternatives are a yes/no variant ("Yes", " yes",
// "YES", "▁Yes", "\"yes", …). Probabilities of all variants at that
// position are summed; the sampled token counts when it is missing from
// its top list. ok is false when no position names yes or no.
func YesNoScore(content []openai.LogProb) (score float64, ok bool) {
	for _, lp := range content {
		var pYes, pNo float64
		seenSampled := false
		add := func(tok string, logprob float64) {
			switch normToken(tok) {
			case "yes":
				pYes += math.Exp(logprob)
			case "no":
				pNo += math.Exp(logprob)
			}
		}
		for _, t := range lp.TopLogProbs {
			if t.Token == lp.Token {
				seenSampled = true
			}
			add(t.Token, t.LogProb)
		}
		if !seenSampled {
			add(lp.Token, lp.LogProb)
		}
		if pYes+pNo > 0 && !math.IsNaN(pYes+pNo) && !math.IsInf(pYes+pNo, 0) {
			return pYes / (pYes + pNo), true
		}
	}
	return 0, false
}

// normToken lower-cases a token and strips whitespace, SentencePiece and
// BPE space markers, quotes and punctuation.
func normToken(t string) string {
	t = strings.ReplaceAll(t, "▁", "")
	t = strings.ReplaceAll(t, "Ġ", "")
	t = strings.Trim(t, " \t\r\n\"'`.,:;!?*{}[]()")
	return strings.ToLower(t)
}

// classify maps a go-openai/transport error to a kind and whether to retry.
func classify(ctx context.Context, err error) (ErrorKind, bool) {
	if ctx.Err() != nil {
		return ctxKind(ctx), false
	}
	if errors.Is(err, vlmhttp.ErrTooLarge) {
		return KindTooLarge, false
	}
	status := 0
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	switch {
	case errors.As(err, &apiErr):
		status = apiErr.HTTPStatusCode
	case errors.As(err, &reqErr):
		status = reqErr.HTTPStatusCode
	}
	switch {
	case status == http.StatusTooManyRequests:
		return KindRateLimit, true
	case status == http.StatusRequestTimeout:
		return KindTimeout, true
	case status >= 500:
		return KindServer, true
	case status >= 400:
		return KindClient, false
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return KindTimeout, true
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return KindTimeout, true
	}
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	if errors.As(err, &se) || errors.As(err, &te) {
		return KindMalformed, false
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE) {
		return KindNetwork, true
	}
	var oe *net.OpError
	if errors.As(err, &oe) {
		return KindNetwork, true
	}
	if strings.Contains(err.Error(), "invalid character") { // decoding errors wrapped without a type
		return KindMalformed, false
	}
	return KindOther, false
}

// retryAfter parses a Retry-After header (delay-seconds or HTTP date).
func retryAfter(h http.Header) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseFloat(v, 64); err == nil && n >= 0 && n < 1e6 {
		return time.Duration(n * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0), true
	}
	return 0, false
}

// shortErr keeps error text short: proxy error pages can be large.
func shortErr(err error) error {
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	switch {
	case errors.As(err, &apiErr):
		return fmt.Errorf("HTTP %d: %s", apiErr.HTTPStatusCode, truncate(apiErr.Message, 200))
	case errors.As(err, &reqErr):
		return fmt.Errorf("HTTP %d: %s", reqErr.HTTPStatusCode, bodySummary(reqErr.Body))
	}
	return err // transport errors are short and name only the URL
}

// bodySummary shortens an error body: the <title> of an HTML page (proxy
// error pages), else the first 200 bytes.
func bodySummary(b []byte) string {
	s := string(b)
	if i := strings.Index(strings.ToLower(s), "<title>"); i >= 0 {
		rest := s[i+len("<title>"):]
		if j := strings.Index(strings.ToLower(rest), "</title>"); j >= 0 {
			return "HTML page: " + truncate(strings.TrimSpace(rest[:j]), 120)
		}
	}
	if strings.HasPrefix(strings.TrimSpace(s), "<") {
		return "HTML page"
	}
	return truncate(s, 200)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// zeroTemperatureDoer is a go-openai HTTPDoer that adds "temperature": 0 to
// chat-completion bodies that lack it: go-openai's Temperature field is
// omitempty, so a zero would otherwise leave the server default (0.8–1.0).
type zeroTemperatureDoer struct{ hc *http.Client }

func (d zeroTemperatureDoer) Do(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPost && req.Body != nil && strings.HasSuffix(req.URL.Path, "/chat/completions") {
		body, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(body, &m) == nil {
			var model string
			_ = json.Unmarshal(m["model"], &model)
			if _, ok := m["temperature"]; !ok && !reasoningModel(model) {
				m["temperature"] = json.RawMessage("0")
				if b, err := json.Marshal(m); err == nil {
					body = b
				}
			}
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.ContentLength = int64(len(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	return d.hc.Do(req)
}

// reasoningModel reports model names (o1, o3, o4, gpt-5 families) that
// accept only the default temperature.
func reasoningModel(model string) bool {
	for _, p := range []string{"o1", "o3", "o4", "gpt-5"} {
		if strings.HasPrefix(model, p) {
			return true
		}
	}
	return false
}

// breaker is a consecutive-failure circuit breaker with a half-open probe.
type breaker struct {
	mu          sync.Mutex
	threshold   int
	cooldown    time.Duration
	fails       int
	openUntil   time.Time
	probing     bool
	opens, deny int64
}

func (b *breaker) allow(now time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.fails < b.threshold {
		return true
	}
	if now.Before(b.openUntil) || b.probing {
		b.deny++
		return false
	}
	b.probing = true // half-open: one probe call
	return true
}

func (b *breaker) done(now time.Time, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	defer func() { b.probing = false }()
	switch KindOf(err) {
	case KindCanceled, KindInput, KindCircuitOpen:
		return // says nothing about the server's health
	case KindNoScore:
		err = nil // the server answered: healthy
	}
	if err == nil {
		b.fails = 0
		return
	}
	b.fails++
	if b.fails == b.threshold || (b.fails > b.threshold && b.probing) {
		b.openUntil = now.Add(b.cooldown)
		b.opens++
	}
}

func (b *breaker) stats() (opens, denied int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.opens, b.deny
}

// lru is a small mutex-guarded LRU cache of scores by content hash.
type lru struct {
	mu  sync.Mutex
	cap int
	ll  *list.List
	m   map[[32]byte]*list.Element
}

type lruEntry struct {
	key [32]byte
	val Score
}

func newLRU(n int) *lru { return &lru{cap: n, ll: list.New(), m: make(map[[32]byte]*list.Element)} }

func (c *lru) get(k [32]byte) (Score, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[k]; ok {
		c.ll.MoveToFront(e)
		return e.Value.(*lruEntry).val, true
	}
	return Score{}, false
}

func (c *lru) put(k [32]byte, v Score) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[k]; ok {
		e.Value.(*lruEntry).val = v
		c.ll.MoveToFront(e)
		return
	}
	c.m[k] = c.ll.PushFront(&lruEntry{k, v})
	if c.ll.Len() > c.cap {
		old := c.ll.Back()
		c.ll.Remove(old)
		delete(c.m, old.Value.(*lruEntry).key)
	}
}
