package vlmprio

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/image/draw"

	"github.com/vlmrb/vlmrb/internal/vlmclient"
)

// Clip formats: how a clip reaches the VLM (train's vlm.clip_format).
//
//   - "images" (ImageParts): every frame of the clip (or Encoding.Frames of
//     them, evenly spread) as its own image_url part, each at the frame's
//     own size. This is the L-frame clip VLM-RB scores; every
//     OpenAI-compatible server with multi-image input takes it (vLLM needs
//     --limit-mm-per-prompt image=N for N > its default).
//   - "video" (VideoPart): one video_url part holding an H.264 MP4 of the
//     frames (data:video/mp4;base64,…), made with the ffmpeg executable.
//     vLLM and SGLang accept video_url for their video-capable models
//     (Qwen2-VL, Qwen2.5-VL, LLaVA-OneVision, LLaVA-NeXT-Video, InternVL
//     among them, per their multimodal docs); OpenAI's and Gemini's
//     OpenAI-compatible endpoints do not.
//   - "sheet" (ContactSheet): Encoding.Frames frames shrunk and tiled into
//     one JPEG, the cheap deviation: one image's tokens for the whole clip,
//     at the price of small tiles and time order read off a grid.
var ClipFormats = []string{"images", "video", "sheet"}

// VideoPart sends the clip as one MP4 video_url part (see ClipFormats).
const VideoPart Layout = ImageParts + 1

// ParseClipFormat maps a ClipFormats name to a Layout.
func ParseClipFormat(s string) (Layout, error) {
	switch strings.ToLower(s) {
	case "images":
		return ImageParts, nil
	case "video":
		return VideoPart, nil
	case "sheet":
		return ContactSheet, nil
	}
	return 0, fmt.Errorf("vlmprio: unknown clip format %q (want one of %v)", s, ClipFormats)
}

// ErrNoFFmpeg is returned for the video clip format when no ffmpeg
// executable is on PATH.
var ErrNoFFmpeg = errors.New("vlmprio: the video clip format needs ffmpeg on PATH (install ffmpeg, or use clip_format images or sheet)")

// FFmpegAvailable reports whether the video clip format can encode.
func FFmpegAvailable() bool {
	_, err := exec.LookPath("ffmpeg")
	return err == nil
}

// VideoFPS is the frame rate written into clip MP4s: 32 frames make a 4 s
// video, long enough for video models that sample at 1–2 fps to take
// several frames and short enough to keep the step order visible.
const VideoFPS = 8

// encodeVideo returns the clip's subsampled frames as an MP4 data URL.
func encodeVideo(c *Clip, enc Encoding) (string, error) {
	enc = enc.withDefaults()
	if c == nil || len(c.Frames) == 0 {
		return "", ErrEmptyClip
	}
	idx := SubsampleIndices(len(c.Frames), enc.Frames)
	frames := make([]*image.RGBA, 0, len(idx))
	for _, i := range idx {
		img := c.Frames[i].Image
		if img == nil {
			return "", fmt.Errorf("vlmprio: clip frame %d has no image", i)
		}
		if enc.Width != img.Rect.Dx() || enc.Height != img.Rect.Dy() {
			dst := image.NewRGBA(image.Rect(0, 0, enc.Width, enc.Height))
			draw.ApproxBiLinear.Scale(dst, dst.Rect, img, img.Rect, draw.Src, nil)
			img = dst
		}
		frames = append(frames, img)
	}
	mp4, err := EncodeMP4(frames, VideoFPS)
	if err != nil {
		return "", err
	}
	return vlmclient.DataURL("video/mp4", mp4), nil
}

