package vlmreward

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/png"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// chatServer speaks chat completions: it checks the request (temperature
// 0, the enum schema, a PNG data URL), rates the image by its mean red
// channel (0–84 Bad, 85–169 Average, 170+ Good) and answers in the
// OpenAI response format (the recorded fixture with its content replaced).
// Images whose green channel is 1 get a 500, green 2 an off-list answer.
func chatServer(t *testing.T, twoStage bool) (*httptest.Server, *atomic.Int64) {
	// a real response recorded from OpenAI's API (research/fixtures/ecosystem)
	fixture, err := os.ReadFile(filepath.Join("testdata", "openai_chat_image_input_response.json"))
	if err != nil {
		t.Fatalf("fixture: %v", err)
	}
	var calls atomic.Int64
	reply := func(w http.ResponseWriter, content string) {
		var m map[string]any
		if err := json.Unmarshal(fixture, &m); err != nil {
			t.Error(err)
		}
		m["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)["content"] = content
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(m)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.URL.Path != "/v1/chat/completions" {
			http.Error(w, "not found", 404)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(body, &raw); err != nil || string(raw["temperature"]) != "0" {
			http.Error(w, "want temperature 0", 400)
			return
		}
		var req chatRequest
		_ = json.Unmarshal(body, &req)
		text := ""
		var url string
		for _, p := range req.Messages[0].Content {
			switch p.Type {
			case "text":
				text += p.Text
			case "image_url":
				url = p.ImageURL.URL
			}
		}
		if req.ResponseFormat == nil { // stage 1: analysis of the image
			if !twoStage || url == "" || !strings.Contains(text, "carefully analyze the image") {
				http.Error(w, "unexpected analysis call", 400)
				return
			}
			reply(w, "ANALYSIS:"+fmt.Sprint(meanRG(t, url)))
			return
		}
		sch, _ := json.Marshal(req.ResponseFormat.JSONSchema.Schema)
		if req.ResponseFormat.Type != "json_schema" || !strings.Contains(string(sch), `"enum":["Bad","Average","Good"]`) ||
			!strings.Contains(text, "[Bad, Average, Good]") || !strings.Contains(text, "[open the drawer]") {
			http.Error(w, "bad stage-2 request: "+string(body[:min(len(body), 300)]), 400)
			return
		}
		var red, green float64
		if twoStage {
			if url != "" {
				http.Error(w, "stage 2 must be text-only", 400)
				return
			}
			i := strings.Index(text, "ANALYSIS:[")
			fmt.Sscanf(text[i+len("ANALYSIS:["):], "%g %g", &red, &green)
		} else {
			rg := meanRG(t, url)
			red, green = rg[0], rg[1]
		}
		switch {
		case green == 1:
			http.Error(w, "boom", 500)
		case green == 2:
			reply(w, `{"rating": "Excellent"}`)
		case red < 85:
			reply(w, `{"rating": "Bad"}`)
		case red < 170:
			reply(w, "```json\n{\"rating\": \"Average\"}\n```")
		default:
			reply(w, `{"rating":"Good"}`)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func meanRG(t *testing.T, url string) [2]float64 {
	raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(url, "data:image/png;base64,"))
	if err != nil {
		t.Error(err)
		return [2]float64{}
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Error(err)
		return [2]float64{}
	}
	r, g, _, _ := img.At(0, 0).RGBA()
	return [2]float64{float64(r >> 8), float64(g >> 8)}
}

func TestOpenAIRaterOverHTTP(t *testing.T) {
	for _, two := range []bool{false, true} {
		t.Run(fmt.Sprint("twostage=", two), func(t *testing.T) {
			srv, calls := chatServer(t, two)
			rt, err := NewOpenAIRater(OpenAIRaterConfig{BaseURL: srv.URL + "/v1", Model: "m", Classes: 3, TwoStage: two,
				MaxRetries: 1, Backoff: 1})
			if err != nil {
				t.Fatal(err)
			}
			qs := []*Query{
				{Image: solid(10, 0, 0), Task: "open the drawer", Progress: math.NaN()},
				{Image: solid(120, 0, 0), Task: "open the drawer"},
				{Image: solid(250, 0, 0), Task: "open the drawer"},
				{Image: solid(250, 1, 0), Task: "open the drawer"}, // server error (retried once, then dropped)
				{Image: solid(250, 2, 0), Task: "open the drawer"}, // off-list answer: dropped, not class 0
			}
			labels := make([]int, len(qs))
			st := RateAll(context.Background(), rt, qs, labels, 2)
			want := []int{0, 1, 2, -1, -1}
			for i := range want {
				if labels[i] != want[i] {
					t.Fatalf("labels %v, want %v (first error %v)", labels, want, st.FirstErr)
				}
			}
			if st.Rated != 3 || st.Failed != 2 || rt.Errors() != 2 {
				t.Fatalf("stats %+v, rater errors %d", st, rt.Errors())
			}
			per := int64(1)
			if two {
				per = 2
			}
			// 4 good queries × per calls + the 500 query's final call retried once
			if want := 4*per + per + 1; calls.Load() != want {
				t.Fatalf("%d HTTP calls, want %d", calls.Load(), want)
			}
		})
	}
}
