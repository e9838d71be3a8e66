package vlmprio

import (
	"context"
	"errors"
	"image"
	"math"
	"sync"
)

// ColorKey selects the pixels of one scene element by colour. Lighting
// scales a surface's colour, so a pixel is first rescaled to the key's
// brightness (R+G+B), provided the two brightnesses differ by at most a
// factor Lighting; it matches when the rescaled pixel is within Euclidean
// RGB distance Tol (0–441) of (R,G,B). Tol 0 means the element is not
// used. Very dark keys (R+G+B < 60) and neutral ones (white, greys) are
// matched without rescaling.
type ColorKey struct {
	R, G, B uint8
	Tol     float64
	// Lighting is the largest brightness ratio between pixel and key that
	// still matches (default 2: shadowed to twice as dark, lit to twice as
	// bright; 1 disables rescaling).
	Lighting float64
}

// Enabled reports whether the key is in use.
func (k ColorKey) Enabled() bool { return k.Tol > 0 }

// PixelSpec names the colours a task renders its elements with, so the
// pixel scorer can find them in frames. Tasks expose these colours; for a
// real camera, pick them from the scene (marker tape on the gripper, a
// coloured object, a coloured goal marker).
type PixelSpec struct {
	Object  ColorKey // the manipulated object (unused for reach-like tasks)
	Goal    ColorKey // the goal marker or target
	Gripper ColorKey // the gripper or end-effector marker
	// Up is the image direction of world "up" used for lift (default (0,−1):
	// up the image).
	Up [2]float64
	// MinPixels is the fewest matching pixels (after subsampling) for an
	// element to count as visible in a frame (default 3).
	MinPixels int
}

// PixelScorer scores clips from frames alone: it segments object, goal
// and gripper by colour and scores
//
//   - approach: the gripper closes in on the object (or on the goal when
//     there is no object),
//   - contact: the fraction of frames where gripper and object touch,
//   - lift: how far the object rises along Up,
//   - goal: the object (or the gripper, without an object) moves toward the
//     goal and ends near it.
//
// Score is the weighted mean of the features whose elements are visible
// (distances in units of the image diagonal, so it works at any
// resolution). It needs no network and is safe for concurrent use.
type PixelScorer struct {
	Spec PixelSpec
	// MaxSide subsamples each frame so its long side has at most this many
	// pixels (default 128).
	MaxSide int
	// Frames is how many frames of the clip are examined, evenly spread
	// with the first and last kept (default 16; 0 or more than the clip
	// means all).
	Frames int
	// Weights of approach, contact, lift and goal (default 1 each).
	Weights [4]float64
	// MovingGoal turns off the static-goal assumption. By default the goal
	// marker is taken to be fixed in the image for an episode (a fixed
	// camera, MetaWorld-style goals): each frame uses the mean of its
	// visible positions in the clip, and when the gripper or object hides
	// it for a whole clip — typically because it sits on the goal — the
	// position last seen in an earlier clip of the same env and episode.
	MovingGoal bool

	memMu  sync.Mutex
	goals  map[episodeKey][2]float64 // last seen goal centroid per episode
	goalsQ []episodeKey              // FIFO for bounding goals
}

type episodeKey struct {
	env int
	ep  int64
}

// goalMemory bounds the episodes whose goal position is remembered.
const goalMemory = 4096

// NewPixelScorer returns a pixel scorer with default settings.
func NewPixelScorer(spec PixelSpec) *PixelScorer { return &PixelScorer{Spec: spec} }

