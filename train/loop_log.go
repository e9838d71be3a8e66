package train

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/vlmrb/vlmrb/internal/cputime"
	"github.com/vlmrb/vlmrb/rundir"
)

// rates returns env steps/s and updates/s of this process.
func (c *core) rates() (float64, float64) {
	el := time.Since(c.sessionStart).Seconds()
	if el <= 0 {
		return 0, 0
	}
	return float64(c.step-c.startStep) / el, float64(c.updates-c.startUpdates) / el
}

// logRow writes one metrics row and prints the console table.
func (c *core) logRow(l learner) error {
	v := map[string]float64{
		"rollout/ep_rew_mean":  mean(c.recentRet),
		"rollout/ep_len_mean":  mean(c.recentLen),
		"rollout/success_rate": mean(c.recentSucc),
		"time/episodes":        float64(c.episodes),
		"time/total_updates":   float64(c.updates),
		"time/elapsed_s":       c.elapsedBefore + time.Since(c.sessionStart).Seconds(),
		"time/process_cpu_s":   cputime.Process().Seconds(), // user + system CPU of this process (0 where unsupported)
	}
	sps, ups := c.rates()
	v["time/fps"], v["time/updates_per_s"] = sps, ups
	if c.haveUpd {
		c.lastUpd.Range(func(k string, x float64) { v[k] = x })
	}
	l.values(v)
	c.diag.metrics(v, c.buf.Len())
	c.smp.addMetrics(v)
	v["time/total_timesteps"] = float64(c.step) // SB3's; also each row's step
	if err := c.mlog.Write(rundir.Row{Step: c.step, Values: rundir.WithAliases(v)}); err != nil {
		return err
	}
	if c.out != nil {
		if c.prog != nil {
			c.prog.Clear()
		}
		// the table shows the latest evaluation; the files keep it in its own rows
		if c.lastEval != nil {
			v["eval/success_rate"] = c.lastEval.SuccessRate
			v["eval/mean_reward"] = c.lastEval.MeanReturn
		}
		_, _ = fmt.Fprint(c.out, rundir.FormatTable(c.step, v))
		if c.prog != nil && !c.prog.Terminal() { // on a terminal the bar says it
			_, _ = fmt.Fprintln(c.out, c.prog.Status(c.step))
		}
	}
	return nil
}

// evalAndLog evaluates the deterministic policy, logs eval/ metrics and
// refreshes the curves.
func (c *core) evalAndLog(ctx context.Context, l learner, final bool) error {
	if c.cfg.Eval.Episodes == 0 {
		return nil
	}
	res, extra, err := l.evaluate(ctx)
	if err != nil {
		return err
	}
	c.lastEval = res
	if final {
		c.res.FinalEval = res
	}
	row := rundir.Row{Step: c.step, Values: map[string]float64{
		"eval/success_rate":   res.SuccessRate,
		"eval/mean_reward":    res.MeanReturn,
		"eval/std_return":     res.StdReturn,
		"eval/mean_ep_length": res.MeanLength,
		"eval/episodes":       float64(res.Episodes),
	}}
	for k, x := range extra {
		row.Values[k] = x
	}
	row.Values = rundir.WithAliases(row.Values)
	if err := c.mlog.Write(row); err != nil {
		return err
	}
	// the evaluation's GIF goes to TensorBoard too (Images tab: eval/video)
	if gif := rundir.EvalVideoPath(c.cfg.Out, c.step); c.cfg.Eval.GIF && c.cfg.Log.TensorBoard {
		if _, err := os.Stat(gif); err == nil {
			if err := c.mlog.WriteVideo(c.step, "eval/video", gif); err != nil {
				c.warnf("eval video to TensorBoard: %v", err)
			}
		}
	}
	if c.out != nil {
		if c.prog != nil {
			c.prog.Clear()
		}
		_, _ = fmt.Fprintf(c.out, "eval @ %d: success rate %.2f, mean return %.2f ± %.2f (%d episodes)",
			c.step, res.SuccessRate, res.MeanReturn, res.StdReturn, res.Episodes)
		if rho, ok := extra["eval/reward_expert_spearman"]; ok {
			_, _ = fmt.Fprintf(c.out, "; learned reward vs progress on an expert episode: Spearman %.2f", rho)
		}
		_, _ = fmt.Fprintln(c.out)
	}
	c.plot()
	if err := c.saveBest(l, res); err != nil {
		return err
	}
	return c.hooks.eval(EvalEvent{Step: c.step, Result: res, Final: final})
}

func (c *core) plot() {
	paths, err := rundir.PlotCurves(filepath.Join(c.cfg.Out, "curves"), c.title, c.mlog.Rows())
	if err != nil {
		c.warnf("learning curves: %v", err)
		return
	}
	c.res.Curves = paths
}
