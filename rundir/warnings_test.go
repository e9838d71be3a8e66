package rundir

import (
	"strings"
	"testing"
)

// Settings that cannot take effect are named, each once; a plain default
// config has none.
func TestConfigWarnings(t *testing.T) {
	c := DefaultConfig()
	c.Task = "reach"
	if w := c.Warnings(); len(w) != 0 {
		t.Fatalf("defaults warn: %q", w)
	}
	c.Replay, c.Scorer = "uniform", "oracle"
	c.Buffer.VLMRB.LambdaMax, c.Buffer.VLMRB.UseTD = 0.25, true
	c.Steps, c.SAC.LearningStarts = 1000, 5000
	c.DQN.LR = 1e-3
	w := strings.Join(c.Warnings(), "\n")
	for _, want := range []string{
		"steps 1000 ≤ sac.learning_starts 5000",
		"scorer oracle does nothing with replay uniform",
		"buffer.lambda_max, buffer.td_product only affect replay vlmrb",
		"the dqn section is ignored",
	} {
		if !strings.Contains(w, want) {
			t.Errorf("warnings lack %q:\n%s", want, w)
		}
	}
	g := DefaultConfig()
	g.Task = "doorkey-5x5"
	g.SAC.BatchSize = 64
	if w := strings.Join(g.Warnings(), "\n"); !strings.Contains(w, "the sac section is ignored: task doorkey-5x5 trains with dqn") {
		t.Errorf("grid task warnings: %q", w)
	}
}
