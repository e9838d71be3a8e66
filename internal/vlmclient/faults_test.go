package vlmclient_test

import (
	"context"
	"testing"

	"github.com/vlmrb/vlmrb/internal/vlmclient"
	"github.com/vlmrb/vlmrb/internal/vlmclient/vlmclienttest"
	"github.com/vlmrb/vlmrb/internal/vlmhttp"
)

// TestFaults runs the shared fault table against the bare client; the
// scorer (vlmprio) and the rater and embedder (vlmreward) run the same
// table through their own APIs.
func TestFaults(t *testing.T) {
	vlmclienttest.Run(t, vlmclienttest.Target{
		Name: "vlmclient", Path: vlmclienttest.ChatPath, OK: vlmclienttest.ChatLogprobsYes, Cap: vlmhttp.MaxChatBytes,
		New: func(t *testing.T, s vlmclienttest.Settings) func(ctx context.Context) error {
			c, err := vlmclient.New(vlmclient.Config{BaseURL: s.BaseURL, APIKey: s.Key, MaxRetries: s.Retries,
				Timeout: s.Timeout, BackoffBase: s.Backoff, BackoffMax: 4 * s.Backoff, BreakerThreshold: s.BreakerThreshold})
			if err != nil {
				t.Fatal(err)
			}
			return func(ctx context.Context) error {
				var out struct {
					Choices []struct {
						Message struct{ Content string }
					}
				}
				_, err := c.Do(ctx, vlmclient.Request{Path: "/chat/completions", Body: map[string]any{
					"model": "m", "messages": []map[string]any{{"role": "user", "content": "Is it done?"}},
				}}, &out)
				if err == nil && (len(out.Choices) != 1 || out.Choices[0].Message.Content != "Yes") {
					t.Errorf("decoded %+v, want the fixture's one choice saying Yes", out)
				}
				return err
			}
		},
	})
}
