//go:build mujoco

package main

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: mujoco artspeed [-rounds N -steps N -node=false] FILE...|tabletop [-rounds N -episodes N] tabletop.xml")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "artspeed":
		err = artspeed(os.Args[2:])
	case "tabletop":
		err = tabletopSpeed(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q (artspeed or tabletop)", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mujoco:", err)
		os.Exit(1)
	}
}

// ratioCells formats the medians of ours and theirs, the ratio of the
// medians and the per-round ratio's min–max as table cells.
func ratioCells(ours, theirs []float64) string {
	lo, hi := math.Inf(1), math.Inf(-1)
	for r := range ours {
		lo, hi = min(lo, ours[r]/theirs[r]), max(hi, ours[r]/theirs[r])
	}
	mo, mt := median(ours), median(theirs)
	return fmt.Sprintf("%.0f | %.0f | %.2f× | %.2f–%.2f×", mo, mt, mo/mt, lo, hi)
}

// firstLine returns s up to its first newline.
func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

func median(x []float64) float64 {
	y := slices.Clone(x)
	slices.Sort(y)
	return y[len(y)/2]
}
