package vlmprio

import (
	"image"
	"image/color"
	"image/draw"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/vlmrb/vlmrb/frame"
	"github.com/vlmrb/vlmrb/replay"
)

// recordSink is a ScoreSink with per-slot generations, like replay's
// VLM-RB sampler: a write with a stale generation is rejected.
type recordSink struct {
	mu     sync.Mutex
	gen    map[int32]uint32
	scores map[replay.Ref]float64
	writes []replay.Ref
	stale  int
}

func newRecordSink() *recordSink {
	return &recordSink{gen: make(map[int32]uint32), scores: make(map[replay.Ref]float64)}
}

// add stores a transition in slot and returns its Ref (bumping the generation).
func (s *recordSink) add(slot int32) replay.Ref {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gen[slot]++
	return replay.Ref{Slot: slot, Gen: s.gen[slot]}
}

func (s *recordSink) SetScore(ref replay.Ref, score float64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gen[ref.Slot] != ref.Gen {
		s.stale++
		return false
	}
	s.scores[ref] = score
	s.writes = append(s.writes, ref)
	return true
}

func (s *recordSink) score(ref replay.Ref) (float64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.scores[ref]
	return v, ok
}

// Synthetic scene colours (an MetaWorld-like palette).
var (
	colTable   = color.RGBA{150, 140, 120, 255}
	colObject  = color.RGBA{200, 30, 30, 255}
	colGoal    = color.RGBA{30, 180, 40, 255}
	colGripper = color.RGBA{40, 60, 200, 255}
	testSpec   = PixelSpec{
		Object:  ColorKey{R: 200, G: 30, B: 30, Tol: 70},
		Goal:    ColorKey{R: 30, G: 180, B: 40, Tol: 70},
		Gripper: ColorKey{R: 40, G: 60, B: 200, Tol: 70},
	}
)

// sceneState is a 2-D stand-in for a tabletop state, in image fractions
// (x right, y down, 0..1).
type sceneState struct {
	grip, obj, goal [2]float64
	grasped         bool
}

// shade scales a colour by f (simulated lighting).
func shade(c color.RGBA, f float64) color.RGBA {
	return color.RGBA{uint8(float64(c.R) * f), uint8(float64(c.G) * f), uint8(float64(c.B) * f), 255}
}

// drawScene renders s into a new w×h image: table, goal disc, object box,
// gripper bar, with per-element shading in [0.8, 1] from rng.
func drawScene(s sceneState, w, h int, rng *rand.Rand) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Rect, &image.Uniform{shade(colTable, 0.9+0.1*rng.Float64())}, image.Point{}, draw.Src)
	fw, fh := float64(w), float64(h)
	disc := func(c [2]float64, r float64, col color.RGBA) {
		cx, cy, rr := c[0]*fw, c[1]*fh, r*fw
		for y := int(cy - rr); y <= int(cy+rr); y++ {
			for x := int(cx - rr); x <= int(cx+rr); x++ {
				if (float64(x)-cx)*(float64(x)-cx)+(float64(y)-cy)*(float64(y)-cy) <= rr*rr && image.Pt(x, y).In(img.Rect) {
					img.SetRGBA(x, y, col)
				}
			}
		}
	}
	box := func(c [2]float64, hw, hh float64, col color.RGBA) {
		r := image.Rect(int((c[0]-hw)*fw), int((c[1]-hh)*fh), int((c[0]+hw)*fw), int((c[1]+hh)*fh))
		draw.Draw(img, r.Intersect(img.Rect), &image.Uniform{col}, image.Point{}, draw.Src)
	}
	disc(s.goal, 0.05, shade(colGoal, 0.8+0.2*rng.Float64()))
	box(s.obj, 0.04, 0.04, shade(colObject, 0.8+0.2*rng.Float64()))
	// gripper: a bar just above the point it holds
	box([2]float64{s.grip[0], s.grip[1] - 0.06}, 0.05, 0.02, shade(colGripper, 0.8+0.2*rng.Float64()))
	return img
}

