package vlmviam

import (
	"context"
	"errors"
	"fmt"
	"go.viam.com/rdk/data"
	"image"
	"os"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"go.viam.com/rdk/components/camera"
	"go.viam.com/rdk/logging"
	"go.viam.com/rdk/resource"
	"go.viam.com/rdk/services/vision"
	rutils "go.viam.com/rdk/utils"
	viz "go.viam.com/rdk/vision"
	"go.viam.com/rdk/vision/classification"
	"go.viam.com/rdk/vision/objectdetection"
	"go.viam.com/rdk/vision/viscapture"
	"golang.org/x/image/draw"

	"github.com/vlmrb/vlmrb/frame"
	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/tasks"
	"github.com/vlmrb/vlmrb/vlmprio"
)

// ScorerModel is the clip-scoring vision service's model name.
var ScorerModel = resource.NewModel(Namespace, ModuleName, "vlm-scorer")

// ScorerConfig configures vlmrb:vlmrb:vlm-scorer.
type ScorerConfig struct {
	// Camera whose frames are kept (required).
	Camera string `json:"camera"`
	// Task names the task whose description, prompt family and colours the
	// scorer uses (required).
	Task string `json:"task"`
	// Scorer is pixel (default), openai or oracle (needs a vlmrb sim camera).
	Scorer string `json:"scorer,omitempty"`
	// ClipLen is L, the frames a clip holds (default 8).
	ClipLen int `json:"clip_len,omitempty"`
	// FPS is how often a frame is taken from the camera (default 10).
	FPS float64 `json:"fps,omitempty"`
	// Width and Height every frame is scaled to (px; default 320×240).
	Width  int `json:"width,omitempty"`
	Height int `json:"height,omitempty"`
	// TimeoutS bounds one clip's scoring, retries included (s; default 30,
	// as robot-train score --timeout).
	TimeoutS float64 `json:"timeout_s,omitempty"`
	// The openai scorer's server: base URL, model, per-request timeout (s),
	// frames sent per query, clip format, prompt override. The API key
	// comes from the module's environment (OPENAI_API_KEY) only.
	BaseURL    string  `json:"base_url,omitempty"`
	Model      string  `json:"model,omitempty"`
	RequestS   float64 `json:"request_timeout_s,omitempty"`
	Frames     int     `json:"frames,omitempty"`
	ClipFormat string  `json:"clip_format,omitempty"`
	Prompt     string  `json:"prompt,omitempty"`

	Attributes map[string]any `json:"-"`
}

// Validate checks the attributes and names the camera dependency.
func (c *ScorerConfig) Validate(path string) ([]string, []string, error) {
	if err := unknownKeys(c.Attributes, "camera", "task", "scorer", "clip_len", "fps", "width", "height", "timeout_s",
		"base_url", "model", "request_timeout_s", "frames", "clip_format", "prompt"); err != nil {
		return nil, nil, err
	}
	if c.Camera == "" {
		return nil, nil, fmt.Errorf(`"camera" is required: the camera whose clips are scored`)
	}
	if c.Task == "" {
		return nil, nil, fmt.Errorf(`"task" is required: the vlmrb task the clips show (its description and colours drive the scorer)`)
	}
	if _, err := tasks.Describe(c.Task); err != nil {
		return nil, nil, fmt.Errorf(`"task": %w`, err)
	}
	switch c.Scorer {
	case "", "pixel", "oracle":
	case "openai":
		if c.Model == "" && os.Getenv("OPENAI_MODEL") == "" {
			return nil, nil, fmt.Errorf(`"scorer" "openai" needs "model" (the served model name)`)
		}
	default:
		return nil, nil, fmt.Errorf(`"scorer" is %q; use "pixel", "openai" or "oracle"`, c.Scorer)
	}
	if c.ClipLen < 0 || c.ClipLen > 256 {
		return nil, nil, fmt.Errorf(`"clip_len" is %d; use 1–256 frames or 0 for 8`, c.ClipLen)
	}
	if c.FPS < 0 || c.FPS > 60 || !finite(c.FPS) {
		return nil, nil, fmt.Errorf(`"fps" is %g; use 0 (10 frames/s) to 60`, c.FPS)
	}
	if c.Width < 0 || c.Height < 0 || c.Width > 1920 || c.Height > 1080 {
		return nil, nil, fmt.Errorf(`"width"×"height" is %d×%d; use up to 1920×1080 or 0 for 320×240`, c.Width, c.Height)
	}
	if c.TimeoutS < 0 || c.RequestS < 0 || !finite(c.TimeoutS, c.RequestS) {
		return nil, nil, fmt.Errorf(`"timeout_s" and "request_timeout_s" must be ≥ 0 seconds`)
	}
	if c.Frames < 0 {
		return nil, nil, fmt.Errorf(`"frames" is %d; use a positive number or 0 for all of the clip`, c.Frames)
	}
	return []string{c.Camera}, nil, nil
}

