package vlmprio

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image/jpeg"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/vlmrb/vlmrb/frame"
)

// clip32 is a 32-frame clip (VLM-RB's L) of side×side synthetic scene
// frames of an expert pick-place episode.
func clip32(side int) *Clip {
	rng := rand.New(rand.NewPCG(3, 7))
	states := episode(true, 32, rng)
	c := &Clip{Task: "pick up the red puck and place it on the green goal", Family: "pick-place"}
	for i, s := range states {
		c.Frames = append(c.Frames, frame.Frame{Image: drawScene(s, side, side, rng), Seq: uint64(i)})
	}
	return c
}

// wireRequest is what the local server saw of one chat-completions call.
type wireRequest struct {
	raw  []byte
	body struct {
		Model    string `json:"model"`
		Messages []struct {
			Role    string                       `json:"role"`
			Content []map[string]json.RawMessage `json:"content"`
		} `json:"messages"`
	}
}

// TestClipFormatsOnTheWire sends a 32-frame 224×224 clip in each clip
// format to a local chat-completions server that checks the content parts
// as vLLM reads them, and logs request bytes and token estimates.
func TestClipFormatsOnTheWire(t *testing.T) {
	t.Parallel()
	const side = 224
	c := clip32(side)
	var mu sync.Mutex
	var got []wireRequest
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var wr wireRequest
		wr.raw, _ = io.ReadAll(r.Body)
		if err := json.Unmarshal(wr.raw, &wr.body); err != nil {
			t.Errorf("body is not a chat request: %v", err)
		}
		mu.Lock()
		got = append(got, wr)
		mu.Unlock()
		writeJSON(w, 200, logprobsReply(t, "Yes", []tok{{"Yes", lp(0.8)}, {"No", lp(0.2)}}))
	}))
	defer srv.Close()
	for _, format := range ClipFormats {
		t.Run(format, func(t *testing.T) {
			layout, err := ParseClipFormat(format)
			if err != nil {
				t.Fatal(err)
			}
			if layout == VideoPart && !FFmpegAvailable() {
				t.Skip("no ffmpeg on PATH")
			}
			enc := Encoding{Layout: layout, Frames: 32, Width: side, Height: side}
			if layout == ContactSheet {
				enc = DefaultEncoding() // today's sheet: 8 frames, 160×120 tiles
			}
			s, err := NewOpenAIScorer(OpenAIConfig{BaseURL: srv.URL + "/v1", Model: "Qwen/Qwen2.5-VL-7B-Instruct", Encoding: enc, CacheSize: -1})
			if err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			got = got[:0]
			mu.Unlock()
			sc, err := s.Score(context.Background(), c)
			if err != nil || sc.Value < 0.79 || sc.Value > 0.81 {
				t.Fatalf("score %v, %v; want 0.8", sc.Value, err)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(got) != 1 {
				t.Fatalf("%d requests, want 1", len(got))
			}
			req := got[0]
			parts := req.body.Messages[0].Content
			if typ := partType(parts[0]); typ != "text" {
				t.Fatalf("first part is %q, want the text prompt", typ)
			}
			media := parts[1:]
			est := EstimateTokens(enc, len(c.Frames))
			t.Logf("%s: %d media part(s), request %d bytes, ≈ %d tokens (Qwen2.5-VL) / %d (OpenAI detail low)",
				format, len(media), len(req.raw), est.Qwen, est.OpenAILow)
			switch layout {
			case ImageParts:
				if len(media) != 32 {
					t.Fatalf("%d image parts, want all 32 frames", len(media))
				}
				for i, p := range media {
					w, h := jpegPart(t, p)
					if w != side || h != side {
						t.Fatalf("image %d is %dx%d, want the frame's %dx%d", i, w, h, side, side)
					}
				}
			case ContactSheet:
				if len(media) != 1 {
					t.Fatalf("%d parts, want one sheet", len(media))
				}
				if w, h := jpegPart(t, media[0]); w != 480 || h != 360 {
					t.Fatalf("sheet %dx%d, want 480x360 (3×3 tiles of 160×120)", w, h)
				}
			case VideoPart:
				if len(media) != 1 || partType(media[0]) != "video_url" || media[0]["image_url"] != nil {
					t.Fatalf("video parts %s, want one {type: video_url, video_url: {url}}", req.raw[:min(len(req.raw), 300)])
				}
				var v struct {
					URL string `json:"url"`
				}
				if err := json.Unmarshal(media[0]["video_url"], &v); err != nil || !strings.HasPrefix(v.URL, "data:video/mp4;base64,") {
					t.Fatalf("video_url %q is not an MP4 data URL (%v)", v.URL[:min(len(v.URL), 40)], err)
				}
				mp4, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(v.URL, "data:video/mp4;base64,"))
				if err != nil || len(mp4) < 12 || string(mp4[4:8]) != "ftyp" {
					t.Fatalf("payload is not an MP4 file (%v)", err)
				}
				if n, w, h, ok := probeMP4(t, mp4); ok && (n != 32 || w != side || h != side) {
					t.Fatalf("MP4 has %d frames of %dx%d, want 32 of %dx%d", n, w, h, side, side)
				}
			}
		})
	}
}

