package vlmreward

import (
	"context"
	"errors"
	"fmt"
	"image"
	"math"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/vlmrb/vlmrb/internal/vlmclient"
	"github.com/vlmrb/vlmrb/internal/vlmhttp"
	"github.com/vlmrb/vlmrb/replay"
)

// Embedder embeds texts and images into one joint space (CLIP, SigLIP).
type Embedder interface {
	EmbedTexts(ctx context.Context, texts []string) ([][]float64, error)
	EmbedImages(ctx context.Context, imgs []image.Image) ([][]float64, error)
}

// VLMRM is the goal-baseline regularised CLIP reward (papers.md §3.2):
// R(x) = 1 − ½‖P(x − g)‖², P = α·ddᵀ/‖d‖² + (1−α)I, d = g − b, with x
// the normalised image embedding and g, b the averages of the normalised
// goal and baseline text embeddings (the averages are not re-normalised,
// as in the reference). α = 0 gives the cosine similarity x·g when g is a
// unit vector (one goal prompt).
type VLMRM struct {
	G, B  []float64
	Alpha float64
	d     []float64
	dd    float64 // ‖d‖²
}

// NewVLMRM builds the reward from precomputed embeddings of the goal and
// baseline prompts (each normalised here before averaging).
func NewVLMRM(goal, baseline [][]float64, alpha float64) (*VLMRM, error) {
	if len(goal) == 0 {
		return nil, errors.New("vlmreward: VLM-RM needs at least one goal embedding")
	}
	if !(alpha >= 0 && alpha <= 1) {
		return nil, fmt.Errorf("vlmreward: alpha %g outside [0,1]", alpha)
	}
	g, err := meanNormalised(goal)
	if err != nil {
		return nil, err
	}
	v := &VLMRM{G: g, Alpha: alpha, d: make([]float64, len(g))}
	if len(baseline) > 0 {
		if v.B, err = meanNormalised(baseline); err != nil {
			return nil, err
		}
		if len(v.B) != len(g) {
			return nil, fmt.Errorf("vlmreward: goal dim %d != baseline dim %d", len(g), len(v.B))
		}
		for i := range g {
			v.d[i] = g[i] - v.B[i]
			v.dd += v.d[i] * v.d[i]
		}
	}
	if alpha > 0 && v.dd == 0 {
		return nil, errors.New("vlmreward: alpha > 0 needs a baseline different from the goal")
	}
	return v, nil
}

// NewVLMRMFromPrompts embeds the prompts with e and builds the reward.
func NewVLMRMFromPrompts(ctx context.Context, e Embedder, goals, baselines []string, alpha float64) (*VLMRM, error) {
	ge, err := e.EmbedTexts(ctx, goals)
	if err != nil {
		return nil, err
	}
	var be [][]float64
	if len(baselines) > 0 {
		if be, err = e.EmbedTexts(ctx, baselines); err != nil {
			return nil, err
		}
	}
	return NewVLMRM(ge, be, alpha)
}

func meanNormalised(vs [][]float64) ([]float64, error) {
	out := make([]float64, len(vs[0]))
	for _, v := range vs {
		if len(v) != len(out) {
			return nil, errors.New("vlmreward: embeddings of different lengths")
		}
		n := norm(v)
		if n == 0 || math.IsNaN(n) || math.IsInf(n, 0) {
			return nil, errors.New("vlmreward: zero or non-finite embedding")
		}
		for i, x := range v {
			out[i] += x / n / float64(len(vs))
		}
	}
	return out, nil
}

func norm(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s)
}

// Reward returns R for one raw image embedding (normalised here).
func (v *VLMRM) Reward(emb []float64) (float64, error) {
	if len(emb) != len(v.G) {
		return 0, fmt.Errorf("vlmreward: image embedding dim %d, text dim %d", len(emb), len(v.G))
	}
	n := norm(emb)
	if n == 0 || math.IsNaN(n) || math.IsInf(n, 0) {
		return 0, errors.New("vlmreward: zero or non-finite image embedding")
	}
	// y = x − g; Py = α·d(d·y)/‖d‖² + (1−α)y
	dy := 0.0
	for i := range emb {
		dy += v.d[i] * (emb[i]/n - v.G[i])
	}
	c := 0.0
	if v.dd > 0 {
		c = v.Alpha * dy / v.dd
	}
	s := 0.0
	for i := range emb {
		p := c*v.d[i] + (1-v.Alpha)*(emb[i]/n-v.G[i])
		s += p * p
	}
	return 1 - s/2, nil
}

