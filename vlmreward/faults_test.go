package vlmreward

import (
	"context"
	"image"
	"image/color"
	"testing"

	"github.com/vlmrb/vlmrb/internal/vlmclient/vlmclienttest"
	"github.com/vlmrb/vlmrb/internal/vlmhttp"
)

func faultImage() *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, 8, 8))
	for i := range 64 {
		img.Set(i%8, i/8, color.RGBA{200, 30, 30, 255})
	}
	return img
}

// retriesOrNone maps the table's retry count to the rater's and
// embedder's MaxRetries, where 0 means the default (3) and negative none.
func retriesOrNone(n int) int {
	if n == 0 {
		return -1
	}
	return n
}

// TestOpenAIRaterSharedFaults runs the fault table every VLM client shares
// (internal/vlmclient/vlmclienttest) through OpenAIRater.Rate.
func TestOpenAIRaterSharedFaults(t *testing.T) {
	vlmclienttest.Run(t, vlmclienttest.Target{
		Name: "vlmreward.OpenAIRater", Path: vlmclienttest.ChatPath, OK: vlmclienttest.ChatRatingGood, Cap: vlmhttp.MaxChatBytes,
		New: func(t *testing.T, st vlmclienttest.Settings) func(ctx context.Context) error {
			r, err := NewOpenAIRater(OpenAIRaterConfig{BaseURL: st.BaseURL, Model: "gpt-4o-mini", APIKey: st.Key, Classes: 3,
				Timeout: st.Timeout, MaxRetries: retriesOrNone(st.Retries), Backoff: st.Backoff, BreakerThreshold: st.BreakerThreshold})
			if err != nil {
				t.Fatal(err)
			}
			return func(ctx context.Context) error {
				c, err := r.Rate(ctx, &Query{Image: faultImage(), Task: "open the drawer"})
				if err == nil && c != 2 {
					t.Errorf("class %d, want 2 (Good)", c)
				}
				return err
			}
		},
	})
}

// TestHTTPEmbedderSharedFaults runs the same table through
// HTTPEmbedder.EmbedImages (one image, one request).
func TestHTTPEmbedderSharedFaults(t *testing.T) {
	vlmclienttest.Run(t, vlmclienttest.Target{
		Name: "vlmreward.HTTPEmbedder", Path: vlmclienttest.EmbeddingsPath, OK: vlmclienttest.Embeddings, Cap: vlmhttp.MaxEmbeddingBytes,
		New: func(t *testing.T, st vlmclienttest.Settings) func(ctx context.Context) error {
			e := &HTTPEmbedder{BaseURL: st.BaseURL, Model: "clip", APIKey: st.Key, Timeout: st.Timeout,
				MaxRetries: retriesOrNone(st.Retries), Backoff: st.Backoff, BreakerThreshold: st.BreakerThreshold}
			return func(ctx context.Context) error {
				embs, err := e.EmbedImages(ctx, []image.Image{faultImage()})
				if err == nil && (len(embs) != 1 || len(embs[0]) != 3) {
					t.Errorf("embeddings %v, want one 3-vector (the fixture's)", embs)
				}
				return err
			}
		},
	})
}