// Scorer is vlmrb:vlmrb:vlm-scorer: it keeps the last L frames of a camera
// and answers ClassificationsFromCamera with the clip's score as the one
// classification "success" (score in [0, 1]). Scoring failures (a VLM
// server down, a timeout) are returned as errors and counted in DoCommand
// {"status": true}; API keys never appear in them.
type Scorer struct {
	resource.Named
	logger logging.Logger

	mu      sync.Mutex
	cfg     ScorerConfig
	cam     camera.Camera
	scorer  vlmprio.Scorer
	meta    tasks.Meta
	ring    []frame.Frame
	prog    []float64
	seq     uint64
	stop    context.CancelFunc
	wg      sync.WaitGroup
	grabErr string
	stats   scorerStats
	warn    rateLimiter
}

type scorerStats struct {
	Clips, Failures, CaptureErrors int
	LastMS                         float64
}

// NewScorer builds the vision service and starts capturing.
func NewScorer(ctx context.Context, deps resource.Dependencies, conf resource.Config, logger logging.Logger) (vision.Service, error) {
	s := &Scorer{Named: conf.ResourceName().AsNamed(), logger: logger}
	if err := s.Reconfigure(ctx, deps, conf); err != nil {
		return nil, err
	}
	return s, nil
}

// Reconfigure restarts capture with the new camera, scorer and sizes.
func (s *Scorer) Reconfigure(ctx context.Context, deps resource.Dependencies, conf resource.Config) error {
	c, err := resource.NativeConfig[*ScorerConfig](conf)
	if err != nil {
		return err
	}
	if _, _, err := c.Validate(""); err != nil {
		return err
	}
	cam, err := camera.FromDependencies(deps, c.Camera)
	if err != nil {
		return fmt.Errorf("camera %q: %w", c.Camera, err)
	}
	meta, err := tasks.Describe(c.Task)
	if err != nil {
		return err
	}
	name := c.Scorer
	if name == "" {
		name = "pixel"
	}
	vc := rundir.DefaultConfig().VLM
	vc.BaseURL, vc.Model, vc.Prompt = c.BaseURL, c.Model, c.Prompt
	vc.APIKey = os.Getenv("OPENAI_API_KEY")
	if c.Frames > 0 {
		vc.Frames = c.Frames
	}
	if c.ClipFormat != "" {
		vc.ClipFormat = c.ClipFormat
	}
	if c.RequestS > 0 {
		vc.Timeout = c.RequestS
	}
	if c.TimeoutS > 0 {
		vc.Timeout = min(vc.Timeout, c.TimeoutS) // as robot-train score
	}
	sc, err := rundir.NewScorer(name, meta, vc)
	if err != nil {
		return err
	}
	s.halt()
	s.mu.Lock()
	s.cfg, s.cam, s.scorer, s.meta = *c, cam, sc, meta
	s.ring, s.prog, s.grabErr = nil, nil, ""
	cctx, cancel := context.WithCancel(context.Background())
	s.stop = cancel
	s.mu.Unlock()
	s.wg.Add(1)
	go s.capture(cctx)
	return nil
}

func (s *Scorer) halt() {
	s.mu.Lock()
	stop := s.stop
	s.stop = nil
	s.mu.Unlock()
	if stop != nil {
		stop()
	}
	s.wg.Wait()
}

func (s *Scorer) sizes() (l, w, h int, period time.Duration) {
	l, w, h = s.cfg.ClipLen, s.cfg.Width, s.cfg.Height
	if l == 0 {
		l = 8
	}
	if w == 0 {
		w = 320
	}
	if h == 0 {
		h = 240
	}
	fps := s.cfg.FPS
	if fps == 0 {
		fps = 10
	}
	return l, w, h, time.Duration(float64(time.Second) / fps)
}

