package redact

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

const key = "sk-test-0123456789abcdef"

func TestString(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, in, leak string }{
		{"openai 401", `{"error":{"message":"Incorrect API key provided: Bearer ` + key + `."}}`, key},
		{"configured key anywhere", "key is zzzz-secret-zzzz here", "zzzz-secret-zzzz"},
		{"authorization header", "Authorization: Bearer abcd.efgh-ijkl", "abcd.efgh-ijkl"},
		{"basic", "Authorization: Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA"},
		{"userinfo", `Post "http://alice:hunter22@127.0.0.1:9/v1/chat/completions": dial tcp`, "hunter22"},
		{"query key", `Post "http://127.0.0.1:9/v1/chat/completions?api_key=qwerty123&x=1": EOF`, "qwerty123"},
		{"gemini key param", "https://host/v1beta?key=AIzaSyD-abcdefg", "AIzaSyD-abcdefg"},
		{"json field", `{"api_key": "plainsecret"}`, "plainsecret"},
		{"escaped key", "a=zzzz+secret%2Fzzzz", "secret%2Fzzzz"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := String(tc.in, "zzzz-secret-zzzz", "zzzz secret/zzzz")
			if strings.Contains(got, tc.leak) {
				t.Fatalf("String(%q) = %q still holds %q", tc.in, got, tc.leak)
			}
			if !strings.Contains(got, Mask) {
				t.Fatalf("String(%q) = %q: nothing masked", tc.in, got)
			}
		})
	}
	// ordinary text is left alone
	for _, s := range []string{"HTTP 503: Service Unavailable", "the key was wrong", "basic auth required", "http://127.0.0.1:8000/v1"} {
		if got := String(s); got != s {
			t.Errorf("String(%q) = %q, want unchanged", s, got)
		}
	}
}

func TestErrorKeepsChain(t *testing.T) {
	t.Parallel()
	base := io.ErrUnexpectedEOF
	err := Error(fmt.Errorf("POST http://u:%s@h/v1: %w", "pw123456", base))
	if strings.Contains(err.Error(), "pw123456") || !errors.Is(err, base) {
		t.Fatalf("Error: %v (Is %v)", err, errors.Is(err, base))
	}
	if Error(nil) != nil {
		t.Fatal("Error(nil) != nil")
	}
}

func TestStripURL(t *testing.T) {
	t.Parallel()
	got, c := StripURL("http://bob:pw9876@127.0.0.1:8000/v1?api_key=k12345&model=x")
	if got != "http://127.0.0.1:8000/v1?model=x" {
		t.Fatalf("StripURL = %q", got)
	}
	if c.User != "bob" || c.Password != "pw9876" || c.Query.Get("api_key") != "k12345" || c.Empty() {
		t.Fatalf("credentials %+v", c)
	}
	if u := URL("http://bob:pw9876@h/v1?token=abcd"); strings.Contains(u, "pw9876") || strings.Contains(u, "abcd") {
		t.Fatalf("URL = %q", u)
	}
	if _, c := StripURL("http://127.0.0.1:8000/v1"); !c.Empty() {
		t.Fatalf("credentials found in a clean URL: %+v", c)
	}
}

func TestWriter(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	w := NewWriter(&b, key, "ab") // "ab" is too short to mask
	line := "error: HTTP 401: Incorrect API key provided: " + key + " (tab)\n"
	n, err := fmt.Fprint(w, line)
	if err != nil || n != len(line) {
		t.Fatalf("Fprint = %d, %v", n, err)
	}
	if strings.Contains(b.String(), key) || !strings.Contains(b.String(), "(tab)") {
		t.Fatalf("written %q", b.String())
	}
}

func FuzzString(f *testing.F) {
	f.Add("Bearer " + key + " http://u:p@h/?key=v")
	f.Fuzz(func(t *testing.T, s string) {
		out := String(s, key)
		if strings.Contains(out, key) {
			t.Fatalf("key survived in %q", out)
		}
	})
}
