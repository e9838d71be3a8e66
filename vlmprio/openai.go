package vlmprio

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/sashabaranov/go-openai/jsonschema"

	"github.com/vlmrb/vlmrb/internal/redact"
	"github.com/vlmrb/vlmrb/internal/vlmclient"
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
	// APIKey is sent as a bearer token to BaseURL's host only (default
	// $OPENAI_API_KEY when $OPENAI_BASE_URL is unset or names the same
	// host; empty is fine for local servers). It is never logged or
	// written to disk.
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
		// $OPENAI_API_KEY only for its own server (vlmclient.EnvKey)
		c.APIKey = vlmclient.EnvKey(c.BaseURL)
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
	if c.MaxRetries == 0 {
		c.MaxRetries = 4
	} else if c.MaxRetries < 0 {
		c.MaxRetries = 0
	}
	if c.MaxConcurrent <= 0 {
		c.MaxConcurrent = 4
	}
	if c.BreakerThreshold == 0 {
		c.BreakerThreshold = 5
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
// LM Studio, OpenAI, Gemini). The HTTP side (retries, Retry-After,
// breaker, cache, caps, key handling) is internal/vlmclient's; this file
// holds the prompt and reads the answer. Safe for concurrent use.
type OpenAIScorer struct {
	cfg    OpenAIConfig
	client *vlmclient.Client

	noLogprobs atomic.Bool // AnswerAuto saw a response without logprobs

	now func() time.Time // the breaker's clock; time.Now outside tests
}

// NewOpenAIScorer returns a scorer for cfg. It fails when no model is named.
func NewOpenAIScorer(cfg OpenAIConfig) (*OpenAIScorer, error) {
	cfg = cfg.withDefaults()
	if cfg.Model == "" {
		return nil, errors.New("vlmprio: openai scorer needs a model name: set --vlm-model or OPENAI_MODEL")
	}
	s := &OpenAIScorer{cfg: cfg, now: time.Now}
	cc := vlmclient.Config{
		BaseURL: cfg.BaseURL, APIKey: cfg.APIKey,
		Timeout: cfg.Timeout, MaxRetries: cfg.MaxRetries,
		BackoffBase: cfg.BackoffBase, BackoffMax: cfg.BackoffMax, MaxRetryAfter: cfg.MaxRetryAfter,
		MaxConcurrent:    cfg.MaxConcurrent,
		BreakerThreshold: max(cfg.BreakerThreshold, 0), BreakerCooldown: cfg.BreakerCooldown,
		CacheSize: max(cfg.CacheSize, 0),
		// every response capped: a runaway server costs one capped read
		// and a too_large error, never the process's memory
		MaxBytes:   vlmhttp.MaxChatBytes,
		HTTPClient: cfg.HTTPClient,
		Now:        func() time.Time { return s.now() },
	}
	var err error
	if s.client, err = vlmclient.New(cc); err != nil {
		return nil, fmt.Errorf("vlmprio: openai scorer: %w", err)
	}
	// the client's defaults for the HTTP fields (see OpenAIConfig)
	rc := s.client.Config()
	s.cfg.Timeout, s.cfg.BackoffBase, s.cfg.BackoffMax = rc.Timeout, rc.BackoffBase, rc.BackoffMax
	s.cfg.MaxRetryAfter, s.cfg.BreakerCooldown = rc.MaxRetryAfter, rc.BreakerCooldown
	return s, nil
}

// Config returns the resolved configuration (String redacts the key).
func (s *OpenAIScorer) Config() OpenAIConfig { return s.cfg }

// Stats returns a snapshot of the traffic counters.
func (s *OpenAIScorer) Stats() OpenAIStats {
	st := s.client.Stats()
	return OpenAIStats{
		Requests: st.Requests, Retries: st.Retries, CacheHits: st.CacheHits,
		BreakerOpens: st.BreakerOpens, BreakerDenied: st.BreakerDenied,
		JSONFallback: s.noLogprobs.Load(),
	}
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
	if err != nil {
		return sc, s.redactErr(err)
	}
	return sc, nil
}

func (s *OpenAIScorer) mode() AnswerMode {
	if s.cfg.Answer == AnswerAuto && s.noLogprobs.Load() {
		return s.cfg.Fallback
	}
	return s.cfg.Answer
}

var errNoLogprobs = errors.New("server returned no logprobs")

// zero is the temperature every scoring request asks for.
var zero = 0.0

// scoreMode runs one logical query (the client retries) in one answer mode.
func (s *OpenAIScorer) scoreMode(ctx context.Context, mode AnswerMode, prompt string, urls []string) (Score, error) {
	if (mode == AnswerLogprobs || mode == AnswerAuto) && vlmclient.ReasoningModel(s.cfg.Model) {
		// reasoning models return no logprobs: do not spend a request
		return Score{}, &ScoreError{Kind: KindNoScore, Err: fmt.Errorf("%w: model %s cannot return logprobs", errNoLogprobs, s.cfg.Model)}
	}
	body, err := json.Marshal(s.request(mode, prompt, urls))
	if err != nil {
		return Score{}, &ScoreError{Kind: KindInput, Err: err}
	}
	if bytes.Contains(body, []byte(`"type":"video_url"`)) {
		if b, ok := renameVideoParts(body); ok {
			body = b
		}
	}
	var resp openai.ChatCompletionResponse
	res, err := s.client.Do(ctx, vlmclient.Request{Path: "/chat/completions", Body: body, Temperature: &zero}, &resp)
	sc := Score{Attempts: res.Attempts, Cached: res.Cached}
	if err != nil {
		return sc, &ScoreError{Kind: scoreKind(err), Err: err, Attempts: res.Attempts}
	}
	if !res.Cached {
		sc.PromptTokens, sc.CompletionTokens = resp.Usage.PromptTokens, resp.Usage.CompletionTokens
	}
	v, method, perr := parseAnswer(resp, mode)
	if perr != nil {
		perr.Attempts = sc.Attempts
		return sc, perr
	}
	sc.Value, sc.Method = v, method
	return sc, nil
}

// scoreKind maps a vlmclient error kind to the scorer's finer ErrorKind
// (HTTP statuses split into rate_limit, server and client).
func scoreKind(err error) ErrorKind {
	switch vlmclient.Kind(err) {
	case vlmclient.KindHTTP:
		switch st := vlmclient.Status(err); {
		case st == http.StatusTooManyRequests:
			return KindRateLimit
		case st == http.StatusRequestTimeout:
			return KindTimeout
		case st >= 500:
			return KindServer
		}
		return KindClient
	case vlmclient.KindTimeout:
		return KindTimeout
	case vlmclient.KindNetwork:
		return KindNetwork
	case vlmclient.KindParse:
		return KindMalformed
	case vlmclient.KindTooLarge:
		return KindTooLarge
	case vlmclient.KindBreaker:
		return KindCircuitOpen
	case vlmclient.KindInput:
		return KindInput
	case vlmclient.KindCanceled:
		return KindCanceled
	}
	return KindOther
}

// request builds the chat-completions request. Temperature 0 is added by
// the client (go-openai drops a zero temperature: omitempty).
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
	if vlmclient.ReasoningModel(s.cfg.Model) {
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

// maxLogProb is the largest log-probability accepted: a log-probability
// is ≤ 0; servers round, so a hair above 0 is accepted as 0.
const maxLogProb = 1e-6

// YesNoScore returns P(yes)/(P(yes)+P(no)) at the first answer position
// whose token or top alternatives are a yes/no variant ("Yes", " yes",
// "YES", "▁Yes", "\"yes", …). Probabilities of all variants at that
// position are summed; the sampled token counts when it is missing from
// its top list. Values above 0 (not log-probabilities: a yes of 5 and a
// no of 700 would give 1.5e-302) and NaN are ignored. ok is false when no
// position names yes or no.
func YesNoScore(content []openai.LogProb) (score float64, ok bool) {
	for _, lp := range content {
		var pYes, pNo float64
		seenSampled := false
		add := func(tok string, logprob float64) {
			if !(logprob <= maxLogProb) {
				return // not a log-probability (positive, NaN): ignored, never a score
			}
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

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