// Pending collects transitions whose reward waits for an embedding
// (VLM-RM computes rewards in batches after each rollout chunk).
type Pending struct {
	Refs []replay.Ref
	Imgs []image.Image
}

// Add queues the next-state frame of transition ref (the image is kept,
// not copied: pass a clone if the source reuses it).
func (p *Pending) Add(ref replay.Ref, img image.Image) {
	p.Refs = append(p.Refs, ref)
	p.Imgs = append(p.Imgs, img)
}

// Len is the number of queued transitions.
func (p *Pending) Len() int { return len(p.Refs) }

// Flush embeds the queued frames in batches of batch images, writes each
// reward into t under its Ref (slots overwritten since are dropped by
// generation, wrap-around needs no special case) and empties the queue.
// It returns the number of rewards written. When the embedder fails the
// queue is kept from the failed batch on, so a later Flush retries; until
// then those transitions stay unset and Apply keeps them out of training.
// An embedding the embedder did return but that cannot give a reward
// (zero, non-finite, wrong length) is an answer, not an outage: that
// transition is dropped from the queue with its reward unset (retrying
// would ask again for the same frame, and a server that answers so for
// every frame made a run 20× slower), the rest of the queue is embedded,
// and the error, wrapping ErrBadEmbedding, says how many were dropped.
func (p *Pending) Flush(ctx context.Context, e Embedder, v *VLMRM, t *RewardTable, batch int) (int, error) {
	batch = max(1, batch)
	written, bad := 0, 0
	var firstBad error
	for len(p.Refs) > 0 {
		n := min(batch, len(p.Refs))
		embs, err := e.EmbedImages(ctx, p.Imgs[:n])
		if err == nil && len(embs) != n {
			err = fmt.Errorf("vlmreward: %d embeddings for %d images", len(embs), n)
		}
		if err != nil {
			return written, err
		}
		for i := 0; i < n; i++ {
			r, err := v.Reward(embs[i])
			if err != nil {
				bad++
				if firstBad == nil {
					firstBad = err
				}
				continue
			}
			if t.Set(p.Refs[i], r) {
				written++
			}
		}
		p.Refs, p.Imgs = p.Refs[n:], p.Imgs[n:]
	}
	p.Refs, p.Imgs = nil, nil
	if bad > 0 {
		return written, fmt.Errorf("%w: %d transitions dropped without a reward (first: %v)", ErrBadEmbedding, bad, firstBad)
	}
	return written, nil
}

// ErrBadEmbedding is wrapped by Flush's error for embeddings that gave no
// reward (their transitions were dropped, not kept for a retry).
var ErrBadEmbedding = errors.New("vlmreward: unusable image embedding")

// HTTPEmbedder embeds through an OpenAI-style /v1/embeddings endpoint.
// Texts go as {"model", "input": [...], "encoding_format": "float"}.
// Images go one per request in vLLM's multimodal embeddings form:
// {"model", "messages": [{"role": "user", "content": [{"type": "image_url",
// "image_url": {"url": "data:image/png;base64,…"}}]}],
// "encoding_format": "float"}. Safe for concurrent use.
//
// APIKey is sent to BaseURL's host only. The fields are read when the
// first request is made; later changes have no effect.
type HTTPEmbedder struct {
	BaseURL, Model, APIKey string
	Timeout                time.Duration // per request (default 60 s)
	MaxRetries             int           // default 3; negative: none
	Backoff                time.Duration // default 500 ms
	Workers                int           // concurrent image requests (default 8)
	// BreakerThreshold consecutive failed requests open a circuit breaker
	// for 30 s (0: no breaker).
	BreakerThreshold int
	Client           *http.Client

	once      sync.Once
	client    *vlmclient.Client
	clientErr error
}

