package train

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/vlmrb/vlmrb/internal/safefile"
	"github.com/vlmrb/vlmrb/rundir"
)

// bestEval is the evaluation whose agent checkpoints/best holds.
type bestEval struct {
	Step        int64   `json:"step"`
	SuccessRate float64 `json:"success_rate"`
	MeanReturn  float64 `json:"mean_return"`
}

// saveBest keeps the agent of the best evaluation so far in
// checkpoints/best: the highest success rate, ties broken by the higher
// mean return (the earlier step when both tie).
func (c *core) saveBest(l learner, res *rundir.EvalResult) error {
	if b := c.best; b != nil && (res.SuccessRate < b.SuccessRate ||
		res.SuccessRate == b.SuccessRate && res.MeanReturn <= b.MeanReturn) {
		return nil
	}
	be := &bestEval{Step: c.step, SuccessRate: res.SuccessRate, MeanReturn: res.MeanReturn}
	man := &rundir.Manifest{Step: c.step, Updates: c.updates, Episodes: c.episodes}
	_, err := rundir.WriteCheckpointDir(rundir.CheckpointRoot(c.cfg.Out), rundir.BestName, man, []rundir.CheckpointPart{
		{Name: "agent.bin", Write: writeBytes(l.marshalAgent)},
		{Name: "config.yaml", Write: writeBytes(c.cfg.EncodeYAML)},
		{Name: "eval.json", Write: func(w io.Writer) error { return json.NewEncoder(w).Encode(res) }},
	})
	if err != nil {
		return fmt.Errorf("best checkpoint: %w", err)
	}
	c.best = be
	return nil
}

// loopState is the loop's part of a checkpoint (state.json); each learner
// adds its own fields.
type loopState struct {
	NextEpisode int64              `json:"next_episode"`
	RecentRet   []float64          `json:"recent_returns"`
	RecentLen   []float64          `json:"recent_lengths"`
	RecentSucc  []float64          `json:"recent_successes"`
	HaveUpd     bool               `json:"have_update_metrics"`
	LastEval    *rundir.EvalResult `json:"last_eval,omitempty"`
	Best        *bestEval          `json:"best,omitempty"`
	// EROPrev is the return of ERO's previous training episode (its replay
	// reward is the change since it); the sampler's own state is in
	// replay.bin.
	EROPrev *float64 `json:"ero_prev_return,omitempty"`
}

func (c *core) loopState() loopState {
	ls := loopState{NextEpisode: c.nextEpisode, RecentRet: c.recentRet, RecentLen: c.recentLen,
		RecentSucc: c.recentSucc, HaveUpd: c.haveUpd, LastEval: c.lastEval, Best: c.best}
	c.smp.saveState(&ls)
	return ls
}

// save writes a checkpoint: the agent, the replay buffer, the config, the
// state (a learner's struct that embeds loopState) and extra parts.
func (c *core) save(agent func() ([]byte, error), state any, extra ...rundir.CheckpointPart) error {
	if err := c.mlog.Sync(); err != nil {
		return err
	}
	pcgState, err := c.pcg.MarshalBinary()
	if err != nil {
		return fmt.Errorf("checkpoint rng: %w", err)
	}
	man := &rundir.Manifest{
		Step: c.step, Updates: c.updates, Episodes: c.episodes,
		RNG:     map[string]string{"train": hex.EncodeToString(pcgState)},
		Elapsed: c.elapsedBefore + time.Since(c.sessionStart).Seconds(),
	}
	parts := append([]rundir.CheckpointPart{
		{Name: "agent.bin", Write: writeBytes(agent)},
		{Name: "replay.bin", Write: c.buf.Save},
		{Name: "config.yaml", Write: writeBytes(c.cfg.EncodeYAML)},
		{Name: "state.json", Write: func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(state)
		}},
	}, extra...)
	dir, err := rundir.SaveCheckpoint(c.cfg.Out, man, parts, c.cfg.Ckpt.Keep)
	if err != nil {
		return err
	}
	c.res.Checkpoint = dir
	return c.hooks.checkpoint(CheckpointEvent{Step: c.step, Dir: dir})
}

// writeBytes adapts an encoder to a CheckpointPart writer.
func writeBytes(encode func() ([]byte, error)) func(io.Writer) error {
	return func(w io.Writer) error {
		b, err := encode()
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
}

// restore loads the checkpoint's replay buffer, random stream, counters
// and state.json into state (a learner's struct embedding loopState; ls
// points at that embedded part). It returns agent.bin's bytes.
func (c *core) restore(dir string, man *rundir.Manifest, state any, ls *loopState) ([]byte, error) {
	ab, err := rundir.ReadPart(dir, man, "agent.bin", rundir.MaxAgentBytes)
	if err != nil {
		return nil, fmt.Errorf("resume: %w", err)
	}
	f, err := safefile.Open(filepath.Join(dir, "replay.bin"))
	if err != nil {
		return nil, fmt.Errorf("resume: %w", err)
	}
	err = c.buf.Load(f)
	_ = f.Close()
	if err != nil {
		return nil, fmt.Errorf("resume replay buffer: %w", err)
	}
	b, err := rundir.ReadPart(dir, man, "state.json", rundir.MaxStateBytes)
	if err != nil {
		return nil, fmt.Errorf("resume: %w", err)
	}
	if err := json.Unmarshal(b, state); err != nil {
		return nil, fmt.Errorf("resume: state.json: %w", err)
	}
	h, err := hex.DecodeString(man.RNG["train"])
	if err == nil {
		err = c.pcg.UnmarshalBinary(h)
	}
	if err != nil {
		return nil, fmt.Errorf("resume: rng state: %w", err)
	}
	c.step, c.updates, c.episodes = man.Step, man.Updates, man.Episodes
	c.elapsedBefore = man.Elapsed
	c.nextEpisode = ls.NextEpisode
	c.recentRet, c.recentLen, c.recentSucc = ls.RecentRet, ls.RecentLen, ls.RecentSucc
	c.haveUpd, c.lastEval, c.best = ls.HaveUpd, ls.LastEval, ls.Best
	c.smp.loadState(ls)
	c.res.Resumed, c.res.ResumedFrom = true, man.Step
	return ab, nil
}
