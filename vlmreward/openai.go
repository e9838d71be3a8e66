package vlmreward

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/vlmrb/vlmrb/internal/vlmclient"
	"github.com/vlmrb/vlmrb/internal/vlmhttp"
)

// OpenAIRaterConfig configures an OpenAIRater. Zero fields take defaults.
type OpenAIRaterConfig struct {
	BaseURL string // API root including /v1 (default $OPENAI_BASE_URL)
	Model   string // required (default $OPENAI_MODEL)
	APIKey  string // bearer token, sent to BaseURL's host only (default $OPENAI_API_KEY when $OPENAI_BASE_URL is unset or the same host; never logged)
	// AnalysisModel serves stage 1 when TwoStage (default Model).
	AnalysisModel string
	Classes       int           // 2–5
	TwoStage      bool          // analysis then label (ERL-VLM); false: one call with the image and the enum answer
	Timeout       time.Duration // per request (default 60 s)
	MaxRetries    int           // retries on 429/5xx/timeouts/network errors (default 3; negative: none)
	Backoff       time.Duration // first backoff, doubled per retry with jitter (default 1 s)
	// BreakerThreshold consecutive failed ratings open a circuit breaker
	// for 30 s (0: no breaker), so a dead server fails a batch fast.
	BreakerThreshold int
	HTTPClient       *http.Client
}

// OpenAIRater rates frames through an OpenAI-compatible chat-completions
// server with a JSON-schema enum answer {"rating": "<category>"} at
// temperature 0, with ERL-VLM's prompts (papers.md §2.4). Safe for
// concurrent use.
type OpenAIRater struct {
	cfg    OpenAIRaterConfig
	names  []string
	client *vlmclient.Client
	errors atomic.Int64
}

