package train

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/vlmrb/vlmrb/internal/vlmclient"
	"github.com/vlmrb/vlmrb/vlmprio"
)

// vlm/errors/KIND counts every failure by its kind across the VLM users;
// cancellations are not failures.
func TestOutageMetricsByKind(t *testing.T) {
	o := newVLMOutage(false, nil)
	httpErr := func(status int) error {
		return fmt.Errorf("rate: %w", &vlmclient.Error{Kind: vlmclient.KindHTTP, Status: status, Op: "POST /v1/chat/completions"})
	}
	for range 3 {
		o.record("ERL-VLM rater", httpErr(503))
	}
	o.record("VLM-RM embedder", fmt.Errorf("embed: %w", context.DeadlineExceeded))
	o.record("VLM-RB scorer", context.Canceled)
	o.record("VLM-RB scorer", &vlmprio.ScoreError{Kind: vlmprio.KindClient, Err: errors.New("400 Bad Request")})
	v := map[string]float64{}
	o.metrics(v)
	want := map[string]float64{"vlm/errors/server": 3, "vlm/errors/timeout": 1, "vlm/errors/client": 1}
	if len(v) != len(want) {
		t.Fatalf("metrics %v, want %v", v, want)
	}
	for k, n := range want {
		if v[k] != n {
			t.Errorf("%s = %v, want %v (all: %v)", k, v[k], n, v)
		}
	}
}
