package vlmclient

import (
	"net/http"
	"net/url"
	"strings"
)

// HostKey is the form hosts take in Config.HostKeys and SameHost:
// lower-case "scheme://host:port" with the scheme's default port filled in.
func HostKey(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return ""
	}
	return hostKey(u)
}

func hostKey(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	return scheme + "://" + strings.ToLower(u.Hostname()) + ":" + port
}

// SameHost reports whether two URLs name the same scheme, host and port.
func SameHost(a, b string) bool {
	ka := HostKey(a)
	return ka != "" && ka == HostKey(b)
}

// keyTransport sets "Authorization: Bearer <key>" on each request from the
// key configured for the request's own host, and removes any
// Authorization header (a bearer key, basic credentials) from a request to
// a host not configured at all: a key never follows a redirect to another
// host.
type keyTransport struct {
	next http.RoundTripper
	keys map[string]string // HostKey → key ("" : a configured host without a key)
}

func (t *keyTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	key, own := t.keys[hostKey(req.URL)]
	_, hasAuth := req.Header["Authorization"]
	if (own && key == "") || (!own && !hasAuth) {
		return t.next.RoundTrip(req)
	}
	r := req.Clone(req.Context()) // a RoundTripper must not change the caller's request
	r.Header.Del("Authorization")
	if own {
		r.Header.Set("Authorization", "Bearer "+key)
	}
	return t.next.RoundTrip(r)
}
