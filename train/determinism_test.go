package train

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vlmrb/vlmrb/rundir"
)

// With vlm.workers 0 the scorer runs inside the training loop, so a
// VLM-RB run is a function of its config and seed: two runs log the same
// values (the clock's aside). With workers and vlm.lag the scores are
// scored concurrently and written at fixed steps: the "-lag" cases run two
// workers whose timing differs between the runs and must log the same.
// (With vlm.lag 0 the scores land at steps that depend on timing.) The
// replays without a scorer always are (AER and ERO here; PER and ReLo too).
func TestInlineScoringIsDeterministic(t *testing.T) {
	t.Parallel()
	for name, mk := range map[string]func(out string) rundir.Config{
		"sac-reach": func(out string) rundir.Config {
			c := tinyConfig(out, "vlmrb")
			c.Steps, c.Buffer.LambdaWarmup = 400, 150
			c.VLM.Clip.Length, c.VLM.Clip.Stride = 8, 4
			return c
		},
		"dqn-doorkey": func(out string) rundir.Config { return tinyGridConfig(out, "vlmrb", "oracle") },
		"sac-reach-lag": func(out string) rundir.Config {
			c := tinyConfig(out, "vlmrb")
			c.Steps, c.Buffer.LambdaWarmup = 400, 150
			c.VLM.Clip.Length, c.VLM.Clip.Stride, c.VLM.Scoring.Workers, c.VLM.Scoring.Lag = 8, 4, 2, 6
			return c
		},
		"dqn-doorkey-lag": func(out string) rundir.Config {
			c := tinyGridConfig(out, "vlmrb", "oracle")
			c.VLM.Scoring.Workers, c.VLM.Scoring.Lag = 2, 6
			return c
		},
		"dqn-aer": func(out string) rundir.Config { return tinyGridConfig(out, "aer", "oracle") },
		"dqn-ero": func(out string) rundir.Config { return tinyGridConfig(out, "ero", "oracle") },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var runs [2][]rundir.Row
			for i := range runs {
				out := filepath.Join(t.TempDir(), "run")
				c := mk(out)
				if !strings.HasSuffix(name, "-lag") {
					c.VLM.Scoring.Workers = 0
				}
				if _, err := Run(context.Background(), valid(t, c), Options{}); err != nil {
					t.Fatal(err)
				}
				rows, err := rundir.ReadMetricsJSONL(filepath.Join(out, "metrics.jsonl"))
				if err != nil {
					t.Fatal(err)
				}
				runs[i] = rows
			}
			if len(runs[0]) != len(runs[1]) || len(runs[0]) == 0 {
				t.Fatalf("%d and %d log rows", len(runs[0]), len(runs[1]))
			}
			scored := 0.0
			for i, r := range runs[0] {
				for k, v := range r.Values {
					if strings.HasPrefix(k, "time/") || strings.HasPrefix(k, "vlm/latency") || strings.HasPrefix(k, "vlm/render") {
						continue
					}
					if w, ok := runs[1][i].Values[k]; !ok || w != v && !(math.IsNaN(v) && math.IsNaN(w)) {
						t.Errorf("row %d %s: %v then %v", i, k, v, w)
					}
				}
				scored = max(scored, r.Values["vlm/clips_scored"])
			}
			if c := mk(""); c.Replay == "vlmrb" && scored == 0 {
				t.Error("no clip was scored: nothing was tested")
			}
		})
	}
}
