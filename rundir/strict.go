package rundir

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"

	"go.yaml.in/yaml/v3"
)

// Limits on what a config may hold. Each is far above any real use and
// far below what would hurt: a prompt is copied into every checkpoint and
// every VLM request; each env costs memory and a share of the step budget.
const (
	// MaxConfigBytes bounds a config file (and config.yaml on resume).
	MaxConfigBytes = 1 << 20
	// MaxPromptBytes bounds vlm.prompt and each VLM-RM goal/baseline prompt.
	MaxPromptBytes = 16 << 10
	// MaxPrompts bounds the number of VLM-RM goal (and baseline) prompts.
	MaxPrompts = 64
	// MaxNumEnvs bounds num_envs (it is also bounded by steps).
	MaxNumEnvs = 256
	// MaxTimeoutS bounds vlm.timeout_s (s).
	MaxTimeoutS = 3600
	// MaxEpisodeLen bounds max_episode_len (control steps; the tasks'
	// defaults are 50 to 500). An evaluation GIF holds at most
	// MaxGIFFrames frames of an episode however long it is.
	MaxEpisodeLen = 100_000
	// MaxHiddenWidth and MaxHiddenLayers bound sac.hidden and dqn.hidden
	// (this project trains 2 × 256): a 4096 × 4096 SAC holds about 1 GB
	// of parameters, gradients and optimiser moments.
	MaxHiddenWidth  = 4096
	MaxHiddenLayers = 8
	// MaxBufferCapacity bounds buffer.capacity (transitions; each is
	// 4·(2·obs+act) bytes and more).
	MaxBufferCapacity = 10_000_000
	// MaxUpdatesPerStep bounds sac.updates_per_step (the UTD ratio; REDQ
	// uses 20). A stop request is seen between env steps, after at most
	// MaxUpdatesPerStep × num_envs updates (the 1e7 that ignored Ctrl-C
	// for over a minute is refused).
	MaxUpdatesPerStep = 128
	// MaxBatchSize bounds sac.batch_size and dqn.batch_size (each update
	// holds a few activations per hidden unit of every row).
	MaxBatchSize = 65536
	// MaxVLMQueue bounds vlm.queue and vlm.lag (clips outstanding, loop
	// steps): each queued clip holds its frames.
	MaxVLMQueue = 1 << 16
)

// loadConfig is LoadConfig: one YAML document of at most MaxConfigBytes,
// known keys only.
func loadConfig(r io.Reader, c *Config) error {
	b, err := io.ReadAll(io.LimitReader(r, MaxConfigBytes+1))
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	if len(b) > MaxConfigBytes {
		return fmt.Errorf("config: larger than %d bytes; a run config is a few kilobytes", MaxConfigBytes)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(c); err != nil {
		if errors.Is(err, io.EOF) {
			return nil // empty file: keep defaults
		}
		return fmt.Errorf("config: %s (robot-train train --print-config shows every key and its value)", yamlProblem(b, err))
	}
	var more yaml.Node
	if err := dec.Decode(&more); !errors.Is(err, io.EOF) {
		line := more.Line
		if err != nil {
			return fmt.Errorf("config: after the first document: %w", err)
		}
		return fmt.Errorf("config: a second YAML document (near line %d); a config file holds one document (remove the '---' separator)", line)
	}
	return nil
}

// validateStrict adds the checks every field gets: finite numbers and the
// limits above, each naming its key.
func (c *Config) validateStrict(add func(error)) {
	walkFloats(reflect.ValueOf(c).Elem(), "", func(key string, v float64) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			add(ConfigErrorf("%s must be a finite number (got %v)", key, v))
		}
	})
	if c.NumEnvs > MaxNumEnvs {
		add(ConfigErrorf("num_envs must be ≤ %d (got %d)", MaxNumEnvs, c.NumEnvs))
	}
	if c.NumEnvs > 0 && c.Steps > 0 && int64(c.NumEnvs) > c.Steps {
		add(ConfigErrorf("num_envs (%d) exceeds steps (%d): every env step advances all envs, so the budget would be overshot", c.NumEnvs, c.Steps))
	}
	if c.MaxEpisodeLen > MaxEpisodeLen {
		add(ConfigErrorf("max_episode_len must be ≤ %d control steps (got %d)", MaxEpisodeLen, c.MaxEpisodeLen))
	}
	for _, h := range []struct {
		key string
		v   []int
	}{{"sac.hidden", c.SAC.Hidden}, {"dqn.hidden", c.DQN.Hidden}} {
		if len(h.v) > MaxHiddenLayers {
			add(ConfigErrorf("%s has %d layers (limit %d)", h.key, len(h.v), MaxHiddenLayers))
		}
		for _, w := range h.v {
			if w > MaxHiddenWidth {
				add(ConfigErrorf("%s width %d is above the limit of %d units", h.key, w, MaxHiddenWidth))
				break
			}
		}
	}
	if c.Buffer.Capacity > MaxBufferCapacity {
		add(ConfigErrorf("buffer.capacity must be ≤ %d transitions (got %d)", MaxBufferCapacity, c.Buffer.Capacity))
	}
	if c.SAC.BatchSize > MaxBatchSize || c.DQN.BatchSize > MaxBatchSize {
		add(ConfigErrorf("sac.batch_size and dqn.batch_size must be ≤ %d (got %d and %d)", MaxBatchSize, c.SAC.BatchSize, c.DQN.BatchSize))
	}
	if c.SAC.UpdatesPerStep > MaxUpdatesPerStep {
		add(ConfigErrorf("sac.updates_per_step must be ≤ %d (got %g)", MaxUpdatesPerStep, c.SAC.UpdatesPerStep))
	}
	if !(c.VLM.Timeout > 0 && c.VLM.Timeout <= MaxTimeoutS) {
		add(ConfigErrorf("vlm.timeout_s must be in (0, %d] seconds (got %g)", MaxTimeoutS, c.VLM.Timeout))
	}
	if len(c.VLM.Prompt) > MaxPromptBytes {
		add(ConfigErrorf("vlm.prompt is %d bytes (limit %d)", len(c.VLM.Prompt), MaxPromptBytes))
	}
	for _, p := range []struct {
		key string
		v   []string
	}{{"reward_model.goal", c.RM.Goal}, {"reward_model.baseline", c.RM.Baseline}} {
		if len(p.v) > MaxPrompts {
			add(ConfigErrorf("%s has %d prompts (limit %d)", p.key, len(p.v), MaxPrompts))
		}
		for i, s := range p.v {
			if len(s) > MaxPromptBytes {
				add(ConfigErrorf("%s[%d] is %d bytes (limit %d)", p.key, i, len(s), MaxPromptBytes))
			}
		}
	}
}

// walkFloats calls f for every float64 reachable in v (structs and
// slices), with the dotted YAML key of each.
func walkFloats(v reflect.Value, prefix string, f func(key string, v float64)) {
	switch v.Kind() {
	case reflect.Float64, reflect.Float32:
		f(prefix, v.Float())
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			walkFloats(v.Index(i), fmt.Sprintf("%s[%d]", prefix, i), f)
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			sf := t.Field(i)
			if !sf.IsExported() {
				continue
			}
			name := yamlName(sf)
			if name == "-" {
				continue
			}
			if inline(sf) {
				walkFloats(v.Field(i), prefix, f)
				continue
			}
			if prefix != "" {
				name = prefix + "." + name
			}
			walkFloats(v.Field(i), name, f)
		}
	}
}
