package vlmprio

import (
	"context"
	"math"
	"testing"

	"github.com/vlmrb/vlmrb/internal/vlmclient"
	"github.com/vlmrb/vlmrb/internal/vlmclient/vlmclienttest"
	"github.com/vlmrb/vlmrb/internal/vlmhttp"
)

// TestOpenAIScorerSharedFaults runs the fault table every VLM client
// shares (internal/vlmclient/vlmclienttest) through OpenAIScorer.Score.
func TestOpenAIScorerSharedFaults(t *testing.T) {
	vlmclienttest.Run(t, vlmclienttest.Target{
		Name: "vlmprio.OpenAIScorer", Path: vlmclienttest.ChatPath, OK: vlmclienttest.ChatLogprobsYes, Cap: vlmhttp.MaxChatBytes,
		New: func(t *testing.T, st vlmclienttest.Settings) func(ctx context.Context) error {
			cfg := OpenAIConfig{
				BaseURL: st.BaseURL, APIKey: st.Key, Model: "gpt-4o-mini", Answer: AnswerLogprobs,
				MaxRetries: st.Retries, Timeout: st.Timeout, BackoffBase: st.Backoff, BackoffMax: 4 * st.Backoff,
				BreakerThreshold: st.BreakerThreshold, CacheSize: -1,
			}
			if cfg.MaxRetries == 0 {
				cfg.MaxRetries = -1 // OpenAIConfig: 0 is the default (4), negative is none
			}
			if cfg.BreakerThreshold == 0 {
				cfg.BreakerThreshold = -1
			}
			s, err := NewOpenAIScorer(cfg)
			if err != nil {
				t.Fatal(err)
			}
			return func(ctx context.Context) error {
				sc, err := s.Score(ctx, testClip())
				if err != nil {
					if k := KindOf(err); k == KindOther || k == "" {
						t.Errorf("scorer error without a scorer kind: %v", err)
					}
					return err
				}
				// the fixture's top_logprobs: Yes 0.9, No 0.1
				if math.Abs(sc.Value-0.9) > 1e-6 || sc.Method != "logprobs" {
					t.Errorf("score %+v, want 0.9 from logprobs", sc)
				}
				return nil
			}
		},
	})
}

// TestScoreKindFromClientKind pins the mapping of the shared client's
// kinds onto the scorer's metric kinds (train's vlm error counters).
func TestScoreKindFromClientKind(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  *vlmclient.Error
		want ErrorKind
	}{
		{&vlmclient.Error{Kind: vlmclient.KindHTTP, Status: 429}, KindRateLimit},
		{&vlmclient.Error{Kind: vlmclient.KindHTTP, Status: 408}, KindTimeout},
		{&vlmclient.Error{Kind: vlmclient.KindHTTP, Status: 502}, KindServer},
		{&vlmclient.Error{Kind: vlmclient.KindHTTP, Status: 401}, KindClient},
		{&vlmclient.Error{Kind: vlmclient.KindTimeout}, KindTimeout},
		{&vlmclient.Error{Kind: vlmclient.KindNetwork}, KindNetwork},
		{&vlmclient.Error{Kind: vlmclient.KindParse}, KindMalformed},
		{&vlmclient.Error{Kind: vlmclient.KindTooLarge}, KindTooLarge},
		{&vlmclient.Error{Kind: vlmclient.KindBreaker}, KindCircuitOpen},
		{&vlmclient.Error{Kind: vlmclient.KindInput}, KindInput},
		{&vlmclient.Error{Kind: vlmclient.KindCanceled}, KindCanceled},
	} {
		if got := scoreKind(tc.err); got != tc.want {
			t.Errorf("%s %d: %s, want %s", tc.err.Kind, tc.err.Status, got, tc.want)
		}
	}
}
