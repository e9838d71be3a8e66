package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/vlmrb/vlmrb/rundir"
)

// countValue is the flag.Value of an integer flag: it takes counts as
// people write them (30000, 3e4, 30k; rundir.ParseCount). Get returns int64,
// or uint64 for an unsigned key.
type countValue struct {
	v        int64
	unsigned bool
}

func (c *countValue) String() string {
	if c == nil {
		return "0"
	}
	return strconv.FormatInt(c.v, 10)
}

func (c *countValue) Set(s string) error {
	if c.unsigned {
		if u, err := strconv.ParseUint(strings.TrimSpace(s), 0, 64); err == nil && u > 1<<63-1 {
			return errors.New("too large")
		}
	}
	v, err := rundir.ParseCount(s)
	if err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "want "))
	}
	if c.unsigned && v < 0 {
		return fmt.Errorf("want a non-negative count, got %q", s)
	}
	c.v = v
	return nil
}

func (c *countValue) Get() any {
	if c.unsigned {
		return uint64(c.v)
	}
	return c.v
}

// repeated is the value of a flag given once per item (--set).
type repeated struct{ items []string }

func (r *repeated) String() string {
	if r == nil {
		return ""
	}
	return strings.Join(r.items, " ")
}

func (r *repeated) Set(s string) error { r.items = append(r.items, s); return nil }
func (r *repeated) Get() any           { return r.items }

// list returns the items of a repeated option row.
func (b *boundFlags) list(name string) []string { return b.get(name).([]string) }

// applySets applies --set KEY=VALUE items to cfg in order. An unknown key
// gets the closest keys; a bad value says what the key wants.
func applySets(cfg *rundir.Config, items []string) error {
	for _, it := range items {
		key, val, ok := strings.Cut(it, "=")
		key = strings.TrimSpace(key)
		if !ok || key == "" {
			return usagef("--set %q: want KEY=VALUE, such as --set sac.gamma=0.98 (train --print-config shows every key)", it)
		}
		kind, err := rundir.ConfigKeyType(key)
		if err != nil {
			prob := keyProblem(key)
			if prob == "no such config key" {
				prob += didYouMean("", suggest(key, rundir.ConfigKeys()))
			}
			return usagef("--set %s: %s (train --print-config shows every key and its value)", key, prob)
		}
		vals := []string{val}
		if kind == "[]string" {
			vals = strings.Split(val, "|") // several prompts: "a red cube|a table"
			for i := range vals {
				vals[i] = strings.TrimSpace(vals[i])
			}
		}
		if err := rundir.SetConfigKey(cfg, key, vals...); err != nil {
			return usagef("--set %s: %v", it, err)
		}
	}
	return nil
}

// keyProblem says why key is not a settable key: a section, or unknown.
func keyProblem(key string) string {
	for _, k := range rundir.ConfigKeys() {
		if strings.HasPrefix(k, key+".") {
			return fmt.Sprintf("%s is a section, not a value (its keys start %s.)", key, key)
		}
	}
	return "no such config key"
}
