package train

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/vlmrb/vlmrb/frame"
	"github.com/vlmrb/vlmrb/hw"
	"github.com/vlmrb/vlmrb/replay"
	"github.com/vlmrb/vlmrb/tasks"
	"github.com/vlmrb/vlmrb/vlmprio"
)

// clipRecorder is a Scorer that keeps every clip it is asked about.
type clipRecorder struct {
	mu    sync.Mutex
	clips []*vlmprio.Clip
}

func (c *clipRecorder) Score(_ context.Context, cl *vlmprio.Clip) (vlmprio.Score, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clips = append(c.clips, cl)
	return vlmprio.Score{Value: 0.5, Method: "recorder"}, nil
}

// stored is one transition as the hooks saw it.
type stored struct {
	env      int
	episode  int64
	step     int32
	global   int64 // index among env's transitions over the whole run
	term     bool
	lastStep bool
}

// storedLog records every stored transition by its replay ref.
type storedLog struct {
	byRef  map[replay.Ref]stored
	count  map[int]int64
	epLen  map[int64]int32 // episode → transitions
	epTerm map[int64]bool
}

func newStoredLog() *storedLog {
	return &storedLog{byRef: map[replay.Ref]stored{}, count: map[int]int64{}, epLen: map[int64]int32{}, epTerm: map[int64]bool{}}
}

func (l *storedLog) hook() Hook {
	return HookFuncs{Step: func(e StepEvent) error {
		t := e.Transition
		l.byRef[e.Ref] = stored{env: e.Env, episode: t.Episode, step: t.Step, global: l.count[e.Env], term: t.Terminated, lastStep: e.Done}
		l.count[e.Env]++
		l.epLen[t.Episode] = max(l.epLen[t.Episode], t.Step+1)
		l.epTerm[t.Episode] = l.epTerm[t.Episode] || t.Terminated
		return nil
	}}
}

