package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const leakKey = "sk-proj-LEAKCANARY-5566778899"

// echoKeyServer answers every chat completion with OpenAI's 401 body,
// echoing the Authorization header and the request URL in full.
func echoKeyServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error":{"message":"Incorrect API key provided: %s (url %s, basic %s)","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`,
			r.Header.Get("Authorization"), r.URL.String(), r.URL.Query().Get("api_key"))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestKeyNeverPrinted runs the real binary with the key in the
// environment and credentials in the base URL against a server that
// echoes them: neither stdout (plain and --json), stderr, nor any file of
// the run holds them, and score fails (exit 1) because no clip was scored.
func TestKeyNeverPrinted(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildBinary(t)
	srv := echoKeyServer(t)
	base := strings.Replace(srv.URL, "http://", "http://alice:PWCANARY42@", 1) + "/v1?api_key=QKCANARY77"
	env := append(os.Environ(), "OPENAI_API_KEY="+leakKey)
	check := func(what string, b []byte) {
		t.Helper()
		for _, s := range []string{leakKey, "LEAKCANARY", "PWCANARY42", "QKCANARY77"} {
			if bytes.Contains(b, []byte(s)) {
				t.Fatalf("%s holds %q:\n%s", what, s, b)
			}
		}
	}
	for _, asJSON := range []bool{false, true} {
		args := []string{"score", "--source", "sim:reach", "--scorer", "openai", "--clips", "2", "--render-backend", "soft",
			"--vlm-base-url", base, "--vlm-model", "m", "--timeout", "5s"}
		if asJSON {
			args = append(args, "--json")
		}
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		var so, se bytes.Buffer
		cmd.Stdout, cmd.Stderr = &so, &se
		err := cmd.Run()
		check("score stdout", so.Bytes())
		check("score stderr", se.Bytes())
		if exitCode(err) != exitFailure || !strings.Contains(se.String(), "no clip was scored") || !strings.Contains(se.String(), "client 2") {
			t.Fatalf("score against a 401 server: %v\nstdout %s\nstderr %s", err, so.String(), se.String())
		}
		if asJSON {
			for _, l := range strings.Split(strings.TrimSpace(so.String()), "\n") {
				var v scoreLine
				if err := json.Unmarshal([]byte(l), &v); err != nil || v.Score != nil || !strings.Contains(v.Error, "Incorrect API key provided") {
					t.Fatalf("JSON line %q: %v", l, err)
				}
			}
		}
	}

	// a training run against the same server: the run continues (VLM-RB
	// keeps p̄), and neither console nor files hold a credential
	dir := t.TempDir()
	out := filepath.Join(dir, "run")
	small := writeConfig(t, dir, "vlm: {width: 32, height: 32, frames: 4}") // the server refuses them anyway
	cmd := exec.Command(bin, tiny(out, "--config", small, "--replay", "vlmrb", "--scorer", "openai", "--vlm-base-url", base, "--vlm-model", "m",
		"--render-backend", "soft")...)
	cmd.Env = env
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	done := make(chan error, 1)
	go func() { done <- cmd.Run() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("train: %v\n%s", err, se.String())
		}
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		t.Fatal("train against a 401 server did not finish")
	}
	check("train stdout", so.Bytes())
	check("train stderr", se.Bytes())
	err := filepath.Walk(out, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		check(p, b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := os.ReadFile(filepath.Join(out, "config.yaml"))
	if err != nil || !strings.Contains(string(cfg), strings.TrimPrefix(srv.URL, "http://")+"/v1") {
		t.Fatalf("config.yaml lost the server address: %v\n%s", err, cfg)
	}
}
