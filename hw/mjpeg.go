package hw

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// httpTransport is shared by MJPEG sources: no overall timeout (streams are
// endless), bounded dial and header waits; stalls are caught by the
// source's watchdog.
var httpTransport = &http.Transport{
	Proxy:                 http.ProxyFromEnvironment,
	DialContext:           (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
	TLSHandshakeTimeout:   5 * time.Second,
	ResponseHeaderTimeout: 10 * time.Second,
	// cameras send a handful of headers; a flood fails the connection
	MaxResponseHeaderBytes: 64 << 10,
	MaxIdleConnsPerHost:    1,
	DisableCompression:     true,
}

// OpenMJPEG connects to an MJPEG-over-HTTP stream (multipart/x-mixed-replace)
// at rawURL, which may carry "user:password@" for HTTP basic auth. It
// returns once the first response has arrived (retrying transient failures
// until ctx ends); bad credentials, 404 and non-multipart responses fail at
// once. Errors and logs show the URL with credentials redacted.
func OpenMJPEG(ctx context.Context, rawURL string, opts Options) (*MJPEGSource, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		// url.Parse errors quote the input: never show it
		return nil, fmt.Errorf("hw: bad MJPEG URL %q", redactSpec(rawURL))
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("hw: MJPEG URL %s: scheme must be http or https", redactURL(u))
	}
	opts = opts.withDefaults()
	if err := opts.validate(); err != nil {
		return nil, err
	}
	name := opts.Camera
	if name == "" {
		name = redactURL(u)
	}
	m := &mjpegConn{name: redactURL(u), max: opts.MaxFrameBytes, secrets: urlSecrets(u)}
	if u.User != nil {
		m.user = u.User.Username()
		m.pass, _ = u.User.Password()
	}
	clean := *u
	clean.User = nil
	m.url = clean.String()
	l, err := startLive(ctx, name, opts, m.connect)
	if err != nil {
		return nil, scrub(err, m.secrets...)
	}
	return &MJPEGSource{live: l}, nil
}

// MJPEGSource is a frame.Source over an MJPEG-over-HTTP stream.
type MJPEGSource struct{ *live }

type mjpegConn struct {
	name       string // redacted URL
	url        string // without userinfo
	user, pass string
	max        int
	secrets    []string // never printed: password, credential query values
}

// connect runs one HTTP streaming connection.
func (m *mjpegConn) connect(ctx context.Context, s *sink) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, m.url, nil)
	if err != nil {
		return permanent(fmt.Errorf("hw: %s: %w", m.name, scrub(err, m.secrets...)))
	}
	if m.user != "" || m.pass != "" {
		req.SetBasicAuth(m.user, m.pass)
	}
	req.Header.Set("Accept", "multipart/x-mixed-replace, image/jpeg")
	resp, err := httpTransport.RoundTrip(req)
	if err != nil {
		return fmt.Errorf("hw: %s: %w", m.name, scrub(unwrapURLError(err), m.secrets...))
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return permanent(fmt.Errorf("hw: %s: %s (check the credentials in the URL)", m.name, resp.Status))
	case resp.StatusCode == http.StatusNotFound:
		return permanent(fmt.Errorf("hw: %s: %s", m.name, resp.Status))
	case resp.StatusCode != http.StatusOK:
		return fmt.Errorf("hw: %s: %s", m.name, resp.Status)
	}
	boundary, err := boundaryOf(resp.Header.Get("Content-Type"))
	if err != nil {
		return permanent(fmt.Errorf("hw: %s: %w", m.name, err))
	}
	s.connected()
	pr := newPartReader(resp.Body, boundary, m.max)
	for {
		p := s.buffer()
		data, err := pr.next(p.data)
		t := time.Now()
		if err != nil {
			s.discard(p)
			if err == io.EOF {
				return nil
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("hw: %s: %w", m.name, err)
		}
		if !s.keep(t) {
			p.data = data
			s.discard(p)
			continue
		}
		p.kind, p.data, p.t, p.w, p.h = kindJPEG, data, t, 0, 0
		s.publish(p)
	}
}

// boundaryOf extracts the multipart boundary from a Content-Type header.
// It returns "" (learn it from the body) for application/octet-stream,
// which ffmpeg's -listen mode sends, or for a multipart type without one.
func boundaryOf(contentType string) (string, error) {
	if contentType == "" {
		return "", nil
	}
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		// some cameras send "multipart/x-mixed-replace;boundary=--foo bar"
		if strings.HasPrefix(strings.ToLower(contentType), "multipart/") {
			return "", nil
		}
		return "", fmt.Errorf("bad Content-Type %q: %w", contentType, err)
	}
	switch {
	case strings.HasPrefix(mt, "multipart/"):
		return params["boundary"], nil
	case mt == "application/octet-stream":
		return "", nil
	}
	return "", fmt.Errorf("content type %q is not an MJPEG stream (want multipart/x-mixed-replace)", mt)
}

// unwrapURLError drops *url.Error's "Get <url>:" prefix; the URL is
// reported redacted by the caller instead.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
