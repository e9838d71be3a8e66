package main

import (
	"flag"

	sugg "github.com/vlmrb/vlmrb/internal/suggest"
)

// suggest returns the known names closest to a mistyped one (at most
// three, best first; nil when nothing is close): suggest.Closest.
func suggest(typed string, known []string) []string { return sugg.Closest(typed, known) }

// didYouMean renders suggestions as "; did you mean X?", each with
// prefix ("--" for flags); "" when there are none.
func didYouMean(prefix string, names []string) string { return sugg.DidYouMean(prefix, names) }

// flagNames returns the names of the flags defined on fs.
func flagNames(fs *flag.FlagSet) []string {
	var out []string
	fs.VisitAll(func(f *flag.Flag) { out = append(out, f.Name) })
	return out
}

// editDistance is suggest.Distance.
func editDistance(a, b string) int { return sugg.Distance(a, b) }
