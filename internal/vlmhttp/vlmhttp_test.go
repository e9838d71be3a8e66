package vlmhttp

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestCapStopsReading serves 200 MB and checks the client gets ErrTooLarge
// after reading at most the cap, with and without a Content-Length.
func TestCapStopsReading(t *testing.T) {
	const total, limit = 200 << 20, 1 << 20
	var sent atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("declared") != "" {
			w.Header().Set("Content-Length", fmt.Sprint(total))
		}
		chunk := []byte(strings.Repeat("y", 64<<10))
		for sent.Load() < total {
			n, err := w.Write(chunk)
			sent.Add(int64(n))
			if err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	hc := Client(nil, limit)
	for _, q := range []string{"", "?declared=1"} {
		sent.Store(0)
		resp, err := hc.Get(srv.URL + q)
		var n int64
		if err == nil {
			n, err = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		var tl *TooLargeError
		if !errors.Is(err, ErrTooLarge) || !errors.As(err, &tl) || tl.Limit != limit {
			t.Fatalf("%q: err %v, want a *TooLargeError", q, err)
		}
		if n > limit {
			t.Fatalf("%q: read %d bytes past the %d cap", q, n, limit)
		}
		if q != "" && !strings.Contains(err.Error(), "announced 209715200 bytes") {
			t.Fatalf("declared size not named: %v", err)
		}
	}
	// exactly the cap is fine
	srv2 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write(make([]byte, limit))
	}))
	defer srv2.Close()
	resp, err := hc.Get(srv2.URL)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || len(b) != limit {
		t.Fatalf("a body of exactly the cap: %d bytes, %v", len(b), err)
	}
}
