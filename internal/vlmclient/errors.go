package vlmclient

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Error kinds, stable for metrics (Kind).
const (
	KindHTTP     = "http"      // the server answered with a non-2xx status (Error.Status)
	KindTimeout  = "timeout"   // an attempt or the caller's deadline expired
	KindNetwork  = "network"   // connection refused or reset, a body cut short
	KindParse    = "parse"     // a 2xx body that is not the expected JSON
	KindInput    = "input"     // the request cannot be built or sent (bad body, bad URL)
	KindBreaker  = "breaker"   // the circuit breaker refused the call; nothing was sent
	KindTooLarge = "too_large" // a response over its size cap (never retried)
	KindCanceled = "canceled"  // the caller's ctx was canceled
	KindOther    = "other"     // an error that did not come from a Client
)

// Error is the error a Client returns. Its message names the request
// ("POST http://host/v1/chat/completions: HTTP 503 …") with credentials
// redacted; Err keeps the cause for errors.Is and errors.As.
type Error struct {
	Kind     string // one of the Kind constants
	Status   int    // HTTP status for KindHTTP, else 0
	Attempts int    // HTTP requests made for this call (0: none sent)
	Op       string // "POST <url>" with credentials redacted
	Msg      string // short, redacted detail (an error body's message, an HTML page's title)
	Err      error  // the cause, redacted; may be nil
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Op)
	if e.Op != "" {
		b.WriteString(": ")
	}
	switch {
	case e.Status != 0:
		fmt.Fprintf(&b, "HTTP %d", e.Status)
		if e.Msg != "" {
			b.WriteString(": " + e.Msg)
		}
	case e.Msg != "" && e.Err != nil:
		b.WriteString(e.Msg + ": " + e.Err.Error())
	case e.Msg != "":
		b.WriteString(e.Msg)
	case e.Err != nil:
		b.WriteString(e.Err.Error())
	default:
		b.WriteString(e.Kind)
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " (after %d attempts)", e.Attempts)
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Kind returns the kind of err for counting errors by kind: the Kind of an
// *Error in its chain; KindCanceled or KindTimeout for a bare context
// error; KindOther for anything else; "" for nil.
func Kind(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	if errors.Is(err, context.Canceled) {
		return KindCanceled
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return KindTimeout
	}
	return KindOther
}

// Status returns the HTTP status of an *Error in err's chain, or 0.
func Status(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.Status
	}
	return 0
}

// summary shortens an error body: the "message" of an OpenAI-style error
// object, the <title> of an HTML page (proxy error pages), else the first
// 200 bytes.
func summary(b []byte) string {
	s := strings.TrimSpace(string(b))
	if msg := apiMessage(b); msg != "" {
		return truncate(msg, 200)
	}
	low := strings.ToLower(s)
	if i := strings.Index(low, "<title>"); i >= 0 {
		rest := s[i+len("<title>"):]
		if j := strings.Index(strings.ToLower(rest), "</title>"); j >= 0 {
			return "HTML page: " + truncate(strings.TrimSpace(rest[:j]), 120)
		}
	}
	if strings.HasPrefix(s, "<") {
		return "HTML page"
	}
	return truncate(s, 200)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