// NewOpenAIRater checks the configuration.
func NewOpenAIRater(cfg OpenAIRaterConfig) (*OpenAIRater, error) {
	if cfg.BaseURL == "" {
		cfg.BaseURL = os.Getenv("OPENAI_BASE_URL")
	}
	if cfg.Model == "" {
		cfg.Model = os.Getenv("OPENAI_MODEL")
	}
	if cfg.APIKey == "" {
		// $OPENAI_API_KEY only for its own server (vlmclient.EnvKey)
		cfg.APIKey = vlmclient.EnvKey(cfg.BaseURL)
	}
	if cfg.BaseURL == "" || cfg.Model == "" {
		return nil, errors.New("vlmreward: OpenAI rater needs a base URL and a model")
	}
	if cfg.AnalysisModel == "" {
		cfg.AnalysisModel = cfg.Model
	}
	names := ClassNames(cfg.Classes)
	if names == nil {
		return nil, fmt.Errorf("vlmreward: %d rating classes (want 2–5)", cfg.Classes)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 60 * time.Second
	}
	if cfg.MaxRetries == 0 {
		cfg.MaxRetries = 3
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = time.Second
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	client, err := vlmclient.New(vlmclient.Config{
		BaseURL: cfg.BaseURL, APIKey: cfg.APIKey,
		Timeout: cfg.Timeout, MaxRetries: max(cfg.MaxRetries, 0), BackoffBase: cfg.Backoff,
		BreakerThreshold: cfg.BreakerThreshold,
		MaxBytes:         vlmhttp.MaxChatBytes, HTTPClient: cfg.HTTPClient,
	})
	if err != nil {
		return nil, fmt.Errorf("vlmreward: OpenAI rater: %w", err)
	}
	return &OpenAIRater{cfg: cfg, names: names, client: client}, nil
}

// Classes returns the number of rating classes.
func (o *OpenAIRater) Classes() int { return len(o.names) }

// Calls and Errors count HTTP calls and failed Rate calls.
func (o *OpenAIRater) Calls() int64  { return o.client.Stats().Requests }
func (o *OpenAIRater) Errors() int64 { return o.errors.Load() }

func analysisPrompt(task string) string {
	return "You will be presented an image of a robot arm performing the task [" + task +
		"]. Please focus on the target object in the task and carefully analyze the image in term of **completing** the task. "
}

func (o *OpenAIRater) cats() string { return "[" + strings.Join(o.names, ", ") + "]" }

// Rate asks for the rating; any failure (HTTP, parse, unknown category)
// is an error.
func (o *OpenAIRater) Rate(ctx context.Context, q *Query) (int, error) {
	c, err := o.rate(ctx, q)
	if err != nil {
		o.errors.Add(1)
	}
	return c, err
}

func (o *OpenAIRater) rate(ctx context.Context, q *Query) (int, error) {
	if q.Image == nil {
		return 0, errors.New("vlmreward: query without an image")
	}
	url, err := DataURL(q.Image)
	if err != nil {
		return 0, err
	}
	img := part{Type: "image_url", ImageURL: &imageURL{URL: url}}
	label := "how would you rate this image in terms of **completing** task [" + q.Task + "]?"
	var msgs []message
	if o.cfg.TwoStage {
		analysis, err := o.chat(ctx, chatRequest{Model: o.cfg.AnalysisModel, MaxTokens: 512,
			Messages: []message{{Role: "user", Content: []part{img, {Type: "text", Text: analysisPrompt(q.Task)}}}}})
		if err != nil {
			return 0, err
		}
		msgs = []message{{Role: "user", Content: []part{{Type: "text", Text: "\n" + analysis +
			"\nFrom the above analyses, based on this rating category: " + o.cats() + ", " + label}}}}
	} else {
		msgs = []message{{Role: "user", Content: []part{img, {Type: "text", Text: analysisPrompt(q.Task) +
			"Based on this rating category: " + o.cats() + ", " + label}}}}
	}
	msgs[0].Content[len(msgs[0].Content)-1].Text += ` Reply as JSON: {"rating": "<category>"}.`
	schema := map[string]any{
		"type":                 "object",
		"properties":           map[string]any{"rating": map[string]any{"type": "string", "enum": o.names}},
		"required":             []string{"rating"},
		"additionalProperties": false,
	}
	content, err := o.chat(ctx, chatRequest{Model: o.cfg.Model, MaxTokens: 32, Messages: msgs,
		ResponseFormat: &responseFormat{Type: "json_schema", JSONSchema: &jsonSchema{Name: "rating", Strict: true, Schema: schema}}})
	if err != nil {
		return 0, err
	}
	return o.parse(content)
}

// parse reads {"rating": "<category>"} (code fences tolerated) or a bare
// category name; matching ignores case and surrounding space.
func (o *OpenAIRater) parse(content string) (int, error) {
	s := strings.TrimSpace(content)
	s = strings.TrimPrefix(strings.TrimPrefix(s, "```json"), "```")
	s = strings.TrimSpace(strings.TrimSuffix(s, "```"))
	var ans struct {
		Rating string `json:"rating"`
	}
	if err := json.Unmarshal([]byte(s), &ans); err == nil {
		s = ans.Rating
	}
	s = strings.Trim(strings.TrimSpace(s), `".`)
	for i, n := range o.names {
		if strings.EqualFold(s, n) {
			return i, nil
		}
	}
	return 0, fmt.Errorf("vlmreward: answer %q is not one of %v", truncate(content, 80), o.names)
}

type chatRequest struct {
	Model          string          `json:"model"`
	Messages       []message       `json:"messages"`
	MaxTokens      int             `json:"max_tokens,omitempty"`
	ResponseFormat *responseFormat `json:"response_format,omitempty"`
}

type message struct {
	Role    string `json:"role"`
	Content []part `json:"content"`
}

type part struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	ImageURL *imageURL `json:"image_url,omitempty"`
}

type imageURL struct {
	URL string `json:"url"`
}

type responseFormat struct {
	Type       string      `json:"type"`
	JSONSchema *jsonSchema `json:"json_schema,omitempty"`
}

type jsonSchema struct {
	Name   string `json:"name"`
	Strict bool   `json:"strict"`
	Schema any    `json:"schema"`
}

type chatResponse struct {
	Choices []struct {
		Message struct {
			Content string `json:"content"`
		} `json:"message"`
	} `json:"choices"`
}

// zero is the temperature of every rating request (the client leaves it
// out for models that accept only their default).
var zero = 0.0

func (o *OpenAIRater) chat(ctx context.Context, req chatRequest) (string, error) {
	var resp chatResponse
	if _, err := o.client.Do(ctx, vlmclient.Request{Path: "/chat/completions", Body: req, Temperature: &zero}, &resp); err != nil {
		return "", fmt.Errorf("vlmreward: %w", err)
	}
	if len(resp.Choices) == 0 {
		return "", errors.New("vlmreward: response without choices")
	}
	return resp.Choices[0].Message.Content, nil
}

// DataURL encodes img as a PNG data URL ("data:image/png;base64,…").
func DataURL(img image.Image) (string, error) {
	u, err := vlmclient.PNGDataURL(img)
	if err != nil {
		return "", fmt.Errorf("vlmreward: %w", err)
	}
	return u, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