// EncodeMP4 encodes equal-sized frames as an H.264 (yuv420p, CRF 23) MP4
// at fps frames per second through ffmpeg and returns the file's bytes.
// Odd sizes are padded to even ones, as yuv420p requires.
func EncodeMP4(frames []*image.RGBA, fps int) ([]byte, error) {
	if len(frames) == 0 {
		return nil, ErrEmptyClip
	}
	bin, err := exec.LookPath("ffmpeg")
	if err != nil {
		return nil, ErrNoFFmpeg
	}
	b := frames[0].Rect
	w, h := b.Dx(), b.Dy()
	for i, f := range frames {
		if f.Rect.Size() != b.Size() {
			return nil, fmt.Errorf("vlmprio: MP4 frame %d is %v, frame 0 is %v", i, f.Rect.Size(), b.Size())
		}
	}
	dir, err := os.MkdirTemp("", "vlmprio-mp4-")
	if err != nil {
		return nil, fmt.Errorf("vlmprio: %w", err)
	}
	defer func() { _ = os.RemoveAll(dir) }()
	out := filepath.Join(dir, "clip.mp4")
	// +faststart puts the index first, which decoders reading from memory
	// (OpenCV, PyAV, decord) prefer
	cmd := exec.Command(bin, "-hide_banner", "-loglevel", "error", "-y",
		"-f", "rawvideo", "-pix_fmt", "rgba", "-s", strconv.Itoa(w)+"x"+strconv.Itoa(h), "-r", strconv.Itoa(fps), "-i", "-",
		"-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2", "-c:v", "libx264", "-preset", "veryfast", "-crf", "23",
		"-pix_fmt", "yuv420p", "-movflags", "+faststart", out)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("vlmprio: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("vlmprio: starting ffmpeg: %w", err)
	}
	var werr error
	for _, f := range frames {
		for y := 0; y < h && werr == nil; y++ {
			o := f.PixOffset(b.Min.X, b.Min.Y+y)
			_, werr = in.Write(f.Pix[o : o+4*w])
		}
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		return nil, fmt.Errorf("vlmprio: ffmpeg: %w: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	if werr != nil {
		return nil, fmt.Errorf("vlmprio: feeding ffmpeg: %w", werr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		return nil, fmt.Errorf("vlmprio: %w", err)
	}
	return data, nil
}

// TokenEstimate is the approximate prompt cost of a clip's media parts for
// two common model families (text tokens not included).
type TokenEstimate struct {
	// OpenAILow is OpenAI's count for detail "low": 85 tokens per image
	// whatever its size (video is not accepted there: 0).
	OpenAILow int
	// Qwen is Qwen2-VL / Qwen2.5-VL's count: one token per 28×28 pixel
	// patch (14 px patches merged 2×2), sizes rounded to multiples of 28;
	// video frames are additionally merged in pairs over time.
	Qwen int
}

// EstimateTokens returns the media token estimate of a clip of n frames
// sent with enc (Layout, Frames, Width, Height, Cols as EncodeClip uses).
func EstimateTokens(enc Encoding, n int) TokenEstimate {
	enc = enc.withDefaults()
	k := len(SubsampleIndices(n, enc.Frames))
	patches := func(w, h int) int {
		r := func(x int) int { return max(1, (x+14)/28) }
		return r(w) * r(h)
	}
	switch enc.Layout {
	case ImageParts:
		return TokenEstimate{OpenAILow: 85 * k, Qwen: k * patches(enc.Width, enc.Height)}
	case VideoPart:
		return TokenEstimate{Qwen: (k + 1) / 2 * patches(enc.Width, enc.Height)}
	}
	w, h := enc.SheetSize(k)
	return TokenEstimate{OpenAILow: 85, Qwen: patches(w, h)}
}

// renameVideoParts moves "image_url" to "video_url" in every content part
// of type video_url (dropping the image-only "detail" hint), the key vLLM
// and SGLang read: go-openai's ChatMessagePart knows only text and
// image_url, so request builds a video part as {"type": "video_url",
// "image_url": {...}} and scoreMode renames the key in the encoded body.
func renameVideoParts(body []byte) ([]byte, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return nil, false
	}
	var msgs []map[string]json.RawMessage
	if json.Unmarshal(m["messages"], &msgs) != nil {
		return nil, false
	}
	for _, msg := range msgs {
		var parts []map[string]json.RawMessage
		if json.Unmarshal(msg["content"], &parts) != nil {
			continue
		}
		changed := false
		for _, p := range parts {
			var typ string
			_ = json.Unmarshal(p["type"], &typ)
			if typ != "video_url" || p["image_url"] == nil {
				continue
			}
			var u struct {
				URL string `json:"url"`
			}
			if json.Unmarshal(p["image_url"], &u) != nil {
				continue
			}
			v, _ := json.Marshal(map[string]string{"url": u.URL})
			p["video_url"] = v
			delete(p, "image_url")
			changed = true
		}
		if changed {
			c, err := json.Marshal(parts)
			if err != nil {
				return nil, false
			}
			msg["content"] = c
		}
	}
	b, err := json.Marshal(msgs)
	if err != nil {
		return nil, false
	}
	m["messages"] = b
	out, err := json.Marshal(m)
	return out, err == nil
}
