package rundir

import (
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/vlmrb/vlmrb/replay"
	"github.com/vlmrb/vlmrb/vlmprio"
	"go.yaml.in/yaml/v3"
)

// TestConfigKeysMatchYAML: ConfigKeys are exactly the leaf keys that
// config.yaml holds.
func TestConfigKeysMatchYAML(t *testing.T) {
	t.Parallel()
	c := DefaultConfig()
	b, err := c.encode()
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := yaml.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	var want []string
	var flatten func(prefix string, m map[string]any)
	flatten = func(prefix string, m map[string]any) {
		for k, v := range m {
			if prefix != "" {
				k = prefix + "." + k
			}
			if sub, ok := v.(map[string]any); ok {
				flatten(k, sub)
				continue
			}
			want = append(want, k)
		}
	}
	flatten("", m)
	sort.Strings(want)
	if got := ConfigKeys(); !slices.Equal(got, want) {
		t.Fatalf("ConfigKeys:\n%v\nconfig.yaml keys:\n%v", got, want)
	}
}

func TestSetConfigKey(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		key  string
		text []string
		want string // "" = error
	}{
		{"task", []string{"push"}, "push"},
		{"steps", []string{"1000"}, "1000"},
		{"seed", []string{"3"}, "3"},
		{"sac.gamma", []string{"0.95"}, "0.95"},
		{"sac.auto_alpha", []string{"false"}, "false"},
		{"sac.hidden", []string{"64, 32"}, "64,32"},
		{"reward_model.goal", []string{"a", "b"}, "a | b"},
		{"sac.hidden", []string{"0"}, ""},
		{"reward_model.goal", []string{""}, ""},
		{"steps", []string{"lots"}, ""},
		{"seed", []string{"-1"}, ""},
		{"steps", []string{"1", "2"}, ""},
		{"nope", []string{"1"}, ""},
		{"sac", []string{"1"}, ""},
		{"vlm.api_key", []string{"k"}, ""},
		{"vlm.apply", []string{"whole"}, "whole"},
		{"vlm.apply", []string{"all"}, ""},
		{"vlm.clip_len", []string{"16"}, "16"},
		{"vlm.workers", []string{"0"}, "0"},
		{"buffer.score_map", []string{"raw"}, "raw"},
		{"buffer.score_map", []string{"linear"}, ""},
		{"buffer.per_beta0", []string{"0.5"}, "0.5"},
		{"buffer.capacity", []string{"5000"}, "5000"},
	} {
		c := DefaultConfig()
		err := SetConfigKey(&c, tc.key, tc.text...)
		if tc.want == "" {
			if err == nil {
				t.Errorf("%s %q: no error", tc.key, tc.text)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s %q: %v", tc.key, tc.text, err)
			continue
		}
		if got, _ := GetConfigKey(&c, tc.key); got != tc.want {
			t.Errorf("%s %q: got %q, want %q", tc.key, tc.text, got, tc.want)
		}
	}
	if !strings.Contains(func() string { c := DefaultConfig(); return SetConfigKey(&c, "nope", "1").Error() }(), "nope") {
		t.Error("unknown key error does not name the key")
	}
}

// TestEmbeddedSectionsKeepTheirKeys: the buffer and vlm sections embed
// the replay and vlmprio configs under the keys config.yaml always had,
// each key reaching the embedded field it names.
func TestEmbeddedSectionsKeepTheirKeys(t *testing.T) {
	t.Parallel()
	in := `
buffer:
  capacity: 5000
  share_next_obs: true
  per_alpha: 0.7
  per_beta0: 0.3
  per_eps: 0.001
  lambda_max: 0.25
  lambda_warmup: 500
  default_prio: 0.2
  score_map: raw
  threshold: 0.6
  score_floor: 0.01
  vlm_alpha: 2
  td_product: true
  importance_is: true
vlm:
  clip_len: 16
  stride: 4
  apply: whole
  workers: 0
  queue: 8
`
	c := DefaultConfig()
	if err := LoadConfig(strings.NewReader(in), &c); err != nil {
		t.Fatal(err)
	}
	b, v := c.Buffer, c.VLM
	want := replay.VLMRBConfig{LambdaMax: 0.25, Default: 0.2, Mapping: replay.MapRaw, Threshold: 0.6, Floor: 0.01,
		Alpha: 2, UseTD: true, ISWeights: true, TDEps: DefaultConfig().Buffer.VLMRB.TDEps, Beta0: DefaultConfig().Buffer.VLMRB.Beta0}
	if b.Capacity != 5000 || !b.ShareNextObs || b.PER != (replay.PERConfig{Alpha: 0.7, Beta0: 0.3, Eps: 0.001}) ||
		b.VLMRB != want || b.LambdaWarmup != 500 {
		t.Errorf("buffer section decoded as %+v", b)
	}
	if v.Clip != (vlmprio.ClipperConfig{Length: 16, Stride: 4, Apply: vlmprio.ApplyWhole}) ||
		v.Scoring.Workers != 0 || v.Scoring.QueueSize != 8 {
		t.Errorf("vlm section decoded as clip %+v, workers %d, queue %d", v.Clip, v.Scoring.Workers, v.Scoring.QueueSize)
	}
	// Encoded again, every key comes back with its value.
	out, err := c.encode()
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	var sent map[string]map[string]any
	if err := yaml.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal([]byte(in), &sent); err != nil {
		t.Fatal(err)
	}
	for sec, keys := range sent {
		for k, val := range keys {
			if g := got[sec].(map[string]any)[k]; g != val {
				t.Errorf("config.yaml %s.%s = %v, want %v", sec, k, g, val)
			}
		}
	}
}

// TestEnumeratedKeysRefuseUnknownText: vlm.apply and buffer.score_map
// name their choices when a file gives another, and a value set in Go
// without a name fails validation naming the key.
func TestEnumeratedKeysRefuseUnknownText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"vlm:\n  apply: all\n", "stride or whole"},
		{"buffer:\n  score_map: linear\n", "threshold or raw"},
	} {
		c := DefaultConfig()
		err := LoadConfig(strings.NewReader(tc.in), &c)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one naming %q", tc.in, err, tc.want)
		}
	}
	c := DefaultConfig()
	c.VLM.Clip.Apply, c.Buffer.VLMRB.Mapping = 7, 9
	_, err := c.Validated()
	if err == nil || !strings.Contains(err.Error(), "vlm.apply") || !strings.Contains(err.Error(), "buffer.score_map") {
		t.Errorf("Validated: %v, want errors naming vlm.apply and buffer.score_map", err)
	}
}