// staticGoal replaces the goal blobs with the clip's mean visible goal
// position (remembering it for the episode) or, when the goal is hidden in
// the whole clip, the remembered position.
func (p *PixelScorer) staticGoal(c *Clip, blobs [][3]blob, minPix int) {
	const goal = 1
	var sx, sy float64
	var n int
	var ref blob
	for k := range blobs {
		if b := blobs[k][goal]; b.n >= minPix {
			sx, sy = sx+b.cx, sy+b.cy
			n++
			ref = b
		}
	}
	key := episodeKey{c.Env, c.Episode}
	p.memMu.Lock()
	defer p.memMu.Unlock()
	var pos [2]float64
	if n > 0 {
		pos = [2]float64{sx / float64(n), sy / float64(n)}
		if p.goals == nil {
			p.goals = make(map[episodeKey][2]float64)
		}
		if _, ok := p.goals[key]; !ok {
			if len(p.goalsQ) >= goalMemory {
				delete(p.goals, p.goalsQ[0])
				p.goalsQ = p.goalsQ[1:]
			}
			p.goalsQ = append(p.goalsQ, key)
		}
		p.goals[key] = pos
	} else {
		var ok bool
		if pos, ok = p.goals[key]; !ok {
			return
		}
		ref = blob{n: minPix}
	}
	// a static marker: same position in every frame, box shifted with it
	for k := range blobs {
		b := ref
		b.x0, b.x1 = b.x0-b.cx+pos[0], b.x1-b.cx+pos[0]
		b.y0, b.y1 = b.y0-b.cy+pos[1], b.y1-b.cy+pos[1]
		b.cx, b.cy = pos[0], pos[1]
		b.n = max(b.n, minPix)
		blobs[k][goal] = b
	}
}

// Tuning constants, in units of the image diagonal.
const (
	pixApproachScale = 0.15 // closing this much gripper–object distance is full approach credit
	pixNearDist      = 0.25 // ending this close (or closer) counts toward "near"
	pixContactMargin = 0.02 // bounding boxes within this margin touch
	pixLiftScale     = 0.06 // rising this much is full lift credit
	pixGoalScale     = 0.15 // moving this much closer to the goal is full credit
	// pixProgressShare is the share of the approach and goal features that
	// rewards change within the clip; the rest rewards being near. Equal
	// shares: 0.75 ranked rendered reach/push experts below random more
	// often (an expert holding at the goal changes nothing).
	pixProgressShare = 0.5
)

// blob is one element's mask statistics in one frame.
type blob struct {
	n              int
	cx, cy         float64 // centroid (fraction of diagonal)
	x0, y0, x1, y1 float64 // bounding box (fraction of diagonal)
}

// Feature indices of PixelFeatures.
const (
	FeatApproach = iota
	FeatContact
	FeatLift
	FeatGoal
)

// PixelFeatures are the pixel scorer's per-clip features in [0,1]
// (approach, contact, lift, goal) and which of them could be measured.
type PixelFeatures struct {
	Value [4]float64
	Valid [4]bool
	// Visible is the fraction of examined frames in which the object, the
	// goal and the gripper were found; Enabled says which the spec uses.
	Visible [3]float64
	Enabled [3]bool
}

