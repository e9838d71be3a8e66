package vlmprio

import (
	"fmt"
	"sync"

	"github.com/vlmrb/vlmrb/frame"
	"github.com/vlmrb/vlmrb/replay"
)

// ApplyRule says which transitions receive a clip's score.
type ApplyRule int

const (
	// ApplyStride gives a clip's score to the S transitions it starts with
	// (S = stride). With clips every S steps every transition gets exactly
	// one score: the score of the clip that begins with it (the paper's
	// τ_i = (o_i … o_{i+L−1}) scores transition i).
	ApplyStride ApplyRule = iota
	// ApplyWhole broadcasts a clip's score to every transition whose frame
	// is in the clip (L of them). With S < L clips overlap; the Prioritizer
	// combines overlapping scores by its Combine rule (max by default:
	// "a success appears in some clip that contains this transition").
	ApplyWhole
)

// applyNames are the texts of the rules (train's vlm.apply).
var applyNames = []string{ApplyStride: "stride", ApplyWhole: "whole"}

func (a ApplyRule) String() string {
	if a >= 0 && int(a) < len(applyNames) {
		return applyNames[a]
	}
	return fmt.Sprintf("ApplyRule(%d)", int(a))
}

// MarshalText writes the rule as stride or whole.
func (a ApplyRule) MarshalText() ([]byte, error) {
	if a < 0 || int(a) >= len(applyNames) {
		return nil, fmt.Errorf("no apply rule %d (stride or whole)", int(a))
	}
	return []byte(applyNames[a]), nil
}

// UnmarshalText reads stride or whole.
func (a *ApplyRule) UnmarshalText(b []byte) error {
	for i, n := range applyNames {
		if string(b) == n {
			*a = ApplyRule(i)
			return nil
		}
	}
	return fmt.Errorf("apply %q is not a rule (choose stride or whole)", b)
}

// TailPolicy says what happens to the last transitions of an episode that
// no full-length clip starts at.
type TailPolicy int

const (
	// TailPad emits full-length clips, padding past the episode end by
	// repeating the last frame.
	TailPad TailPolicy = iota
	// TailShorter emits shorter clips that stop at the episode end.
	TailShorter
	// TailSkip emits nothing: those transitions keep the default priority.
	TailSkip
)

func (p TailPolicy) String() string {
	switch p {
	case TailPad:
		return "pad"
	case TailShorter:
		return "shorter"
	case TailSkip:
		return "skip"
	}
	return fmt.Sprintf("TailPolicy(%d)", int(p))
}

// ParseTailPolicy parses "pad", "shorter" or "skip".
func ParseTailPolicy(s string) (TailPolicy, error) {
	switch s {
	case "pad":
		return TailPad, nil
	case "shorter":
		return TailShorter, nil
	case "skip":
		return TailSkip, nil
	}
	return 0, fmt.Errorf("vlmprio: unknown tail policy %q (want pad, shorter or skip)", s)
}

// ClipperConfig configures a Clipper. Zero fields take the defaults.
//
// The yaml keys are those of robot-train's vlm section, which embeds it.
type ClipperConfig struct {
	Length int        `yaml:"clip_len"` // frames per clip, L (default 32)
	Stride int        `yaml:"stride"`   // steps between clip starts, S (default 8)
	Apply  ApplyRule  `yaml:"apply"`    // which transitions get a clip's score (default ApplyStride)
	Tail   TailPolicy `yaml:"-"`        // end-of-episode handling (default TailPad)
	// MinTail is the fewest real frames a tail clip may have under TailPad
	// or TailShorter (default 1); shorter tails are skipped and counted.
	MinTail int    `yaml:"-"`
	Task    string `yaml:"-"` // task text copied into every clip
	Family  string `yaml:"-"` // task family copied into every clip
}

func (c ClipperConfig) withDefaults() ClipperConfig {
	if c.Length <= 0 {
		c.Length = 32
	}
	if c.Stride <= 0 {
		c.Stride = 8
	}
	if c.MinTail <= 0 {
		c.MinTail = 1
	}
	return c
}

// Step is what the training loop reports to the Clipper for one
// transition of one environment.
type Step struct {
	// Episode identifies the episode within the env. A new value starts a
	// new episode (the previous one is closed as if Done had been set).
	Episode int64
	// Frame is the camera frame that goes with the transition: o_t, the
	// observation its action is taken in (Pipeline states the rule). The
	// Clipper clones it.
	Frame frame.Frame
	// Ref is the replay slot the transition was stored in.
	Ref replay.Ref
	// Progress is privileged task progress in [0,1]; set HasProgress when
	// it is known (simulation only).
	Progress    float64
	HasProgress bool
	// Done marks the last transition of the episode (terminated or truncated).
	Done bool
	// Terminal, on a Done step of a terminated episode, is the episode's
	// final observation o_T (no transition starts at it): the episode's
	// last clips end with it instead of with o_{T−1}. The Clipper clones
	// it. TerminalProgress is its privileged progress.
	Terminal         *frame.Frame
	TerminalProgress float64
}

// ClipperStats counts what the Clipper did.
type ClipperStats struct {
	Steps       int64 // transitions pushed
	Clips       int64 // clips emitted, tail clips included
	TailClips   int64 // clips emitted at episode ends (padded or shorter)
	PaddedClips int64 // tail clips that were padded
	TailSkipped int64 // transitions left unscored at episode ends (TailSkip or MinTail)
	Episodes    int64 // episodes closed
}

// Clipper turns per-env frame streams into clips. It keeps, per env, the
// frames of the current episode that a future clip still needs (at most
// L+S of them). Safe for concurrent use; each env's steps must arrive in
// order.
type Clipper struct {
	cfg   ClipperConfig
	mu    sync.Mutex
	envs  map[int]*envRing
	stats ClipperStats
}

