package train

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// vlm/errors/KIND counts every failure by its kind across the VLM users;
// cancellations are not failures.
func TestOutageMetricsByKind(t *testing.T) {
	o := newVLMOutage(false, nil)
	for range 3 {
		o.record("VLM-RB scorer", fmt.Errorf("POST /v1/chat/completions: 503 Service Unavailable"))
	}
	o.record("ERL-VLM rater", fmt.Errorf("rate: %w", context.DeadlineExceeded))
	o.record("VLM-RB scorer", context.Canceled)
	o.record("VLM-RB scorer", errors.New("POST /v1/chat/completions: 400 Bad Request"))
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