// capture takes a frame every period into the ring of the last L frames.
func (s *Scorer) capture(ctx context.Context) {
	defer s.wg.Done()
	s.mu.Lock()
	cam, oracle := s.cam, s.cfg.Scorer == "oracle"
	l, w, h, period := s.sizes()
	s.mu.Unlock()
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		f, prog, err := grabFrame(ctx, cam, w, h, oracle)
		s.mu.Lock()
		if err != nil {
			if ctx.Err() == nil {
				s.stats.CaptureErrors++
				s.grabErr = err.Error()
			}
		} else {
			f.Seq, f.Camera = s.seq, s.cfg.Camera
			s.seq++
			s.ring = append(s.ring, f)
			s.prog = append(s.prog, prog)
			if len(s.ring) > l {
				s.ring, s.prog = s.ring[len(s.ring)-l:], s.prog[len(s.prog)-l:]
			}
		}
		s.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// grabFrame reads one camera image scaled to w×h (and, for the oracle,
// the sim camera's privileged task progress).
func grabFrame(ctx context.Context, cam camera.Camera, w, h int, oracle bool) (frame.Frame, float64, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	img, err := camera.DecodeImageFromCamera(ctx, cam, nil, nil)
	if err != nil {
		return frame.Frame{}, 0, err
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.ApproxBiLinear.Scale(dst, dst.Rect, img, img.Bounds(), draw.Src, nil)
	prog := 0.0
	if oracle {
		m, err := cam.DoCommand(ctx, map[string]any{"progress": true})
		if err != nil {
			return frame.Frame{}, 0, fmt.Errorf("the oracle scorer needs a vlmrb:vlmrb:sim-camera camera (DoCommand progress): %w", err)
		}
		p, ok := m["progress"].(float64)
		if !ok {
			return frame.Frame{}, 0, fmt.Errorf("camera answered progress %v, want a number", m["progress"])
		}
		prog = p
	}
	return frame.Frame{Image: dst, Time: time.Now()}, prog, nil
}

// clip returns the current clip, or an error when no frame has arrived.
func (s *Scorer) clip() (*vlmprio.Clip, vlmprio.Scorer, float64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.ring) == 0 {
		msg := "no frame from camera " + s.cfg.Camera + " yet"
		if s.grabErr != "" {
			msg += ": " + s.grabErr
		}
		return nil, nil, 0, status.Error(codes.Unavailable, "vlm-scorer: "+msg)
	}
	c := &vlmprio.Clip{Frames: append([]frame.Frame(nil), s.ring...), Task: s.meta.Description, Family: s.meta.Family,
		Start: 0, End: len(s.ring)}
	if s.cfg.Scorer == "oracle" {
		c.Progress = append([]float64(nil), s.prog...)
	}
	timeout := s.cfg.TimeoutS
	if timeout == 0 {
		timeout = 30
	}
	return c, s.scorer, timeout, nil
}

func (s *Scorer) score(ctx context.Context, c *vlmprio.Clip, sc vlmprio.Scorer, timeout float64) (classification.Classifications, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Duration(timeout*float64(time.Second)))
	defer cancel()
	t0 := time.Now()
	v, err := sc.Score(ctx, c)
	ms := float64(time.Since(t0).Microseconds()) / 1000
	s.mu.Lock()
	s.stats.Clips++
	s.stats.LastMS = ms
	if err != nil {
		s.stats.Failures++
	}
	s.mu.Unlock()
	if err != nil {
		s.mu.Lock()
		fails := s.stats.Failures
		s.mu.Unlock()
		s.warn.Warnw(s.logger, "score", "vlm-scorer: scoring a clip failed", "kind", fmt.Sprint(vlmprio.KindOf(err)), "err", err, "failures", fails)
		return nil, status.Error(codes.Unavailable, fmt.Sprintf("vlm-scorer: scoring a %d-frame clip failed (%s): %v", c.Len(), vlmprio.KindOf(err), err))
	}
	return classification.Classifications{classification.NewClassification(v.Value, "success")}, nil
}