// checkClips checks the frame rule on every clip: the transition its
// first ref names is the transition its first frame goes with (episode
// step Start, of the clip's episode and env), frame k of the clip is
// o_{Start+k} by want, and every clip ends inside its episode. It returns
// the number of clips checked.
func checkClips(t *testing.T, rec *clipRecorder, log *storedLog, want func(tr stored, k int, f frame.Frame) error) int {
	t.Helper()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.clips) == 0 {
		t.Fatal("no clip was scored")
	}
	checked := 0
	for n, c := range rec.clips {
		if len(c.Refs) == 0 {
			continue // the evaluation's Fig. 3 check scores clips of an expert episode outside replay
		}
		checked++
		tr, ok := log.byRef[c.Refs[0]]
		if !ok {
			t.Fatalf("clip %d: first ref %v is no stored transition", n, c.Refs[0])
		}
		if tr.env != c.Env || tr.episode != c.Episode || int(tr.step) != c.Start {
			t.Fatalf("clip %d (env %d, episode %d, start %d) begins with transition env %d episode %d step %d",
				n, c.Env, c.Episode, c.Start, tr.env, tr.episode, tr.step)
		}
		for k, r := range c.Refs {
			if s := log.byRef[r]; s.episode != c.Episode || int(s.step) != c.Start+k {
				t.Fatalf("clip %d: ref %d is step %d of episode %d, want step %d of %d", n, k, s.step, s.episode, c.Start+k, c.Episode)
			}
		}
		T := int(log.epLen[c.Episode])
		last := T - 1 // o_{T−1}; o_T too when the episode terminated
		if log.epTerm[c.Episode] {
			last = T
		}
		if c.End-1 > last {
			t.Fatalf("clip %d: real frames up to o_%d, but episode %d has %d transitions (terminated %v)", n, c.End-1, c.Episode, T, log.epTerm[c.Episode])
		}
		for k := 0; k < c.End-c.Start; k++ {
			if err := want(tr, k, c.Frames[k]); err != nil {
				t.Fatalf("clip %d (episode %d, start %d), frame %d: %v", n, c.Episode, c.Start, k, err)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no clip of a stored transition was scored")
	}
	return checked
}

// SAC with the simulated camera: frame k of the clip of transition i is
// the render of o_{i+k}, stamped with that state's simulated time
// (i+k control periods after the reset).
func TestFrameRuleSAC(t *testing.T) {
	t.Parallel()
	c := tinyConfig(filepath.Join(t.TempDir(), "run"), "vlmrb")
	c.Scorer = "pixel" // frames are rendered; the recorder scores them
	c.VLM.Clip.Length, c.VLM.Clip.Stride, c.VLM.Scoring.Workers = 6, 3, 0
	c.VLM.Width, c.VLM.Height, c.VLM.Backend, c.VLM.MSAA, c.VLM.Shadows = 16, 16, "soft", 0, false
	c.Steps, c.MaxEpisodeLen = 120, 25
	env, err := tasks.Make(c.Task, tasks.Options{MaxSteps: c.MaxEpisodeLen})
	if err != nil {
		t.Fatal(err)
	}
	env.Reset(1)
	t0 := env.Data().Time
	if _, _, _, _, _, err := env.Step(make([]float64, env.Spec().ActDim)); err != nil {
		t.Fatal(err)
	}
	dt := env.Data().Time - t0
	rec, log := &clipRecorder{}, newStoredLog()
	if _, err := Run(context.Background(), valid(t, c), Options{Scorer: rec, Hooks: []Hook{log.hook()}}); err != nil {
		t.Fatal(err)
	}
	n := checkClips(t, rec, log, func(tr stored, k int, f frame.Frame) error {
		got := f.Time.Sub(time.Unix(0, 0)).Seconds()
		want := t0 + float64(int(tr.step)+k)*dt
		if math.Abs(got-want) > 1e-6 || f.Image == nil {
			return fmt.Errorf("frame at simulated time %.6f s (image %v), want o_%d at %.6f s", got, f.Image != nil, int(tr.step)+k, want)
		}
		return nil
	})
	t.Logf("%d SAC clips checked", n)
}

// DQN with tile frames and n-step returns (transitions reach replay up
// to n−1 steps late): frame k of the clip of transition i shows the grid
// after i+k steps of the episode, and the clips of a terminated episode
// (the two scripted demonstrations reach the goal) end with o_T.
func TestFrameRuleDQN(t *testing.T) {
	t.Parallel()
	c := tinyGridConfig(filepath.Join(t.TempDir(), "run"), "vlmrb", "pixel")
	c.VLM.Clip.Length, c.VLM.Clip.Stride, c.VLM.Scoring.Workers = 8, 4, 0
	c.Demos, c.Steps = 2, 600
	c.Eval.Episodes, c.Eval.GIF = 1, false
	rec, log := &clipRecorder{}, newStoredLog()
	if _, err := Run(context.Background(), valid(t, c), Options{Scorer: rec, Hooks: []Hook{log.hook()}}); err != nil {
		t.Fatal(err)
	}
	sawTerminal := false
	n := checkClips(t, rec, log, func(tr stored, k int, f frame.Frame) error {
		step := int(f.Time.Sub(time.Unix(0, 0)) / time.Second)
		if step != int(tr.step)+k || f.Image == nil {
			return fmt.Errorf("frame of episode step %d (image %v), want o_%d", step, f.Image != nil, int(tr.step)+k)
		}
		if log.epTerm[tr.episode] && step == int(log.epLen[tr.episode]) {
			sawTerminal = true
		}
		return nil
	})
	if !sawTerminal {
		t.Error("no clip of a terminated episode ends with its terminal frame o_T")
	}
	t.Logf("%d DQN clips checked", n)
}

// A recorded camera (an hw folder): the env's k-th frame read is the one
// its k-th transition goes with, so the clip of transition i begins with
// the recording's frame i (counted over the whole run, across episodes).
func TestFrameRuleHWFolder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const files = 7
	for k := range files {
		img := image.NewRGBA(image.Rect(0, 0, 8, 8))
		for i := 0; i < len(img.Pix); i += 4 {
			img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = uint8(30*k), 100, 200, 255
		}
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("frame%d.png", k)))
		if err != nil {
			t.Fatal(err)
		}
		if err := png.Encode(f, img); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	c := tinyConfig(filepath.Join(t.TempDir(), "run"), "vlmrb")
	c.Scorer = "pixel"
	c.NumEnvs, c.Steps, c.MaxEpisodeLen = 1, 90, 20
	c.VLM.Clip.Length, c.VLM.Clip.Stride, c.VLM.Scoring.Workers = 5, 2, 0
	rec, log := &clipRecorder{}, newStoredLog()
	_, err := Run(context.Background(), valid(t, c), Options{Scorer: rec, Hooks: []Hook{log.hook()},
		Frames: func(int) (frame.Source, error) { return hw.OpenDir(dir, hw.Options{Loop: true}) }})
	if err != nil {
		t.Fatal(err)
	}
	n := checkClips(t, rec, log, func(tr stored, k int, f frame.Frame) error {
		g := tr.global + int64(k) // the env's (g)th frame read
		want := color.RGBA{uint8(30 * (g % files)), 100, 200, 255}
		if f.Seq != uint64(g) || f.Image.RGBAAt(0, 0) != want {
			return fmt.Errorf("recording frame %d (colour %v), want frame %d (%v)", f.Seq, f.Image.RGBAAt(0, 0), g, want)
		}
		return nil
	})
	t.Logf("%d clips of the recording checked", n)
}