// Confidence is the mean visible fraction of the enabled elements.
func (f PixelFeatures) Confidence() float64 {
	var sum float64
	n := 0
	for e := range f.Visible {
		if f.Enabled[e] {
			sum += f.Visible[e]
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// Score implements Scorer: the weighted mean of the valid features.
func (p *PixelScorer) Score(ctx context.Context, c *Clip) (Score, error) {
	if err := ctx.Err(); err != nil {
		return Score{}, &ScoreError{Kind: KindCanceled, Err: err}
	}
	f, err := p.Features(c)
	if err != nil {
		return Score{}, err
	}
	w := p.Weights
	if w == [4]float64{} {
		w = [4]float64{1, 1, 1, 1}
	}
	var sum, wsum float64
	for i := range f.Value {
		if f.Valid[i] && w[i] > 0 {
			sum += w[i] * f.Value[i]
			wsum += w[i]
		}
	}
	conf := f.Confidence()
	if wsum == 0 {
		// nothing measurable (everything hidden or out of frame): no
		// evidence of progress, and no confidence in that either
		return Score{Value: 0, Method: "pixel", Confidence: conf}, nil
	}
	return Score{Value: clamp01(sum / wsum), Method: "pixel", Confidence: conf}, nil
}

// Features measures the clip's features; Score combines them.
func (p *PixelScorer) Features(c *Clip) (PixelFeatures, error) {
	var f PixelFeatures
	if c == nil || len(c.Frames) == 0 {
		return f, &ScoreError{Kind: KindInput, Err: ErrEmptyClip}
	}
	sp := p.Spec
	if !sp.Object.Enabled() && !sp.Goal.Enabled() && !sp.Gripper.Enabled() {
		return f, &ScoreError{Kind: KindInput, Err: errors.New("pixel scorer: PixelSpec has no colours (set Tol > 0 on object, goal or gripper)")}
	}
	n := len(c.Frames) - c.Padded
	if n <= 0 {
		n = len(c.Frames)
	}
	keys := [3]ColorKey{sp.Object, sp.Goal, sp.Gripper}
	nf := p.Frames
	if nf <= 0 {
		nf = 16
	}
	idx := SubsampleIndices(n, nf)
	blobs := make([][3]blob, 0, len(idx))
	for _, i := range idx {
		img := c.Frames[i].Image
		if img == nil {
			return f, &ScoreError{Kind: KindInput, Err: errors.New("pixel scorer: clip frame has no image")}
		}
		blobs = append(blobs, p.segment(img, &keys))
	}
	minPix := sp.MinPixels
	if minPix <= 0 {
		minPix = 3
	}
	if sp.Goal.Enabled() && !p.MovingGoal {
		p.staticGoal(c, blobs, minPix)
	}
	vis := func(k, e int) bool { return blobs[k][e].n >= minPix }
	for e := range keys {
		if f.Enabled[e] = keys[e].Enabled(); !f.Enabled[e] {
			continue
		}
		n := 0
		for k := range blobs {
			if vis(k, e) {
				n++
			}
		}
		f.Visible[e] = float64(n) / float64(len(blobs))
	}
	const obj, goal, grip = 0, 1, 2
	add := func(i int, v float64, ok bool) {
		if ok {
			f.Value[i], f.Valid[i] = v, true
		}
	}
	// mover is what must reach the goal: the object, or the gripper in reach tasks
	mover := obj
	if !sp.Object.Enabled() {
		mover = grip
	}
	// approach: gripper toward the object (or toward the goal without one)
	target := obj
	if !sp.Object.Enabled() {
		target = goal
	}
	if sp.Gripper.Enabled() && keys[target].Enabled() {
		d := series(blobs, vis, grip, target, centroidDist)
		if first, _, lo, ok := d.stats(); ok {
			add(0, pixProgressShare*clamp01((first-lo)/pixApproachScale)+(1-pixProgressShare)*clamp01(1-lo/pixNearDist), true)
		}
	}
	if sp.Gripper.Enabled() && sp.Object.Enabled() {
		touch, both := 0, 0
		for k := range blobs {
			if vis(k, grip) && vis(k, obj) {
				both++
				if boxesTouch(blobs[k][grip], blobs[k][obj], pixContactMargin) {
					touch++
				}
			}
		}
		add(1, float64(touch)/float64(max(both, 1)), both > 0)
	}
	if sp.Object.Enabled() {
		up := sp.Up
		if up == [2]float64{} {
			up = [2]float64{0, -1}
		}
		un := math.Hypot(up[0], up[1])
		first, rise, seen := 0.0, 0.0, false
		for k := range blobs {
			if !vis(k, obj) {
				continue
			}
			h := (blobs[k][obj].cx*up[0] + blobs[k][obj].cy*up[1]) / un
			if !seen {
				first, seen = h, true
			}
			rise = max(rise, h-first)
		}
		add(2, clamp01(rise/pixLiftScale), seen)
	}
	if sp.Goal.Enabled() && keys[mover].Enabled() {
		d := series(blobs, vis, mover, goal, centroidDist)
		if first, last, lo, ok := d.stats(); ok {
			add(3, pixProgressShare*clamp01((first-last)/pixGoalScale)+(1-pixProgressShare)*clamp01(1-lo/pixNearDist), true)
		}
	}
	return f, nil
}

// distSeries holds a per-frame distance, NaN where an element is hidden.
type distSeries []float64

func (d distSeries) stats() (first, last, lo float64, ok bool) {
	lo = math.Inf(1)
	for _, v := range d {
		if math.IsNaN(v) {
			continue
		}
		if !ok {
			first, ok = v, true
		}
		last = v
		lo = min(lo, v)
	}
	return first, last, lo, ok
}

func series(blobs [][3]blob, vis func(k, e int) bool, a, b int, f func(x, y blob) float64) distSeries {
	d := make(distSeries, len(blobs))
	for k := range blobs {
		if vis(k, a) && vis(k, b) {
			d[k] = f(blobs[k][a], blobs[k][b])
		} else {
			d[k] = math.NaN()
		}
	}
	return d
}

func centroidDist(x, y blob) float64 { return math.Hypot(x.cx-y.cx, x.cy-y.cy) }

func boxesTouch(a, b blob, m float64) bool {
	return a.x0-m <= b.x1 && b.x0-m <= a.x1 && a.y0-m <= b.y1 && b.y0-m <= a.y1
}

// segment measures each enabled key's mask in img on a subsampled grid.
func (p *PixelScorer) segment(img *image.RGBA, keys *[3]ColorKey) [3]blob {
	r := img.Rect
	w, h := r.Dx(), r.Dy()
	maxSide := p.MaxSide
	if maxSide <= 0 {
		maxSide = 128
	}
	step := max((max(w, h)+maxSide-1)/maxSide, 1)
	diag := math.Hypot(float64(w), float64(h))
	var m [3]matcher
	for e := range keys {
		m[e] = newMatcher(keys[e])
	}
	var out [3]blob
	var sx, sy [3]float64
	x0 := [3]int{math.MaxInt, math.MaxInt, math.MaxInt}
	y0 := x0
	x1 := [3]int{-1, -1, -1}
	y1 := x1
	// neighbouring pixels often share a colour (flat-shaded tiles, a
	// uniform background), so the last colour's matches are reused
	last, mask := uint32(1<<24), uint8(0) // no pixel has colour 1<<24
	for y := 0; y < h; y += step {
		row := img.Pix[y*img.Stride:]
		for x := 0; x < w; x += step {
			px := row[4*x : 4*x+3 : 4*x+3]
			if c := uint32(px[0])<<16 | uint32(px[1])<<8 | uint32(px[2]); c != last {
				last, mask = c, 0
				r, g, b := float64(px[0]), float64(px[1]), float64(px[2])
				for e := range m {
					if m[e].match(r, g, b) {
						mask |= 1 << e
					}
				}
			}
			if mask == 0 {
				continue
			}
			for e := range m {
				if mask&(1<<e) == 0 {
					continue
				}
				out[e].n++
				sx[e] += float64(x)
				sy[e] += float64(y)
				x0[e], x1[e] = min(x0[e], x), max(x1[e], x)
				y0[e], y1[e] = min(y0[e], y), max(y1[e], y)
			}
		}
	}
	for e := range out {
		if out[e].n == 0 {
			continue
		}
		n := float64(out[e].n)
		out[e].cx, out[e].cy = sx[e]/n/diag, sy[e]/n/diag
		out[e].x0, out[e].y0 = float64(x0[e])/diag, float64(y0[e])/diag
		out[e].x1, out[e].y1 = float64(x1[e]+step)/diag, float64(y1[e]+step)/diag
	}
	return out
}

// matcher is a ColorKey prepared for the pixel loop.
type matcher struct {
	on      bool
	r, g, b float64
	sum     float64 // key brightness R+G+B
	lo, hi  float64 // accepted pixel brightness range
	tol2    float64
	rescale bool
}

// neutralKey reports an achromatic key (white, greys): its channels differ
// by less than a tenth of its brightness. Rescaling such a key by
// brightness would make every grey pixel match it (a white button box
// would match a grey wall in shade), so neutral keys match by plain RGB
// distance.
func neutralKey(k ColorKey) bool {
	lo, hi := min(k.R, k.G, k.B), max(k.R, k.G, k.B)
	return 10*int(hi-lo) < int(k.R)+int(k.G)+int(k.B)
}

// darkKey is the key brightness (R+G+B) below which rescaling is off.
const darkKey = 60

func newMatcher(k ColorKey) matcher {
	if !k.Enabled() {
		return matcher{}
	}
	m := matcher{on: true, r: float64(k.R), g: float64(k.G), b: float64(k.B), tol2: k.Tol * k.Tol}
	m.sum = m.r + m.g + m.b
	l := k.Lighting
	if l <= 0 {
		l = 2
	}
	if l > 1 && m.sum >= darkKey && !neutralKey(k) {
		m.rescale = true
		m.lo, m.hi = m.sum/l, m.sum*l
	}
	return m
}

func (m *matcher) match(r, g, b float64) bool {
	if !m.on {
		return false
	}
	if m.rescale {
		s := r + g + b
		if s < m.lo || s > m.hi {
			return false
		}
		f := m.sum / s
		r, g, b = r*f, g*f, b*f
	}
	dr, dg, db := r-m.r, g-m.g, b-m.b
	return dr*dr+dg*dg+db*db <= m.tol2
}
