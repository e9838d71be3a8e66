package redact

import (
	"io"
	"net/url"
	"regexp"
	"strings"
	"sync"
)

// Mask replaces every secret.
const Mask = "REDACTED"

// minSecret is the shortest explicit secret that is masked: shorter
// strings would mask ordinary words. (IP cameras ship with passwords as
// short as three characters.)
const minSecret = 3

var (
	// "Bearer xyz", "Basic xyz" (Authorization values, also when echoed)
	bearerRE = regexp.MustCompile(`(?i)\b(bearer)\s+[A-Za-z0-9._~+/=\-]{4,}`)
	basicRE  = regexp.MustCompile(`(?i)\b(basic)\s+[A-Za-z0-9+/]{8,}={0,2}`)
	// OpenAI-style keys, also inside other text
	skRE = regexp.MustCompile(`\bsk-[A-Za-z0-9_\-]{6,}`)
	// scheme://user:pass@host
	userinfoRE = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.\-]*://)[^/\s@?#"']+@`)
	// ?api_key=… &token=… in URLs or form text; also "api_key": "…" in JSON
	queryRE = regexp.MustCompile(`(?i)([?&;](?:[a-z0-9_\-]*(?:key|token|secret|password|passwd|pwd|pass|auth|sig|signature|credential)[a-z0-9_\-]*)=)[^&\s"'#]+`)
	jsonRE  = regexp.MustCompile(`(?i)("(?:api[_\-]?key|apikey|access[_\-]?token|token|secret|password|authorization)"\s*:\s*")[^"]*(")`)
)

// String returns s with every given secret and every credential-looking
// substring replaced by Mask.
func String(s string, secrets ...string) string {
	for _, sec := range secrets {
		if len(sec) >= minSecret {
			s = strings.ReplaceAll(s, sec, Mask)
			if e := url.QueryEscape(sec); e != sec {
				s = strings.ReplaceAll(s, e, Mask)
			}
		}
	}
	s = bearerRE.ReplaceAllString(s, "${1} "+Mask)
	s = basicRE.ReplaceAllString(s, "${1} "+Mask)
	s = skRE.ReplaceAllString(s, "sk-"+Mask)
	s = userinfoRE.ReplaceAllString(s, "${1}"+Mask+"@")
	s = queryRE.ReplaceAllString(s, "${1}"+Mask)
	s = jsonRE.ReplaceAllString(s, "${1}"+Mask+"${2}")
	return s
}

// redacted is an error whose message is masked; Unwrap keeps errors.Is
// and errors.As working on the original chain.
type redacted struct {
	msg string
	err error
}

func (e *redacted) Error() string { return e.msg }
func (e *redacted) Unwrap() error { return e.err }

// Error returns err with its message masked (nil stays nil). The original
// error stays reachable through errors.Is/As, never through Error().
func Error(err error, secrets ...string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	m := String(msg, secrets...)
	if m == msg {
		return err
	}
	return &redacted{msg: m, err: err}
}

// sensitiveParam reports query parameter names whose values are
// credentials.
func sensitiveParam(k string) bool {
	k = strings.ToLower(k)
	// user and login too: IP cameras take ?user=…&pwd=…
	for _, s := range []string{"key", "token", "secret", "password", "passwd", "pwd", "pass", "auth", "sig", "credential", "user", "login"} {
		if strings.Contains(k, s) {
			return true
		}
	}
	return false
}

// URL returns raw with user-info and key-like query values masked. An
// unparsable URL is masked by pattern.
func URL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return String(raw)
	}
	if u.User != nil {
		u.User = url.User(Mask)
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			if sensitiveParam(k) {
				q[k] = []string{Mask}
			}
		}
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// Credentials are what StripURL removed from a URL.
type Credentials struct {
	User, Password string
	Query          url.Values // key-like query parameters
}

// Empty reports whether nothing was removed.
func (c Credentials) Empty() bool { return c.User == "" && c.Password == "" && len(c.Query) == 0 }

// Secrets lists the secret values (for String and Error).
func (c Credentials) Secrets() []string {
	var out []string
	if c.Password != "" {
		out = append(out, c.Password)
	}
	for _, vs := range c.Query {
		out = append(out, vs...)
	}
	return out
}

// StripURL returns raw without user-info and key-like query parameters,
// and what it removed. A URL that does not parse is returned masked by
// pattern, with nothing removed.
func StripURL(raw string) (string, Credentials) {
	var c Credentials
	u, err := url.Parse(raw)
	if err != nil {
		return String(raw), c
	}
	if u.User != nil {
		c.User = u.User.Username()
		c.Password, _ = u.User.Password()
		u.User = nil
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k, vs := range q {
			if sensitiveParam(k) {
				if c.Query == nil {
					c.Query = url.Values{}
				}
				c.Query[k] = vs
				delete(q, k)
			}
		}
		u.RawQuery = q.Encode()
	}
	return u.String(), c
}

// Writer masks everything written through it. Each Write is masked on
// its own: callers write whole lines (fmt.Fprintf), so a secret is never
// split across two writes.
type Writer struct {
	mu      sync.Mutex
	w       io.Writer
	secrets []string
}

// NewWriter wraps w. Secrets shorter than 4 bytes are ignored.
func NewWriter(w io.Writer, secrets ...string) *Writer {
	var keep []string
	for _, s := range secrets {
		if len(s) >= minSecret {
			keep = append(keep, s)
		}
	}
	return &Writer{w: w, secrets: keep}
}

// Unwrap returns the wrapped writer (for terminal detection).
func (w *Writer) Unwrap() io.Writer { return w.w }

// Write masks p and writes it; it reports len(p) on success so callers
// that check the count are not confused by a shorter masked text.
func (w *Writer) Write(p []byte) (int, error) {
	s := String(string(p), w.secrets...)
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, err := io.WriteString(w.w, s); err != nil {
		return 0, err
	}
	return len(p), nil
}
