package study

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Shard is a deterministic 1/N of a grid: run i (canonical order,
// 0-based) belongs to shard i mod N + 1, so shards 1..N together hold every
// run exactly once and each gets a mix of tasks and arms.
type Shard struct{ K, N int }

// ParseShard reads "K/N" with 1 ≤ K ≤ N.
func ParseShard(s string) (Shard, error) {
	k, n, ok := strings.Cut(s, "/")
	ki, err1 := strconv.Atoi(strings.TrimSpace(k))
	ni, err2 := strconv.Atoi(strings.TrimSpace(n))
	if !ok || err1 != nil || err2 != nil || ni < 1 || ki < 1 || ki > ni {
		return Shard{}, fmt.Errorf("--shard %q: want K/N with 1 ≤ K ≤ N, e.g. 2/8 (a Slurm array passes $((SLURM_ARRAY_TASK_ID+1))/N)", s)
	}
	return Shard{ki, ni}, nil
}

// Select returns the runs of this shard (all of them for the zero Shard).
func (sh Shard) Select(runs []Run) []Run {
	if sh.N <= 1 {
		return runs
	}
	var out []Run
	for i, r := range runs {
		if i%sh.N == sh.K-1 {
			out = append(out, r)
		}
	}
	return out
}

// Filter restricts a study run to some of its arms and tasks (an empty
// list keeps all of them): a new arm added to a finished study, or the
// cheap arms of every seed before the expensive ones.
type Filter struct{ Arms, Tasks []string }

// ParseList splits a comma-separated flag value, dropping empty items.
func ParseList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// Check says which names the spec does not have.
func (f Filter) Check(s *Spec) error {
	arms := make([]string, len(s.Arms))
	for i, a := range s.Arms {
		arms[i] = a.Name
	}
	for _, a := range f.Arms {
		if !slices.Contains(arms, a) {
			return fmt.Errorf("--arms: study %s has no arm %q (it has %s)", s.Name, a, strings.Join(arms, ", "))
		}
	}
	for _, t := range f.Tasks {
		if !slices.Contains(s.Tasks, t) {
			return fmt.Errorf("--tasks: study %s has no task %q (it has %s)", s.Name, t, strings.Join(s.Tasks, ", "))
		}
	}
	return nil
}

// Select returns the runs whose arm and task the filter keeps.
func (f Filter) Select(runs []Run) []Run {
	if len(f.Arms) == 0 && len(f.Tasks) == 0 {
		return runs
	}
	var out []Run
	for _, r := range runs {
		if (len(f.Arms) == 0 || slices.Contains(f.Arms, r.Arm)) && (len(f.Tasks) == 0 || slices.Contains(f.Tasks, r.Task)) {
			out = append(out, r)
		}
	}
	return out
}
