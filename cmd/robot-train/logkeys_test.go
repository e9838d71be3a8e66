package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/vlmrb/vlmrb/rundir"
)

// A run's metrics use SB3's and CleanRL's keys with their meaning:
// losses/alpha is α itself (CleanRL), its loss is losses/alpha_loss;
// eval/mean_reward and time/total_timesteps are SB3's. Renamed keys are
// also written under their old names, with the same values, for one
// release. The final evaluation's GIF is in the TensorBoard event file.
func TestLogKeysMeanWhatTheFieldMeans(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "run")
	code, _, stderr := runCLI(t, tiny(out)...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows, err := rundir.ReadMetricsJSONL(filepath.Join(out, "metrics.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var sawTrain, sawEval bool
	for _, r := range rows {
		v := r.Values
		if a, ok := v["charts/alpha"]; ok {
			sawTrain = true
			if v["losses/alpha"] != a {
				t.Errorf("step %d: losses/alpha %g is not α (charts/alpha %g)", r.Step, v["losses/alpha"], a)
			}
			if _, ok := v["losses/alpha_loss"]; !ok {
				t.Errorf("step %d: no losses/alpha_loss", r.Step)
			}
			if v["time/total_timesteps"] != float64(r.Step) {
				t.Errorf("step %d: time/total_timesteps %g", r.Step, v["time/total_timesteps"])
			}
		}
		if _, ok := v["eval/mean_reward"]; ok {
			sawEval = true
		}
		for nk, ok := range rundir.RenamedKeys() {
			x, hasNew := v[nk]
			y, hasOld := v[ok]
			if hasNew != hasOld || x != y {
				t.Errorf("step %d: %s=%g (%v) and its alias %s=%g (%v) differ", r.Step, nk, x, hasNew, ok, y, hasOld)
			}
		}
	}
	if !sawTrain || !sawEval {
		t.Fatalf("rows without training (%v) or evaluation (%v) metrics", sawTrain, sawEval)
	}
	tb, _ := filepath.Glob(filepath.Join(out, "tb", "events.out.tfevents.*"))
	if len(tb) != 1 {
		t.Fatalf("event files %v", tb)
	}
	b, err := os.ReadFile(tb[0])
	if err != nil {
		t.Fatal(err)
	}
	gif, err := os.ReadFile(filepath.Join(out, "videos", "eval-000000200.gif"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte("eval/video")) || !bytes.Contains(b, gif) {
		t.Fatal("the final evaluation's GIF is not in the TensorBoard event file under eval/video")
	}
}
