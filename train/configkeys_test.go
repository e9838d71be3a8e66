package train

import (
	"slices"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
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
