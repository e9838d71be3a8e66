package vlmviam

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"go.viam.com/rdk/components/camera"
	rutils "go.viam.com/rdk/utils"
)

// EpisodeRecorder writes one episode in the layout hw reads back: a folder
// of numbered frames (hw.OpenDir, robot-train score --source DIR) beside
// steps.jsonl (one line per control step: t, obs, action, target_mm,
// latency_ms) and episode.json (written last, atomically, when the episode
// ends).
//
//	DIR/episode-000003/frame-000000.jpg …   the camera before each step
//	DIR/episode-000003/steps.jsonl
//	DIR/episode-000003/episode.json
type EpisodeRecorder struct {
	dir   string
	steps *os.File
	w     *bufio.Writer
	n     int
}

// StepRecord is one line of steps.jsonl.
type StepRecord struct {
	T         int        `json:"t"`
	Obs       []float64  `json:"obs"`
	Action    []float64  `json:"action"`
	TargetMM  [3]float64 `json:"target_mm"`
	LatencyMS float64    `json:"latency_ms"`
}

// NewEpisodeRecorder creates DIR/episode-NNNNNN.
func NewEpisodeRecorder(root string, episode int) (*EpisodeRecorder, error) {
	dir := filepath.Join(root, fmt.Sprintf("episode-%06d", episode))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	f, err := os.Create(filepath.Join(dir, "steps.jsonl"))
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	return &EpisodeRecorder{dir: dir, steps: f, w: bufio.NewWriter(f)}, nil
}

// Dir returns the episode folder.
func (r *EpisodeRecorder) Dir() string { return r.dir }

// Frame stores the camera's current image as the next frame.
func (r *EpisodeRecorder) Frame(ctx context.Context, cam camera.Camera) error {
	imgs, _, err := cam.Images(ctx, nil, nil)
	if err != nil {
		return fmt.Errorf("record frame: %w", err)
	}
	if len(imgs) == 0 {
		return fmt.Errorf("record frame: the camera returned no image")
	}
	data, err := imgs[0].Bytes(ctx)
	if err != nil {
		return fmt.Errorf("record frame: %w", err)
	}
	ext := ".jpg"
	if imgs[0].MimeType() == rutils.MimeTypePNG {
		ext = ".png"
	}
	name := filepath.Join(r.dir, fmt.Sprintf("frame-%06d%s", r.n, ext))
	r.n++
	return writeAtomic(name, data)
}

// Step appends one step line.
func (r *EpisodeRecorder) Step(s StepRecord) error {
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = r.w.Write(b)
	return err
}

// Finish writes episode.json with summary and closes the episode.
func (r *EpisodeRecorder) Finish(summary any) error {
	err := r.w.Flush()
	if cerr := r.steps.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	b, err := json.MarshalIndent(summary, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(filepath.Join(r.dir, "episode.json"), append(b, '\n'))
}

// writeAtomic writes data to path through a temporary file and a rename.
func writeAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path))
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}
