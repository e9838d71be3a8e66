package embedtest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// Server is a running embeddings server.
type Server struct {
	*httptest.Server
	Model  string       // the only model name it accepts
	Images atomic.Int64 // images embedded
	Texts  atomic.Int64 // texts embedded
	Fail   atomic.Int32 // answer this many next requests with 503
}

// New starts a server for model on a local port; it is closed when the
// test ends.
func New(t testing.TB, model string) *Server {
	s := &Server{Model: model}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.Close)
	return s
}

// ImageEmbedding is the embedding the server returns for img.
func ImageEmbedding(img image.Image) []float64 {
	var e [3]float64
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			e[0] += float64(r)
			e[1] += float64(g)
			e[2] += float64(bl)
		}
	}
	return e[:]
}

// TextEmbedding is the embedding the server returns for txt.
func TextEmbedding(txt string) []float64 {
	e := []float64{0.1, 0.1, 0.1}
	for _, w := range strings.Fields(txt) {
		switch w {
		case "red":
			e[0]++
		case "green":
			e[1]++
		case "blue":
			e[2]++
		}
	}
	return e
}

type part struct {
	Type     string `json:"type"`
	ImageURL *struct {
		URL string `json:"url"`
	} `json:"image_url"`
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/embeddings" || r.Method != http.MethodPost {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	if s.Fail.Add(-1) >= 0 {
		http.Error(w, `{"error":{"message":"overloaded"}}`, http.StatusServiceUnavailable)
		return
	}
	var req struct {
		Model    string   `json:"model"`
		Input    []string `json:"input"`
		Messages []struct {
			Role    string `json:"role"`
			Content []part `json:"content"`
		} `json:"messages"`
		Format string `json:"encoding_format"`
	}
	body, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(body, &req); err != nil || req.Model != s.Model || req.Format != "float" {
		http.Error(w, "bad request: "+string(body), http.StatusBadRequest)
		return
	}
	var embs [][]float64
	if req.Messages != nil {
		if len(req.Messages) != 1 || len(req.Messages[0].Content) != 1 || req.Messages[0].Content[0].Type != "image_url" ||
			req.Messages[0].Content[0].ImageURL == nil {
			http.Error(w, "want one image_url part", http.StatusBadRequest)
			return
		}
		url := req.Messages[0].Content[0].ImageURL.URL
		const pre = "data:image/png;base64,"
		raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(url, pre))
		if !strings.HasPrefix(url, pre) || err != nil {
			http.Error(w, "bad data URL", http.StatusBadRequest)
			return
		}
		img, err := png.Decode(bytes.NewReader(raw))
		if err != nil {
			http.Error(w, "bad png", http.StatusBadRequest)
			return
		}
		embs = append(embs, ImageEmbedding(img))
		s.Images.Add(1)
	} else {
		for _, txt := range req.Input {
			embs = append(embs, TextEmbedding(txt))
			s.Texts.Add(1)
		}
	}
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float64 `json:"embedding"`
	}
	resp := struct {
		Object string `json:"object"`
		Data   []item `json:"data"`
		Model  string `json:"model"`
	}{Object: "list", Model: req.Model}
	for i := len(embs) - 1; i >= 0; i-- { // out of order on purpose: index decides
		resp.Data = append(resp.Data, item{"embedding", i, embs[i]})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(resp)
}
