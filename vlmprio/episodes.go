package vlmprio

import (
	"context"

	"github.com/vlmrb/vlmrb/frame"
	"github.com/vlmrb/vlmrb/replay"
)

// Player plays one environment episode after episode for EpisodeClips:
// a simulated task under a scripted or learned policy, a grid world under
// its planner.
type Player interface {
	// Reset starts episode ep (0 for the first).
	Reset(ep int) error
	// Observe fills dst with the frame of the current state (reusing
	// dst.Image when it fits, like frame.Source.Next) and returns that
	// state's privileged progress in [0,1].
	Observe(dst *frame.Frame) (progress float64, err error)
	// Act takes one step. terminated: the episode reached a terminal
	// state (its final observation o_T follows from Observe); truncated:
	// a time limit ended it.
	Act() (terminated, truncated bool, err error)
}

// EpisodeClips cuts clips of env 0 from episodes p plays one after another,
// by the frame rule training uses (Pipeline): the step that takes action
// a_t carries o_t, observed before the action; a terminated episode's
// final observation o_T closes its last clips; a truncated one's clips end
// at o_{T−1}. Transition i of the run is replay slot i (generation 1).
// Each batch of finished clips goes to take, until take returns true (nil)
// or ctx ends (its error).
func EpisodeClips(ctx context.Context, p Player, c *Clipper, take func([]*Clip) bool) error {
	var cur, last frame.Frame
	slot := int32(0)
	for ep := 0; ; ep++ {
		if err := p.Reset(ep); err != nil {
			return err
		}
		for {
			if err := ctx.Err(); err != nil {
				return err
			}
			prog, err := p.Observe(&cur) // o_t
			if err != nil {
				return err
			}
			term, trunc, err := p.Act()
			if err != nil {
				return err
			}
			slot++
			st := Step{Episode: int64(ep), Frame: cur, Ref: replay.Ref{Slot: slot, Gen: 1},
				Progress: prog, HasProgress: true, Done: term || trunc}
			if term {
				if st.TerminalProgress, err = p.Observe(&last); err != nil { // o_T
					return err
				}
				st.Terminal = &last
			}
			if take(c.Push(0, st)) {
				return nil
			}
			if st.Done {
				break
			}
		}
	}
}
