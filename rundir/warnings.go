package rundir

import (
	"fmt"
	"reflect"
	"strings"
)

// Warnings lists settings of c that will do nothing in this run, each with
// what to do about it: a budget that never reaches learning_starts, a
// replay parameter of another sampler, a section of the learner not in
// use, an evaluation interval past the budget. They are not errors — a
// config file shared by several arms legitimately carries them — so Run
// prints them as warnings and goes on.
func (c *Config) Warnings() []string {
	var w []string
	d := DefaultConfig()
	algo := c.ResolvedAlgo()
	starts, section := c.SAC.LearningStarts, "sac"
	if algo == "dqn" {
		starts, section = c.DQN.LearningStarts, "dqn"
	}
	if c.Steps <= starts {
		w = append(w, fmt.Sprintf("steps %d ≤ %s.learning_starts %d: no gradient update will run (raise steps or lower %s.learning_starts)",
			c.Steps, section, starts, section))
	}
	if c.Eval.Every > c.Steps && c.Eval.Episodes > 0 {
		w = append(w, fmt.Sprintf("eval.every %d > steps %d: only the final evaluation runs", c.Eval.Every, c.Steps))
	}
	if c.Replay != "vlmrb" {
		if c.Scorer != d.Scorer {
			w = append(w, fmt.Sprintf("scorer %s does nothing with replay %s (the scorer feeds replay vlmrb: add --replay vlmrb)", c.Scorer, c.Replay))
		}
		if ks := changed(c.Buffer, d.Buffer, "lambda_max", "lambda_warmup", "default_prio", "score_map", "threshold",
			"score_floor", "vlm_alpha", "td_product", "importance_is"); len(ks) > 0 {
			w = append(w, fmt.Sprintf("buffer.%s only affect%s replay vlmrb (this run uses %s)", strings.Join(ks, ", buffer."), plural(ks), c.Replay))
		}
	}
	if c.Replay != "per" && c.Replay != "relo" {
		if ks := changed(c.Buffer, d.Buffer, "per_alpha", "per_eps"); len(ks) > 0 {
			w = append(w, fmt.Sprintf("buffer.%s only affect%s replay per and relo (this run uses %s)", strings.Join(ks, ", buffer."), plural(ks), c.Replay))
		}
	}
	other, otherName := any(c.DQN), "dqn"
	otherDef := any(d.DQN)
	if algo == "dqn" {
		other, otherName, otherDef = c.SAC, "sac", d.SAC
	}
	if !reflect.DeepEqual(other, otherDef) {
		w = append(w, fmt.Sprintf("the %s section is ignored: task %s trains with %s", otherName, c.Task, algo))
	}
	return w
}

// changed returns which of the yaml keys differ between two structs of one
// type (keys of inlined structs included).
func changed(a, b any, keys ...string) []string {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	var out []string
	for _, k := range keys {
		fa, ok := fieldByYAML(va, k)
		if !ok {
			panic("train: changed: no key " + k) // a typo in the lists above
		}
		fb, _ := fieldByYAML(vb, k)
		if !reflect.DeepEqual(fa.Interface(), fb.Interface()) {
			out = append(out, k)
		}
	}
	return out
}

func plural(ks []string) string {
	if len(ks) == 1 {
		return "s"
	}
	return ""
}