// ClassificationsFromCamera scores the last L frames of the configured camera.
func (s *Scorer) ClassificationsFromCamera(ctx context.Context, cameraName string, n int, _ map[string]any) (classification.Classifications, error) {
	s.mu.Lock()
	want := s.cfg.Camera
	s.mu.Unlock()
	if cameraName != want && cameraName != "" {
		return nil, fmt.Errorf("vlm-scorer: configured for camera %q, asked for %q", want, cameraName)
	}
	c, sc, timeout, err := s.clip()
	if err != nil {
		return nil, err
	}
	return s.score(ctx, c, sc, timeout)
}

// Classifications scores a one-frame clip of the image.
func (s *Scorer) Classifications(ctx context.Context, ni *camera.NamedImage, n int, _ map[string]any) (classification.Classifications, error) {
	if ni == nil {
		return nil, invalidArg("vlm-scorer: no image given; send one image to classify")
	}
	img, err := ni.Image(ctx)
	if err != nil {
		return nil, invalidArg("vlm-scorer: the image cannot be decoded: %v", err)
	}
	s.mu.Lock()
	_, w, h, _ := s.sizes()
	meta, sc, oracle := s.meta, s.scorer, s.cfg.Scorer == "oracle"
	timeout := s.cfg.TimeoutS
	s.mu.Unlock()
	if oracle {
		return nil, failedPrecondition("vlm-scorer: the oracle scorer needs task progress, which a single image lacks; use ClassificationsFromCamera")
	}
	if timeout == 0 {
		timeout = 30
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.ApproxBiLinear.Scale(dst, dst.Rect, img, img.Bounds(), draw.Src, nil)
	c := &vlmprio.Clip{Frames: []frame.Frame{{Image: dst, Time: time.Now()}}, Task: meta.Description, Family: meta.Family, End: 1}
	return s.score(ctx, c, sc, timeout)
}

// DetectionsFromCamera is not supported.
func (s *Scorer) DetectionsFromCamera(context.Context, string, map[string]any) ([]objectdetection.Detection, error) {
	return nil, status.Error(codes.Unimplemented, "vlm-scorer: detections are not supported; use classifications")
}

// Detections is not supported.
func (s *Scorer) Detections(context.Context, *camera.NamedImage, map[string]any) ([]objectdetection.Detection, error) {
	return nil, status.Error(codes.Unimplemented, "vlm-scorer: detections are not supported; use classifications")
}

// GetObjectPointClouds is not supported.
func (s *Scorer) GetObjectPointClouds(context.Context, string, map[string]any) ([]*viz.Object, error) {
	return nil, errors.New("vlm-scorer: point clouds are not supported; use classifications")
}

// GetProperties reports classification support only.
func (s *Scorer) GetProperties(context.Context, map[string]any) (*vision.Properties, error) {
	return &vision.Properties{ClassificationSupported: true}, nil
}

// CaptureAllFromCamera returns the newest frame and the clip's classification.
func (s *Scorer) CaptureAllFromCamera(ctx context.Context, cameraName string, opts viscapture.CaptureOptions, extra map[string]any) (viscapture.VisCapture, error) {
	var out viscapture.VisCapture
	if opts.ReturnImage {
		s.mu.Lock()
		if n := len(s.ring); n > 0 {
			ni, err := camera.NamedImageFromImage(s.ring[n-1].Image, s.cfg.Camera, rutils.MimeTypeJPEG, data.Annotations{})
			if err == nil {
				out.Image = &ni
			}
		}
		s.mu.Unlock()
	}
	if opts.ReturnClassifications {
		cls, err := s.ClassificationsFromCamera(ctx, cameraName, 1, extra)
		if err != nil {
			return out, err
		}
		out.Classifications = cls
	}
	return out, nil
}

// DoCommand answers {"status": true}: frames buffered, clips scored,
// failures, capture errors and the last clip's scoring time.
func (s *Scorer) DoCommand(_ context.Context, cmd map[string]any) (map[string]any, error) {
	if _, ok := cmd["status"]; !ok {
		return nil, errors.New("vlm-scorer: unknown command; use {\"status\": true}")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	l, _, _, _ := s.sizes()
	return map[string]any{"frames": float64(len(s.ring)), "clip_len": float64(l), "clips": float64(s.stats.Clips),
		"failures": float64(s.stats.Failures), "capture_errors": float64(s.stats.CaptureErrors), "last_ms": s.stats.LastMS,
		"scorer": s.cfg.Scorer}, nil
}

// Close stops capturing.
func (s *Scorer) Close(context.Context) error {
	s.halt()
	return nil
}
