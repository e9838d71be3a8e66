package train

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vlmrb/vlmrb/rundir"
)

// TestStrictConfigRefusesNamingTheKey: each document is refused by
// LoadConfig or Validate with a message that names what is wrong.
func TestStrictConfigRefusesNamingTheKey(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, yaml, want string }{
		{"second document", "steps: 500\n---\nsteps: 900\n", "second YAML document"},
		{"nan gamma", "sac:\n  gamma: .nan\n", "sac.gamma must be a finite number"},
		{"inf lr", "sac:\n  actor_lr: .inf\n", "sac.actor_lr must be a finite number"},
		{"nan lambda", "buffer:\n  lambda_max: .nan\n", "buffer.lambda_max must be a finite number"},
		{"negative timeout", "vlm:\n  timeout_s: -1\n", "vlm.timeout_s must be in (0, 3600]"},
		{"huge timeout", "vlm:\n  timeout_s: 1e9\n", "vlm.timeout_s must be in (0, 3600]"},
		{"num_envs over limit", "num_envs: 10000\nsteps: 1000000\n", "num_envs must be ≤ 256"},
		{"num_envs over steps", "num_envs: 100\nsteps: 50\n", "num_envs (100) exceeds steps (50)"},
		{"unknown key", "stepz: 5\n", "stepz"},
		{"big prompt", "vlm:\n  prompt: " + strings.Repeat("a", rundir.MaxPromptBytes+1) + "\n", "vlm.prompt is"},
		{"oversize file", "# " + strings.Repeat("x", rundir.MaxConfigBytes) + "\n", "larger than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := rundir.DefaultConfig()
			err := rundir.LoadConfig(strings.NewReader(tc.yaml), &c)
			if err == nil {
				err = checkConfig(&c)
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
	// the defaults and an ordinary file pass
	c := rundir.DefaultConfig()
	if err := rundir.LoadConfig(strings.NewReader("steps: 500\nsac:\n  gamma: 0.98\n"), &c); err != nil || checkConfig(&c) != nil {
		t.Fatalf("ordinary config refused: %v %v", err, checkConfig(&c))
	}
}

// FuzzLoadConfig: no input makes the loader or the validator panic, and
// whatever is accepted encodes and loads back to the same config.
func FuzzLoadConfig(f *testing.F) {
	f.Add([]byte("steps: 500\nsac:\n  gamma: 0.98\n"))
	f.Add([]byte("sac:\n  gamma: .nan\n"))
	f.Add([]byte("a: 1\n---\nb: 2\n"))
	f.Add([]byte("sac: {hidden: [1, 2, -3]}\nbuffer: {capacity: 99999999999999999999}\n"))
	f.Add([]byte("reward_model:\n  goal: [a, b]\n"))
	f.Add([]byte("&a [*a]"))
	f.Fuzz(func(t *testing.T, b []byte) {
		c := rundir.DefaultConfig()
		if err := rundir.LoadConfig(bytes.NewReader(b), &c); err != nil {
			return
		}
		if err := checkConfig(&c); err != nil {
			var ce *rundir.ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("Validate returned %T, want *ConfigError", err)
			}
			return
		}
		enc, err := c.EncodeYAML()
		if err != nil {
			t.Fatalf("encode of a valid config: %v", err)
		}
		d := rundir.DefaultConfig()
		if err := rundir.LoadConfig(bytes.NewReader(enc), &d); err != nil {
			t.Fatalf("a saved config does not load: %v\n%s", err, enc)
		}
		if err := checkConfig(&d); err != nil {
			t.Fatalf("a saved config does not validate: %v\n%s", err, enc)
		}
	})
}

// FuzzRunDirState feeds arbitrary bytes to every state file a run
// directory holds (manifest.json, state.json, metrics.jsonl,
// config.yaml) through the readers resume and eval use: they fail with
// an error, never a panic.
func FuzzRunDirState(f *testing.F) {
	f.Add([]byte(`{"version":1,"step":200,"files":[{"name":"agent.bin","size":3,"sha256":"00"}]}`))
	f.Add([]byte(`{"next_episode":3,"recent_returns":[1,2]}`))
	f.Add([]byte("{\"step\":100,\"x\":1}\n{\"step\":"))
	f.Add([]byte(`{"version":1,"files":[{"name":"../../etc/passwd","size":-1}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		ck := filepath.Join(rundir.CheckpointRoot(dir), rundir.CheckpointName(200))
		if err := os.MkdirAll(ck, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"manifest.json", "state.json", "agent.bin", "replay.bin"} {
			if err := os.WriteFile(filepath.Join(ck, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for _, name := range []string{"metrics.jsonl", "config.yaml"} {
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		_, _, _ = rundir.LatestCheckpoint(dir)
		_, _ = rundir.LatestAgentCheckpoint(dir)
		_, _ = rundir.ReadMetricsJSONL(filepath.Join(dir, "metrics.jsonl"))
		var st runState
		_ = json.Unmarshal(b, &st)
		if a, _, _, err := rundir.LoadAgent(dir); err == nil {
			a.Close()
		}
	})
}