func partType(p map[string]json.RawMessage) string {
	var s string
	_ = json.Unmarshal(p["type"], &s)
	return s
}

// jpegPart decodes an image_url part's JPEG data URL and returns its size.
func jpegPart(t *testing.T, p map[string]json.RawMessage) (w, h int) {
	t.Helper()
	if partType(p) != "image_url" {
		t.Fatalf("part type %q, want image_url", partType(p))
	}
	var u struct {
		URL string `json:"url"`
	}
	if err := json.Unmarshal(p["image_url"], &u); err != nil {
		t.Fatal(err)
	}
	b, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(u.URL, "data:image/jpeg;base64,"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("image part is not a JPEG: %v", err)
	}
	return cfg.Width, cfg.Height
}

// probeMP4 counts the video frames and reads the size with ffprobe (ok
// false when ffprobe is missing).
func probeMP4(t *testing.T, mp4 []byte) (frames, w, h int, ok bool) {
	t.Helper()
	bin, err := exec.LookPath("ffprobe")
	if err != nil {
		return 0, 0, 0, false
	}
	cmd := exec.Command(bin, "-v", "error", "-count_frames", "-select_streams", "v:0",
		"-show_entries", "stream=nb_read_frames,width,height,codec_name", "-of", "csv=p=0", "-i", "pipe:0")
	cmd.Stdin = bytes.NewReader(mp4)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("ffprobe: %v", err)
	}
	f := strings.Split(strings.TrimSpace(string(out)), ",")
	if len(f) != 4 || f[0] != "h264" {
		t.Fatalf("ffprobe says %q, want h264,w,h,frames", out)
	}
	w, _ = strconv.Atoi(f[1])
	h, _ = strconv.Atoi(f[2])
	frames, _ = strconv.Atoi(f[3])
	return frames, w, h, true
}

func TestEstimateTokens(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		enc  Encoding
		want TokenEstimate
	}{
		// 224 px = 8 patches of 28: 64 tokens a frame
		{"images", Encoding{Layout: ImageParts, Frames: 32, Width: 224, Height: 224}, TokenEstimate{OpenAILow: 32 * 85, Qwen: 32 * 64}},
		{"images-8", Encoding{Layout: ImageParts, Frames: 8, Width: 224, Height: 224}, TokenEstimate{OpenAILow: 8 * 85, Qwen: 8 * 64}},
		// frame pairs merged in time: 16 × 64
		{"video", Encoding{Layout: VideoPart, Frames: 32, Width: 224, Height: 224}, TokenEstimate{Qwen: 16 * 64}},
		// 480×360 sheet: round(480/28) × round(360/28) = 17 × 13
		{"sheet", DefaultEncoding(), TokenEstimate{OpenAILow: 85, Qwen: 17 * 13}},
	} {
		if got := EstimateTokens(tc.enc, 32); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestParseClipFormat(t *testing.T) {
	t.Parallel()
	for _, f := range ClipFormats {
		if _, err := ParseClipFormat(f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	if _, err := ParseClipFormat("gif"); err == nil {
		t.Error("gif accepted")
	}
}
