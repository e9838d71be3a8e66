package train

import (
	"context"
	"fmt"
	"image"
	"path/filepath"
	"time"

	"github.com/vlmrb/vlmrb/frame"
	"github.com/vlmrb/vlmrb/render"
	"github.com/vlmrb/vlmrb/replay"
	"github.com/vlmrb/vlmrb/tasks"
	"github.com/vlmrb/vlmrb/tasks/grid"
	"github.com/vlmrb/vlmrb/vlmprio"
)

// gridPixelTolerance is the RGB distance (0–441) within which a pixel of a
// flat-shaded grid frame matches a sprite colour: the key (255,255,0) and
// the door (200,140,0) are 110 apart, so 40 separates them.
const gridPixelTolerance = 40

// gridPixelMaxSide is the grid pixel scorer's PixelScorer.MaxSide: larger
// than any grid frame (vlm.width and height are at most 4096), so no frame
// is subsampled.
const gridPixelMaxSide = 4096

// GridPixelSpec returns the pixel scorer's colour keys for grid frames in
// the standard theme's colours: the key as the object, the green goal as
// the goal and the red agent as the gripper. Tiles are flat, so lighting
// rescaling is off. On the misleading and abstract themes these keys find
// less or nothing, which is the point of those renderings.
func GridPixelSpec() vlmprio.PixelSpec {
	key := func(c [3]uint8) vlmprio.ColorKey {
		return vlmprio.ColorKey{R: c[0], G: c[1], B: c[2], Tol: gridPixelTolerance, Lighting: 1}
	}
	return vlmprio.PixelSpec{Object: key(grid.ColorKey), Goal: key(grid.ColorGoal), Gripper: key(grid.ColorAgent)}
}

// NewGridScorer builds the named clip scorer for grid tasks: pixel (colour
// keys of GridPixelSpec), oracle (vlmprio.EventOracleScorer: yes when the
// clip shows the key picked up, the door opened or the goal reached) or
// openai (the doorkey prompt, vlmprio.DoorKeyPrompt, unless vlm.prompt
// overrides it).
func NewGridScorer(name string, v VLMConfig) (vlmprio.Scorer, error) {
	switch name {
	case "pixel":
		ps := vlmprio.NewPixelScorer(GridPixelSpec())
		// every pixel: the carried key is a quarter-size sprite on the
		// agent's tile, which a two-pixel subsampling grid misses at tiles
		// of 11–16 px (frames of 132–192 px on 12×12); grid frames are
		// small, so reading them whole stays cheap
		ps.MaxSide = gridPixelMaxSide
		return ps, nil
	case "oracle":
		return vlmprio.EventOracleScorer{}, nil
	case "openai":
		// the manipulation tasks' OpenAI scorer with the doorkey prompt
		// (a vlm.prompt of the config replaces it)
		if v.Prompt == "" {
			v.Prompt = vlmprio.DoorKeyPrompt
		}
		return NewScorer(name, tasks.Meta{Description: grid.Mission, Family: grid.Family}, v)
	}
	return nil, &ConfigError{Msg: fmt.Sprintf("unknown scorer %q (pixel|oracle|openai)", name)}
}

// gridScoring is VLM-RB on a grid task: a tile frame of s_{t+1} and the
// stage reached after every transition → Clipper → Prioritizer → VLMRB.
// Transitions reach replay up to n−1 steps after they happen (n-step
// returns), so each env keeps the frames of its not-yet-stored steps.
type gridScoring struct {
	cfg     *Config
	r       *dqnRunner
	theme   grid.Theme
	tile    int
	clipper *vlmprio.Clipper
	prio    *vlmprio.Prioritizer
	images  bool             // draw tile frames (every scorer but the oracle, which reads the stage)
	pending [][]pendingFrame // per env, oldest first
	free    []*image.RGBA    // frame images handed back after the Clipper cloned them
	seq     uint64
	renderT time.Duration
	stopped bool
	scores  scoreWindow
}

type pendingFrame struct {
	f        frame.Frame
	progress float64
}