// progressOf is privileged progress of a pick-place state in [0,1]: four
// equal stages (reach, grasp, lift, place), like a task's named stages.
func progressOf(s sceneState, start sceneState) float64 {
	d := func(a, b [2]float64) float64 { return math.Hypot(a[0]-b[0], a[1]-b[1]) }
	reach := clamp01(1 - d(s.grip, s.obj)/max(d(start.grip, start.obj), 1e-9))
	p := 0.25 * reach
	if s.grasped {
		p += 0.25
		p += 0.25 * clamp01((start.obj[1]-s.obj[1])/0.15)
		p += 0.25 * clamp01(1-d(s.obj, s.goal)/max(d(start.obj, start.goal), 1e-9))
	}
	return p
}

// episode simulates a T-step pick-place episode with either the scripted
// expert or a random policy, returning the state after every step.
func episode(expert bool, T int, rng *rand.Rand) []sceneState {
	s := sceneState{
		grip: [2]float64{0.15 + 0.2*rng.Float64(), 0.2 + 0.1*rng.Float64()},
		obj:  [2]float64{0.4 + 0.2*rng.Float64(), 0.7 + 0.1*rng.Float64()},
		goal: [2]float64{0.75 + 0.1*rng.Float64(), 0.3 + 0.2*rng.Float64()},
	}
	out := make([]sceneState, 0, T)
	const speed = 0.02 // image fraction per step
	moveTo := func(p *[2]float64, t [2]float64) bool {
		dx, dy := t[0]-p[0], t[1]-p[1]
		d := math.Hypot(dx, dy)
		if d <= speed {
			*p = t
			return true
		}
		p[0] += dx / d * speed
		p[1] += dy / d * speed
		return false
	}
	lifted := false
	var liftTo [2]float64
	for range T {
		if expert {
			switch {
			case !s.grasped:
				s.grasped = moveTo(&s.grip, s.obj)
				liftTo = [2]float64{s.obj[0], s.obj[1] - 0.15}
			case !lifted:
				lifted = moveTo(&s.grip, liftTo)
				s.obj = s.grip
			default:
				moveTo(&s.grip, s.goal)
				s.obj = s.grip
			}
		} else {
			s.grip[0] = min(max(s.grip[0]+speed*(2*rng.Float64()-1), 0.05), 0.95)
			s.grip[1] = min(max(s.grip[1]+speed*(2*rng.Float64()-1), 0.1), 0.95)
		}
		out = append(out, s)
	}
	return out
}

// episodeClips runs one episode through a Clipper and returns its clips.
func episodeClips(t testing.TB, expert bool, T, w, h int, seed uint64) []*Clip {
	rng := rand.New(rand.NewPCG(seed, 7))
	states := episode(expert, T, rng)
	c := NewClipper(ClipperConfig{Length: 16, Stride: 8, Tail: TailSkip, Task: "pick up the red block and place it on the green target", Family: "pick-place"})
	start := states[0]
	var clips []*Clip
	for i, s := range states {
		f := frame.Frame{Image: drawScene(s, w, h, rng), Seq: uint64(i), Time: time.Unix(0, int64(i)*int64(12500*time.Microsecond))}
		clips = append(clips, c.Push(0, Step{Episode: int64(seed), Frame: f, Ref: replay.Ref{Slot: int32(i)},
			Progress: progressOf(s, start), HasProgress: true, Done: i == T-1})...)
	}
	if len(clips) == 0 {
		t.Fatal("episode produced no clips")
	}
	return clips
}

// checkNoLeak fails the test if goroutines started during it are still
// running shortly after it ends.
func checkNoLeak(t *testing.T) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		var n int
		for range 200 {
			n = runtime.NumGoroutine()
			if n <= before {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		buf := make([]byte, 1<<16)
		t.Errorf("goroutines: %d before, %d after\n%s", before, n, buf[:runtime.Stack(buf, true)])
	})
}

func frameOf(img *image.RGBA) frame.Frame { return frame.Frame{Image: img} }
