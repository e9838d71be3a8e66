package train

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sort"
	"strings"
	"sync"

	"github.com/vlmrb/vlmrb/internal/vlmhttp"
	"github.com/vlmrb/vlmrb/vlmprio"
	"github.com/vlmrb/vlmrb/vlmreward"
)

// VLM outage policy, the same for the VLM-RB scorer, ERL-VLM's rater and
// VLM-RM's embedder: a failing VLM server never stops training. The first
// failure of each kind (http client/server, timeout, too_large, …) is
// warned once, with its message; the clip, rating or frame it concerned
// is simply left out (VLM-RB keeps the default priority p̄, ERL-VLM trains
// on the ratings it has, VLM-RM leaves the frame without reward so it is
// never trained on); the end-of-run summary reports every failure by kind.
// With Options.VLMRequired (robot-train train --vlm-required) the first
// failure stops the run instead, with an error naming it.

// vlmOutage collects a run's VLM failures. Safe for concurrent use (the
// scorer's workers and the rater's pool report from their goroutines).
type vlmOutage struct {
	required bool
	warnf    func(string, ...any)

	mu    sync.Mutex
	count map[string]map[string]int64 // who → kind → failures
	first error                       // the first failure (for VLMRequired)
}

func newVLMOutage(required bool, warnf func(string, ...any)) *vlmOutage {
	return &vlmOutage{required: required, warnf: warnf, count: map[string]map[string]int64{}}
}

// record notes one failure of who ("VLM-RB scorer", …). Cancellations
// are not failures.
func (o *vlmOutage) record(who string, err error) {
	if o == nil || err == nil {
		return
	}
	kind := errKind(err)
	if kind == string(vlmprio.KindCanceled) {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	byKind := o.count[who]
	if byKind == nil {
		byKind = map[string]int64{}
		o.count[who] = byKind
	}
	byKind[kind]++
	if o.first == nil {
		o.first = fmt.Errorf("%s: %s error: %w", who, kind, err)
	}
	if byKind[kind] == 1 && o.warnf != nil {
		then := "training continues without it (pass --vlm-required to stop instead)"
		if o.required {
			then = "stopping (--vlm-required)"
		}
		o.warnf("%s: first %s error: %v; %s", who, kind, err, then)
	}
}

// err is the run-stopping error under VLMRequired, else nil.
func (o *vlmOutage) err() error {
	if o == nil || !o.required {
		return nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.first == nil {
		return nil
	}
	return fmt.Errorf("VLM required but failing: %w", o.first)
}

// summary is one line per failing VLM user ("VLM-RB scorer: 57 failed
// (client 57)"), or nil.
func (o *vlmOutage) summary() []string {
	if o == nil {
		return nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []string
	for who, byKind := range o.count {
		var n int64
		var kinds []string
		for k, c := range byKind {
			n += c
			kinds = append(kinds, fmt.Sprintf("%s %d", k, c))
		}
		sort.Strings(kinds)
		out = append(out, fmt.Sprintf("%s: %d failed (%s)", who, n, strings.Join(kinds, ", ")))
	}
	sort.Strings(out)
	return out
}

// metrics adds vlm/errors/KIND (failures so far of every VLM user, by
// kind) to a log row: vlm/errors says that scoring fails, these say why.
func (o *vlmOutage) metrics(v map[string]float64) {
	if o == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, byKind := range o.count {
		for k, c := range byKind {
			v["vlm/errors/"+k] += float64(c)
		}
	}
}

// errKind classifies a VLM failure with vlmprio's kind names: the
// scorer's own ScoreError kinds, and for the rater's and embedder's errors
// the shared client's classes (vlmprio.KindOf maps them: 429 rate_limit,
// other 4xx client, 5xx server, timeout, network, malformed, too_large,
// circuit_open, input, canceled).
func errKind(err error) string {
	if k := vlmprio.KindOf(err); k != vlmprio.KindOther {
		return string(k)
	}
	var ne net.Error
	switch {
	case errors.Is(err, vlmhttp.ErrTooLarge):
		return string(vlmprio.KindTooLarge)
	case errors.As(err, &ne) && ne.Timeout():
		return string(vlmprio.KindTimeout)
	}
	var oe *net.OpError
	if errors.As(err, &oe) {
		return string(vlmprio.KindNetwork)
	}
	return string(vlmprio.KindOther)
}

// outageScorer reports a scorer's failures to the run's outage record.
type outageScorer struct {
	vlmprio.Scorer
	o *vlmOutage
}

func (s outageScorer) Score(ctx context.Context, c *vlmprio.Clip) (vlmprio.Score, error) {
	sc, err := s.Scorer.Score(ctx, c)
	if err != nil && ctx.Err() == nil {
		s.o.record("VLM-RB scorer", err)
	}
	return sc, err
}

// outageRater reports a rater's failures to the run's outage record.
type outageRater struct {
	vlmreward.Rater
	o *vlmOutage
}

func (r outageRater) Rate(ctx context.Context, q *vlmreward.Query) (int, error) {
	c, err := r.Rater.Rate(ctx, q)
	if err != nil && ctx.Err() == nil {
		r.o.record("ERL-VLM rater", err)
	}
	return c, err
}
