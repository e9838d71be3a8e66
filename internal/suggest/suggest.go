package suggest

import (
	"sort"
	"strings"
)

// Closest returns the known names closest to a mistyped one: those within
// a small edit distance (1 for up to 4 letters, 2 up to 8, 3 beyond) or
// that start with it (3 letters or more), best first, at most three. It
// returns nil when nothing is close. Case is ignored.
func Closest(typed string, known []string) []string {
	orig, typed := typed, strings.ToLower(typed)
	limit := 1
	switch n := len([]rune(typed)); {
	case n > 8:
		limit = 3
	case n > 4:
		limit = 2
	}
	type cand struct {
		name string
		d    int
	}
	var cs []cand
	for _, k := range known {
		d := Distance(typed, strings.ToLower(k))
		if len(typed) >= 3 && strings.HasPrefix(strings.ToLower(k), typed) {
			d = min(d, 1) // an abbreviation: --check for --checkpoint-every
		}
		if d <= limit && k != orig {
			cs = append(cs, cand{k, d})
		}
	}
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].d != cs[j].d {
			return cs[i].d < cs[j].d
		}
		return cs[i].name < cs[j].name
	})
	var out []string
	for _, c := range cs {
		if len(out) == 3 || c.d > cs[0].d {
			break
		}
		out = append(out, c.name)
	}
	return out
}

// DidYouMean renders suggestions as "; did you mean X or Y?", each with
// prefix ("--" for flags); "" when there are none.
func DidYouMean(prefix string, names []string) string {
	if len(names) == 0 {
		return ""
	}
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = prefix + n
	}
	return "; did you mean " + strings.Join(q, " or ") + "?"
}

// Distance is the optimal-string-alignment distance between a and b:
// insertions, deletions, substitutions and adjacent transpositions each
// cost one.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
