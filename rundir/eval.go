package rundir

import (
	"context"
	"fmt"
	"image"
	"math"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/render"
	"github.com/vlmrb/vlmrb/tasks"
)

// EvalOptions configure Evaluate.
type EvalOptions struct {
	Episodes int    // episodes to run (≥ 1)
	Seed     uint64 // episode k uses control.EpisodeSeed(Seed, 0, k)
	// GIF, when set, records the first episode to this path (animated GIF,
	// every GIFEvery-th control step, GIFSize×GIFSize pixels, Camera).
	GIF      string
	GIFSize  int
	GIFEvery int
	Camera   string
	Backend  string // renderer backend for the GIF (auto|egl|soft)
	// Cam, when set, is used for the GIF instead of opening a renderer
	// (Camera, Backend and GIFSize are then ignored).
	Cam *render.SimCamera
	// Warnf receives non-fatal problems (a GIF that could not be rendered).
	Warnf func(format string, a ...any)
}

// Evaluate runs opts.Episodes episodes of policy on env and reports the
// success rate (an episode succeeds when info success is set at any step,
// the MetaWorld convention), returns and lengths. Policies that implement
// control.Resetter are reset at every episode start.
func Evaluate(ctx context.Context, env *tasks.Env, policy control.Policy, opts EvalOptions) (*EvalResult, error) {
	if opts.Episodes <= 0 {
		return nil, fmt.Errorf("evaluate: episodes must be ≥ 1 (got %d)", opts.Episodes)
	}
	if opts.GIFEvery <= 0 {
		opts.GIFEvery = 4
	}
	if opts.GIFSize <= 0 {
		opts.GIFSize = 128
	}
	if opts.Warnf == nil {
		opts.Warnf = func(string, ...any) {}
	}
	spec := env.Spec()
	act := make([]float64, spec.ActDim)
	res := &EvalResult{Episodes: opts.Episodes}
	totalLen := 0
	for k := range opts.Episodes {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var rec *gifRecorder
		if k == 0 && opts.GIF != "" {
			var err error
			if rec, err = newGIFRecorder(opts.Cam, opts.Backend, opts.Camera, opts.GIFSize, env); err != nil {
				opts.Warnf("eval GIF %s not recorded: %v", opts.GIF, err)
				res.GIFErr = err
				rec = nil
			}
		}
		if rs, ok := policy.(control.Resetter); ok {
			rs.Reset()
		}
		obs, _ := env.Reset(control.EpisodeSeed(opts.Seed, 0, k))
		ret, success, t := 0.0, false, 0
		for {
			if rec != nil && t%opts.GIFEvery == 0 {
				if err := rec.capture(env); err != nil {
					opts.Warnf("eval GIF: %v", err)
					res.GIFErr = err
					rec.close()
					rec = nil
				}
			}
			policy.Act(obs, act)
			next, r, term, trunc, info, err := env.Step(act)
			if err != nil {
				return nil, fmt.Errorf("evaluate: episode %d step %d: %w", k, t, err)
			}
			ret += r
			t++
			if info.Success() {
				success = true
			}
			obs = next
			if term || trunc {
				break
			}
		}
		if rec != nil {
			_ = rec.capture(env) // the final state
			if rec.keep > 1 {
				opts.Warnf("eval GIF %s: the episode ran %d steps; kept every %d-th step (%d frames, the limit is %d)", opts.GIF, t, rec.keep*opts.GIFEvery, len(rec.frames), rec.limit)
			}
			if err := rec.save(opts.GIF); err != nil {
				opts.Warnf("eval GIF: %v", err)
				res.GIFErr = err
			}
			rec.close()
		}
		res.Returns = append(res.Returns, ret)
		res.Successes = append(res.Successes, success)
		totalLen += t
	}
	n := float64(opts.Episodes)
	succ := 0
	for i, r := range res.Returns {
		res.MeanReturn += r
		if res.Successes[i] {
			succ++
		}
	}
	res.MeanReturn /= n
	res.SuccessRate = float64(succ) / n // k/n exactly: 20 of 20 is 1, not 1.0000000000000002
	for _, r := range res.Returns {
		res.StdReturn += (r - res.MeanReturn) * (r - res.MeanReturn) / n
	}
	res.StdReturn = math.Sqrt(res.StdReturn)
	res.MeanLength = float64(totalLen) / n
	return res, nil
}

// MaxGIFFrames bounds the frames an evaluation GIF holds (and
// maxGIFBytes their memory): a longer episode is subsampled evenly (every
// second kept frame is dropped and the stride doubled whenever the limit
// is reached), with a warning.
const (
	MaxGIFFrames = render.MaxClipFrames
	maxGIFBytes  = 256 << 20
)

// gifRecorder collects frames of one episode, at most limit of them.
type gifRecorder struct {
	cam    *render.SimCamera
	owned  bool
	frames []*image.RGBA
	limit  int // frames kept at most
	keep   int // keep every keep-th captured frame
	n      int // captures so far
}

func newGIFRecorder(cam *render.SimCamera, backend, camera string, size int, env *tasks.Env) (*gifRecorder, error) {
	g := &gifRecorder{cam: cam, keep: 1}
	if cam == nil {
		c, err := NewSimCamera(backend, camera, "", size, size, env)
		if err != nil {
			return nil, err
		}
		g.cam, g.owned = c, true
	}
	w, h := g.cam.Size()
	g.limit = max(2, min(MaxGIFFrames, maxGIFBytes/max(1, 4*w*h)))
	return g, nil
}

func (g *gifRecorder) capture(env *tasks.Env) error {
	g.n++
	if (g.n-1)%g.keep != 0 {
		return nil
	}
	if len(g.frames) == g.limit {
		// thin to every other frame: the kept ones stay evenly spaced
		k := 0
		for i := 0; i < len(g.frames); i += 2 {
			g.frames[k] = g.frames[i]
			k++
		}
		clear(g.frames[k:])
		g.frames = g.frames[:k]
		g.keep *= 2
		if (g.n-1)%g.keep != 0 {
			return nil
		}
	}
	w, h := g.cam.Size()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	if err := g.cam.Render(env, img); err != nil {
		return err
	}
	g.frames = append(g.frames, img)
	return nil
}

func (g *gifRecorder) save(path string) error { return render.WriteGIF(path, g.frames, 8) }

func (g *gifRecorder) close() {
	if g.owned {
		_ = g.cam.Close()
	}
}

// EvalResult summarises one deterministic evaluation.
type EvalResult struct {
	Episodes    int       `json:"episodes"`
	SuccessRate float64   `json:"success_rate"` // fraction of episodes with success at any step (MetaWorld convention)
	MeanReturn  float64   `json:"mean_return"`
	StdReturn   float64   `json:"std_return"`
	MeanLength  float64   `json:"mean_length"`
	Returns     []float64 `json:"returns"`
	Successes   []bool    `json:"successes"`
	// Stochastic is the same episodes with SAC's stochastic policy (the
	// one it trains and collects with); nil where not evaluated (DQN, arm
	// tasks, a checkpoint evaluated without it).
	Stochastic *EvalResult `json:"stochastic,omitempty"`
	// GIFErr says why a requested GIF (EvalOptions.GIF) was not written
	// (it is also passed to Warnf); nil when it was or none was asked for.
	GIFErr error `json:"-"`
}