// NewHTTPEmbedder returns an embedder for baseURL (including /v1; default
// $OPENAI_BASE_URL) and model.
func NewHTTPEmbedder(baseURL, model, apiKey string) (*HTTPEmbedder, error) {
	if baseURL == "" {
		baseURL = os.Getenv("OPENAI_BASE_URL")
	}
	if baseURL == "" || model == "" {
		return nil, errors.New("vlmreward: embedder needs a base URL and a model")
	}
	return &HTTPEmbedder{BaseURL: strings.TrimRight(baseURL, "/"), Model: model, APIKey: apiKey}, nil
}

// Calls counts HTTP requests.
func (h *HTTPEmbedder) Calls() int64 {
	if c, err := h.http(); err == nil {
		return c.Stats().Requests
	}
	return 0
}

// http returns the embedder's client, built from its fields on first use.
func (h *HTTPEmbedder) http() (*vlmclient.Client, error) {
	h.once.Do(func() {
		timeout, retries, backoff := h.Timeout, h.MaxRetries, h.Backoff
		if timeout <= 0 {
			timeout = 60 * time.Second
		}
		if retries == 0 {
			retries = 3
		}
		if backoff <= 0 {
			backoff = 500 * time.Millisecond
		}
		h.client, h.clientErr = vlmclient.New(vlmclient.Config{
			BaseURL: h.BaseURL, APIKey: h.APIKey,
			Timeout: timeout, MaxRetries: max(retries, 0), BackoffBase: backoff,
			BreakerThreshold: h.BreakerThreshold,
			MaxBytes:         vlmhttp.MaxEmbeddingBytes, HTTPClient: h.Client,
		})
		if h.clientErr != nil {
			h.clientErr = fmt.Errorf("vlmreward: embedder: %w", h.clientErr)
		}
	})
	return h.client, h.clientErr
}

type embedResponse struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float64 `json:"embedding"`
	} `json:"data"`
}

func (h *HTTPEmbedder) post(ctx context.Context, req any, want int) ([][]float64, error) {
	c, err := h.http()
	if err != nil {
		return nil, err
	}
	var resp embedResponse
	if _, err := c.Do(ctx, vlmclient.Request{Path: "/embeddings", Body: req}, &resp); err != nil {
		return nil, fmt.Errorf("vlmreward: %w", err)
	}
	if len(resp.Data) != want {
		return nil, fmt.Errorf("vlmreward: %d embeddings in response, want %d", len(resp.Data), want)
	}
	out := make([][]float64, want)
	for i, d := range resp.Data {
		idx := d.Index
		if idx < 0 || idx >= want || out[idx] != nil {
			idx = i
		}
		out[idx] = d.Embedding
	}
	return out, nil
}

// EmbedTexts embeds the texts in one request.
func (h *HTTPEmbedder) EmbedTexts(ctx context.Context, texts []string) ([][]float64, error) {
	return h.post(ctx, map[string]any{"model": h.Model, "input": texts, "encoding_format": "float"}, len(texts))
}

// EmbedImages embeds each image with one request, Workers requests at a
// time (the server batches concurrent requests). On error it returns the
// first failure; the embeddings of the images before the first failed one
// are not reported.
func (h *HTTPEmbedder) EmbedImages(ctx context.Context, imgs []image.Image) ([][]float64, error) {
	out := make([][]float64, len(imgs))
	var (
		once  sync.Once
		first error // the failure that stopped the batch (not the cancellations it caused)
	)
	workers := h.Workers
	if workers <= 0 {
		workers = 8
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	forEach(len(imgs), workers, func(i int) bool {
		var err error
		if out[i], err = h.embedImage(ctx, imgs[i]); err != nil {
			once.Do(func() { first = fmt.Errorf("image %d: %w", i, err) })
			cancel() // stop the others: the batch fails as a whole
			return false
		}
		return true
	})
	if first != nil {
		return nil, first
	}
	return out, nil
}

func (h *HTTPEmbedder) embedImage(ctx context.Context, img image.Image) ([]float64, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	url, err := DataURL(img)
	if err != nil {
		return nil, err
	}
	req := map[string]any{
		"model": h.Model,
		"messages": []message{{Role: "user", Content: []part{
			{Type: "image_url", ImageURL: &imageURL{URL: url}}}}},
		"encoding_format": "float",
	}
	e, err := h.post(ctx, req, 1)
	if err != nil {
		return nil, err
	}
	return e[0], nil
}