func newGridScoring(r *dqnRunner) (*gridScoring, error) {
	cfg := &r.cfg
	theme, err := grid.ParseTheme(cfg.VLM.Theme)
	if err != nil {
		return nil, &ConfigError{Msg: err.Error()}
	}
	scorer, err := NewGridScorer(cfg.Scorer, cfg.VLM)
	if err != nil {
		return nil, err
	}
	s := &gridScoring{cfg: cfg, r: r, theme: theme, tile: r.evalEnv.TileFor(min(cfg.VLM.Width, cfg.VLM.Height)),
		images: cfg.Scorer != "oracle", pending: make([][]pendingFrame, cfg.NumEnvs)}
	meta, _ := grid.Lookup(cfg.Task)
	s.clipper = vlmprio.NewClipper(vlmprio.ClipperConfig{
		Length: cfg.VLM.ClipLen, Stride: cfg.VLM.Stride, Apply: cfg.VLM.applyRule(), Task: meta.Description, Family: meta.Family,
	})
	s.prio = vlmprio.NewPrioritizer(scorer, r.smp.vlmrb, vlmprio.PrioritizerConfig{Workers: cfg.VLM.Workers, Inline: cfg.VLM.Workers == 0, QueueSize: cfg.VLM.Queue})
	s.prio.Start(context.Background())
	return s, nil
}

func (s *gridScoring) describe() string {
	if !s.images {
		return "privileged stages, no frames"
	}
	side := s.r.evalEnv.FrameSize(s.tile)
	return fmt.Sprintf("%s tiles %dx%d", s.theme, side, side)
}

// episodeStart forgets env i's pending frames (a new episode).
func (s *gridScoring) episodeStart(i int, _ *grid.Env) {
	for _, p := range s.pending[i] {
		s.recycle(p.f.Image)
	}
	s.pending[i] = s.pending[i][:0]
}

// afterStep renders env i after its step (s_{t+1}) and records the stage
// reached, for the transition just taken.
func (s *gridScoring) afterStep(i int, e *grid.Env) {
	t0 := time.Now()
	var img *image.RGBA
	if s.images {
		side := e.FrameSize(s.tile)
		if n := len(s.free); n > 0 {
			img, s.free = s.free[n-1], s.free[:n-1]
		} else {
			img = image.NewRGBA(image.Rect(0, 0, side, side))
		}
		e.Render(img, s.tile, s.theme)
	}
	s.pending[i] = append(s.pending[i], pendingFrame{
		f:        frame.Frame{Image: img, Camera: "grid", Seq: s.seq, Time: time.Unix(0, 0).Add(time.Duration(e.StepCount()) * time.Second)},
		progress: float64(e.Stage()) / float64(len(grid.Stages)-1),
	})
	s.seq++
	s.renderT += time.Since(t0)
}

// push hands the stored transition of env i (its oldest pending step) to
// the Clipper and submits the clips that completed.
func (s *gridScoring) push(i int, ref replay.Ref, done bool) {
	if len(s.pending[i]) == 0 {
		return // not reached: every stored transition had a step recorded
	}
	p := s.pending[i][0]
	s.pending[i] = s.pending[i][1:]
	for _, c := range s.clipper.Push(i, vlmprio.Step{
		Episode: s.r.epID[i], Frame: p.f, Ref: ref, Progress: p.progress, HasProgress: true, Done: done,
	}) {
		s.prio.Submit(c)
	}
	s.recycle(p.f.Image) // the Clipper keeps its own copy
}

// recycle keeps a frame image for the next afterStep.
func (s *gridScoring) recycle(img *image.RGBA) {
	if img != nil {
		s.free = append(s.free, img)
	}
}

func (s *gridScoring) metrics(v map[string]float64) {
	vlmMetrics(v, s.prio, s.r.smp.vlmrb, s.r.buf.Len(), s.renderT, &s.scores)
}

func (s *gridScoring) stop() {
	if !s.stopped {
		s.stopped = true
		s.prio.Close()
	}
}

// evalGIF records one greedy episode of the evaluation env as a GIF in the
// vlm.theme, at eval.gif_size, into videos/eval-STEP.gif.
func (r *dqnRunner) evalGIF() (string, error) {
	theme, err := grid.ParseTheme(r.cfg.VLM.Theme)
	if err != nil {
		return "", err
	}
	e := r.evalEnv
	tile := e.TileFor(r.cfg.Eval.GIFSize)
	side := e.FrameSize(tile)
	var frames []*image.RGBA
	snap := func() {
		img := image.NewRGBA(image.Rect(0, 0, side, side))
		e.Render(img, tile, theme)
		frames = append(frames, img)
	}
	obs, _ := e.Reset(r.cfg.Seed ^ evalSeedSalt)
	snap()
	act := []float64{0}
	for {
		act[0] = float64(r.agent.Greedy(obs))
		next, _, term, trunc, _, err := e.Step(act)
		if err != nil {
			return "", err
		}
		snap()
		obs = next
		if term || trunc {
			break
		}
	}
	path := filepath.Join(r.cfg.Out, "videos", fmt.Sprintf("eval-%09d.gif", r.step))
	return path, render.WriteGIF(path, frames, 8)
}
