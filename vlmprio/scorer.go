package vlmprio

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/vlmrb/vlmrb/internal/vlmclient"
	"github.com/vlmrb/vlmrb/replay"
)

// Score is a scorer's judgement of one clip.
type Score struct {
	// Value is the score in [0,1]: for a VLM, P(yes)/(P(yes)+P(no)).
	Value float64
	// Method says how Value was obtained: "logprobs", "json-enum",
	// "json-int", "oracle" or "pixel".
	Method string
	// PromptTokens and CompletionTokens are the server-reported usage (0
	// when unknown or cached).
	PromptTokens, CompletionTokens int
	// Cached is true when the score came from the scorer's cache.
	Cached bool
	// Attempts is the number of HTTP requests made (0 for offline scorers
	// and cache hits).
	Attempts int
	// Confidence in [0,1] is how much of what the pixel scorer needed it
	// could see: the mean over the spec's elements of the fraction of
	// examined frames in which each was visible. A clip where everything
	// is hidden scores Value 0 with Confidence 0 rather than failing.
	// Other scorers leave it 0.
	Confidence float64
}

// Scorer scores clips. Implementations are safe for concurrent use and
// honour ctx cancellation and deadlines.
type Scorer interface {
	Score(ctx context.Context, c *Clip) (Score, error)
}

// ScoreSink receives scores for replay slots. replay's VLM-RB sampler
// implements it: SetScore is safe from any goroutine and returns false (and
// drops the write) when ref's generation no longer matches its slot. The
// Prioritizer calls it with its own lock held (so overlapping clips combine
// in order); SetScore must not call back into the Prioritizer.
type ScoreSink interface {
	SetScore(ref replay.Ref, score float64) bool
}

// BatchScoreSink is optionally implemented by a ScoreSink that can apply
// several scores under one lock acquisition. The Prioritizer then writes a
// clip's refs with one call, which cuts lock contention with a learner that
// samples from the same buffer. ok[i] reports whether refs[i] was applied
// (false: stale generation); len(ok) == len(refs) == len(scores).
type BatchScoreSink interface {
	ScoreSink
	SetScores(refs []replay.Ref, scores []float64, ok []bool)
}

// ErrorKind classifies scoring failures for metrics and retry decisions.
type ErrorKind string

// Error kinds.
const (
	KindRateLimit   ErrorKind = "rate_limit"   // HTTP 429
	KindServer      ErrorKind = "server"       // HTTP 5xx (incl. proxy error pages)
	KindClient      ErrorKind = "client"       // other HTTP 4xx: bad request, auth, unknown model
	KindTimeout     ErrorKind = "timeout"      // a per-request timeout expired
	KindNetwork     ErrorKind = "network"      // connection refused/reset, EOF
	KindMalformed   ErrorKind = "malformed"    // a 2xx body that is not a chat completion
	KindNoScore     ErrorKind = "no_score"     // a valid response without a usable yes/no answer
	KindCircuitOpen ErrorKind = "circuit_open" // the circuit breaker refused the call
	KindTooLarge    ErrorKind = "too_large"    // a response over its size cap (not retried)
	KindInput       ErrorKind = "input"        // the clip cannot be scored (no frames, no progress, nothing segmented)
	KindCanceled    ErrorKind = "canceled"     // the caller's ctx ended
	KindOther       ErrorKind = "other"
)

// ScoreError is the error type scorers return. Kind is stable for metrics;
// Err carries the detail.
type ScoreError struct {
	Kind ErrorKind
	Err  error
	// Attempts is the number of HTTP requests made before giving up.
	Attempts int
}

func (e *ScoreError) Error() string {
	var ce *vlmclient.Error
	if e.Attempts > 1 && !errors.As(e.Err, &ce) { // a client error names its attempts itself
		return fmt.Sprintf("vlmprio: %s after %d attempts: %v", e.Kind, e.Attempts, e.Err)
	}
	return fmt.Sprintf("vlmprio: %s: %v", e.Kind, e.Err)
}

func (e *ScoreError) Unwrap() error { return e.Err }

// KindOf returns the ErrorKind of err: the kind of a *ScoreError in its
// chain, else the scorer kind of the shared client's kind (KindCanceled
// for context cancellation, KindTimeout for a passed deadline), else
// KindOther.
func KindOf(err error) ErrorKind {
	var se *ScoreError
	if errors.As(err, &se) {
		return se.Kind
	}
	return scoreKind(err)
}

func scoreErr(kind ErrorKind, format string, args ...any) *ScoreError {
	return &ScoreError{Kind: kind, Err: fmt.Errorf(format, args...)}
}

// Prompts maps a task family to a prompt template. "{task}" in a template
// is replaced by the clip's task text. The "" key is the fallback template
// for families without their own.
type Prompts map[string]string

// DefaultPrompts returns the built-in yes/no templates. Each asks whether
// the frames (oldest first, left to right, top to bottom) show a clear
// instance of goal-directed progress, in the spirit of VLM-RB's "goal
// satisfaction anywhere in the clip" prompt.
func DefaultPrompts() Prompts {
	const tail = " Answer with a single word: Yes or No."
	const intro = "These frames come from a short video of a robot arm, in time order (left to right, top to bottom). The robot's task: {task}. "
	return Prompts{
		"":            intro + "Does the clip show a clear instance of progress toward or completion of the task anywhere in it?" + tail,
		"reach":       intro + "Does the gripper move to, or reach, the target marker anywhere in the clip?" + tail,
		"push":        intro + "Does the gripper make contact with the object and push it toward the goal marker anywhere in the clip?" + tail,
		"pick-place":  intro + "Does the gripper grasp the object, lift it off the table or carry it toward the goal marker anywhere in the clip?" + tail,
		"pick":        intro + "Does the gripper grasp the object and lift it off the table anywhere in the clip?" + tail,
		"pick_place":  intro + "Does the gripper grasp the object, lift it off the table or carry it toward the goal marker anywhere in the clip?" + tail,
		"press":       intro + "Does the gripper press the button down anywhere in the clip?" + tail,
		"sweep":       intro + "Does the gripper sweep the object toward the goal anywhere in the clip?" + tail,
		"articulated": intro + "Does the gripper grasp the handle or part and move it (open, close, press or turn it) anywhere in the clip?" + tail,
	}
}

// Render returns the prompt for family with task substituted. Unknown
// families use the "" template; when that is missing too, the default
// generic template is used.
func (p Prompts) Render(family, task string) string {
	t, ok := p[family]
	if !ok {
		t, ok = p[""]
	}
	if !ok {
		t = DefaultPrompts()[""]
	}
	if task == "" {
		task = "complete the manipulation task"
	}
	task = strings.TrimRight(strings.TrimSpace(task), ".")
	return strings.ReplaceAll(t, "{task}", task)
}
