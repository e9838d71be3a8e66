package vlmhttp

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// Caps on one response (bytes). Chat completions with logprobs are a few
// kilobytes; an embedding of 4,096 floats in JSON is about 80 KB, a batch
// of 256 texts about 20 MB.
const (
	MaxChatBytes      = 8 << 20
	MaxEmbeddingBytes = 64 << 20
	MaxHeaderBytes    = 64 << 10
)

// ErrTooLarge reports a response over its cap. Clients count it as its
// own error kind and do not retry it.
var ErrTooLarge = errors.New("response too large")

// TooLargeError says which cap was hit.
type TooLargeError struct {
	Limit    int64 // bytes
	Declared int64 // Content-Length when the server announced one, else -1
}

func (e *TooLargeError) Error() string {
	if e.Declared >= 0 {
		return fmt.Sprintf("response too large: the server announced %d bytes (limit %d bytes)", e.Declared, e.Limit)
	}
	return fmt.Sprintf("response too large: more than %d bytes (limit); reading stopped", e.Limit)
}

// Is makes errors.Is(err, ErrTooLarge) true.
func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }

// Transport caps response bodies at Max bytes. The zero Base is a
// transport with bounded dial, TLS and header waits and MaxHeaderBytes.
type Transport struct {
	Base http.RoundTripper
	Max  int64
}

var (
	defaultOnce sync.Once
	defaultBase *http.Transport
)

// base is one shared transport (connection reuse across clients).
func base() *http.Transport {
	defaultOnce.Do(func() {
		defaultBase = &http.Transport{
			Proxy:                  http.ProxyFromEnvironment,
			DialContext:            (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			TLSHandshakeTimeout:    10 * time.Second,
			MaxResponseHeaderBytes: MaxHeaderBytes,
			MaxIdleConnsPerHost:    16,
			IdleConnTimeout:        90 * time.Second,
			ForceAttemptHTTP2:      true,
		}
	})
	return defaultBase
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	b := t.Base
	if b == nil {
		b = base()
	}
	resp, err := b.RoundTrip(req)
	if err != nil || t.Max <= 0 {
		return resp, err
	}
	if resp.ContentLength > t.Max {
		resp.Body.Close()
		return nil, &TooLargeError{Limit: t.Max, Declared: resp.ContentLength}
	}
	resp.Body = &cappedBody{rc: resp.Body, left: t.Max, limit: t.Max}
	return resp, nil
}

// cappedBody returns a *TooLargeError once more than limit bytes arrive,
// and closes the connection instead of draining it.
type cappedBody struct {
	rc    io.ReadCloser
	left  int64
	limit int64
	err   error
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if b.left <= 0 {
		// one byte more than the cap tells a body of exactly the cap
		// from a longer one
		var one [1]byte
		n, err := b.rc.Read(one[:])
		if n > 0 {
			b.err = &TooLargeError{Limit: b.limit, Declared: -1}
			return 0, b.err
		}
		return 0, err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *cappedBody) Close() error { return b.rc.Close() }

// Client returns a client whose responses are capped at max bytes. With
// hc nil it builds one on the shared transport; otherwise it returns a
// copy of hc whose transport is wrapped (hc itself is not changed).
func Client(hc *http.Client, max int64) *http.Client {
	if hc == nil {
		return &http.Client{Transport: &Transport{Max: max}}
	}
	c := *hc
	c.Transport = &Transport{Base: hc.Transport, Max: max}
	return &c
}