// envRing holds one env's pending frames. frames[0] belongs to episode step
// base. next is the episode step at which the next clip starts.
type envRing struct {
	episode int64
	started bool
	base    int
	next    int
	frames  []frame.Frame
	refs    []replay.Ref
	prog    []float64
	hasProg bool
}

// NewClipper returns a Clipper with cfg (zero fields take defaults).
func NewClipper(cfg ClipperConfig) *Clipper {
	return &Clipper{cfg: cfg.withDefaults(), envs: make(map[int]*envRing)}
}

// Config returns the Clipper's configuration with defaults filled in.
func (c *Clipper) Config() ClipperConfig { return c.cfg }

// Stats returns a snapshot of the counters.
func (c *Clipper) Stats() ClipperStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

// Push records one transition of env and returns the clips that became
// complete (usually none; one every S steps; several at an episode end).
// The returned clips are the caller's.
func (c *Clipper) Push(env int, s Step) []*Clip {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stats.Steps++
	r := c.envs[env]
	if r == nil {
		r = &envRing{}
		c.envs[env] = r
	}
	var out []*Clip
	if r.started && r.episode != s.Episode {
		// a new episode without Done on the old one: close the old one first
		out = c.closeEpisode(env, r, out)
	}
	if !r.started {
		*r = envRing{episode: s.Episode, started: true, frames: r.frames[:0], refs: r.refs[:0], prog: r.prog[:0], hasProg: true}
	}
	r.frames = append(r.frames, s.Frame.Clone())
	r.refs = append(r.refs, s.Ref)
	r.prog = append(r.prog, s.Progress)
	r.hasProg = r.hasProg && s.HasProgress
	if s.Done && s.Terminal != nil {
		// o_T: a frame without a transition of its own
		r.frames = append(r.frames, s.Terminal.Clone())
		r.prog = append(r.prog, s.TerminalProgress)
	}

	L := c.cfg.Length
	// full clips: the clip starting at r.next (a transition) is complete
	// once frame next+L-1 exists
	for r.next+L <= r.base+len(r.frames) && r.next < r.base+len(r.refs) {
		out = append(out, c.makeClip(env, r, r.next, L, 0))
		r.next += c.cfg.Stride
	}
	c.trim(r)
	if s.Done {
		out = c.closeEpisode(env, r, out)
	}
	return out
}

// Flush closes the current episode of env (applying the tail policy) and
// returns its tail clips. Use it when an env stops without a Done step.
func (c *Clipper) Flush(env int) []*Clip {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.envs[env]
	if r == nil || !r.started {
		return nil
	}
	return c.closeEpisode(env, r, nil)
}

// closeEpisode applies the tail policy to the transitions no clip has
// started at yet, then resets the ring.
func (c *Clipper) closeEpisode(env int, r *envRing, out []*Clip) []*Clip {
	end, last := r.base+len(r.refs), r.base+len(r.frames) // transitions; frames (o_T included)
	for r.next < end {
		real := min(last-r.next, c.cfg.Length)
		switch {
		case c.cfg.Tail == TailSkip || real < c.cfg.MinTail:
			c.stats.TailSkipped += int64(min(c.cfg.Stride, end-r.next))
		case c.cfg.Tail == TailShorter:
			out = append(out, c.makeClip(env, r, r.next, real, 0))
			c.stats.TailClips++
		default: // TailPad
			out = append(out, c.makeClip(env, r, r.next, real, c.cfg.Length-real))
			c.stats.TailClips++
			c.stats.PaddedClips++
		}
		r.next += c.cfg.Stride
	}
	c.stats.Episodes++
	r.started = false
	r.base, r.next = 0, 0
	clear(r.frames) // drop image references
	r.frames, r.refs, r.prog = r.frames[:0], r.refs[:0], r.prog[:0]
	return out
}

// makeClip builds the clip of n real frames starting at episode step start,
// padded with pad copies of its last frame.
func (c *Clipper) makeClip(env int, r *envRing, start, n, pad int) *Clip {
	i0 := start - r.base
	cl := &Clip{
		Env: env, Episode: r.episode, Start: start, End: start + n, Padded: pad,
		Task: c.cfg.Task, Family: c.cfg.Family,
		Frames: make([]frame.Frame, n+pad),
	}
	// frames in the ring are private clones that are never written again,
	// so clips may share them
	copy(cl.Frames, r.frames[i0:i0+n])
	for k := n; k < n+pad; k++ {
		cl.Frames[k] = r.frames[i0+n-1]
	}
	if r.hasProg {
		cl.Progress = make([]float64, n+pad)
		copy(cl.Progress, r.prog[i0:i0+n])
		for k := n; k < n+pad; k++ {
			cl.Progress[k] = r.prog[i0+n-1]
		}
	}
	nref := n
	if c.cfg.Apply == ApplyStride {
		nref = min(c.cfg.Stride, n)
	}
	nref = min(nref, len(r.refs)-i0) // o_T starts no transition
	cl.Refs = append([]replay.Ref(nil), r.refs[i0:i0+nref]...)
	c.stats.Clips++
	return cl
}

// trim drops frames no future clip can use (those before r.next).
func (c *Clipper) trim(r *envRing) {
	drop := r.next - r.base
	if drop <= 0 || drop < len(r.frames)/2 {
		return
	}
	drop = min(drop, len(r.frames))
	n := copy(r.frames, r.frames[drop:])
	clear(r.frames[n:])
	r.frames = r.frames[:n]
	r.refs = r.refs[:copy(r.refs, r.refs[drop:])]
	r.prog = r.prog[:copy(r.prog, r.prog[drop:])]
	r.base += drop
}
