package study

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/vlmrb/vlmrb/internal/atomicfile"
	"github.com/vlmrb/vlmrb/stats"
)

// JSON renders the report as indented JSON (undefined values as null).
func (r *Report) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Markdown renders report.md.
func (r *Report) Markdown() string {
	var b strings.Builder
	st := r.Status
	partial := ""
	if st.Done < st.Total {
		partial = " — PARTIAL"
	}
	fmt.Fprintf(&b, "# Study %s%s\n\n", r.Study, partial)
	fmt.Fprintf(&b, "Runs: %d done, %d running, %d partial (resumable), %d missing, of %d. CPU time recorded: %.1f CPU-hours.\n\n",
		st.Done, st.Running, st.Partial, st.Missing, st.Total, r.CPUS/3600)
	fmt.Fprintf(&b, "Metric `%s` over done runs only. Final = its last evaluation. IQM = interquartile mean over seeds; "+
		"[lo, hi] = %.0f%% percentile stratified-bootstrap CI (%d resamples). AUC = area under each run's curve divided by its span. "+
		"P(>%s) = probability that a run of the arm beats a run of the baseline (Mann–Whitney, ties ½). "+
		"Steps→base = first env step where the arm's IQM curve reaches the baseline's final IQM; ratio = the baseline's own step / the arm's.\n\n",
		r.Metric, 100*r.Conf, r.Reps, r.Baseline)
	section := func(title string, arms []ArmReport) {
		fmt.Fprintf(&b, "## %s\n\n", title)
		b.WriteString("| arm | runs | final IQM [95% CI] | final mean [95% CI] | AUC IQM [95% CI] | P(> " + r.Baseline + ") [95% CI] | steps→base (ratio) | CPU-h |\n")
		b.WriteString("|---|---|---|---|---|---|---|---|\n")
		for _, a := range arms {
			pi, se := "baseline", ""
			if a.Arm != r.Baseline {
				pi = "–"
				if a.ProbImp != nil {
					pi = fmtIv(*a.ProbImp)
				}
				se = "–"
				if s := a.SampleEff; s != nil {
					switch {
					case s.Note != "":
						se = s.Note
					default:
						se = fmt.Sprintf("%.0f (%.2f×)", s.ArmStep, s.Ratio)
					}
				}
			}
			fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s | %s | %.2f |\n", a.Arm, a.Runs, fmtIv(a.IQM), fmtIv(a.Mean), fmtIv(a.AUC), pi, se, a.CPUS/3600)
		}
		b.WriteString("\n")
	}
	for _, t := range r.Tasks {
		section("Task "+t.Task, t.Arms)
		for _, a := range t.Arms {
			if len(a.Finals) > 0 {
				fmt.Fprintf(&b, "- %s finals by seed: %s\n", a.Arm, fmtFinals(a.Seeds, a.Finals))
			}
		}
		b.WriteString("\n")
		writeDiags(&b, t.Arms)
	}
	if len(r.Overall) > 0 {
		section("All tasks (runs pooled; bootstrap stratified by task)", r.Overall)
	}
	if nd := notDone(r.Runs); len(nd) > 0 {
		b.WriteString("Not done:\n")
		for _, l := range nd {
			fmt.Fprintf(&b, "- %s\n", l)
		}
	}
	return b.String()
}

// writeDiags writes a task's diagnostics table: the median over done runs
// and the range, one column per diagnostic that some run logged.
func writeDiags(b *strings.Builder, arms []ArmReport) {
	var cols []int
	for k, dk := range diagKeys {
		key := dk.key
		if key == "" {
			key = "metric"
		}
		for _, a := range arms {
			if slices.ContainsFunc(a.Diags, func(d Diag) bool { return d.Key == key && d.Agg == diagKeys[k].agg }) {
				cols = append(cols, k)
				break
			}
		}
	}
	if len(cols) == 0 {
		return
	}
	b.WriteString("Diagnostics, median over done runs [min – max]:\n\n| arm |")
	for _, k := range cols {
		fmt.Fprintf(b, " %s |", diagKeys[k].label)
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(cols)) + "\n")
	for _, a := range arms {
		fmt.Fprintf(b, "| %s |", a.Arm)
		for _, k := range cols {
			key := diagKeys[k].key
			if key == "" {
				key = "metric"
			}
			i := slices.IndexFunc(a.Diags, func(d Diag) bool { return d.Key == key && d.Agg == diagKeys[k].agg })
			if i < 0 {
				b.WriteString(" – |")
				continue
			}
			d := a.Diags[i]
			n := ""
			if d.Runs < a.Runs {
				n = fmt.Sprintf(" (%d runs)", d.Runs)
			}
			fmt.Fprintf(b, " %s [%s – %s]%s |", fmtDiag(float64(d.Median)), fmtDiag(float64(d.Min)), fmtDiag(float64(d.Max)), n)
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

// median of sorted xs, where +Inf ("never") counts as the largest value.
func median(xs []float64) float64 {
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	a, b := xs[n/2-1], xs[n/2]
	if math.IsInf(b, 1) {
		return b
	}
	return (a + b) / 2
}

func fmtDiag(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "never"
	case v != 0 && math.Abs(v) < 0.01:
		return fmt.Sprintf("%.1e", v)
	case math.Abs(v) >= 1000:
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

// notDone lists the runs that are not done, one line per task/arm and
// state, seeds as ranges: "window-open/per: missing s102–s110".
func notDone(runs []RunStatus) []string {
	type group struct {
		key   string
		seeds []string
	}
	var gs []*group
	byKey := map[string]*group{}
	for _, rs := range runs {
		if rs.State == Done {
			continue
		}
		cell, seed := rs.ID, ""
		if i := strings.LastIndexByte(rs.ID, '/'); i >= 0 {
			cell, seed = rs.ID[:i], rs.ID[i+1:]
		}
		key := fmt.Sprintf("%s: %s", cell, rs.State)
		g := byKey[key]
		if g == nil {
			g = &group{key: key}
			byKey[key] = g
			gs = append(gs, g)
		}
		g.seeds = append(g.seeds, seed)
	}
	out := make([]string, len(gs))
	for i, g := range gs {
		out[i] = g.key + " " + seedRanges(g.seeds)
	}
	return out
}

// seedRanges joins "sN" seeds, runs of consecutive numbers as "sA–sB".
func seedRanges(seeds []string) string {
	var parts []string
	for i := 0; i < len(seeds); {
		j := i
		for j+1 < len(seeds) && seedNum(seeds[j+1]) == seedNum(seeds[j])+1 && seedNum(seeds[j]) >= 0 {
			j++
		}
		if j > i+1 {
			parts = append(parts, seeds[i]+"–"+seeds[j])
		} else {
			parts = append(parts, seeds[i:j+1]...)
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

func seedNum(s string) int64 {
	n, err := strconv.ParseInt(strings.TrimPrefix(s, "s"), 10, 64)
	if err != nil || !strings.HasPrefix(s, "s") {
		return -2
	}
	return n
}

func fmtIv(iv stats.Interval) string {
	if math.IsNaN(iv.Point) {
		return "–"
	}
	return fmt.Sprintf("%.3f [%.3f, %.3f]", iv.Point, iv.Lo, iv.Hi)
}

func fmtFinals(seeds []uint64, v []float64) string {
	parts := make([]string, len(v))
	for i := range v {
		f := "s%d %.2f"
		if math.Abs(v[i]) >= 1e6 {
			f = "s%d %.3g" // 1e308 in %.2f is 309 digits
		}
		parts[i] = fmt.Sprintf(f, seeds[i], v[i])
	}
	return strings.Join(parts, ", ")
}

// Write writes report.md, report.json and curves/TASK.png into dir and
// returns their paths. A report against another baseline than the study's
// own (spec.BaselineArm) goes to report-vs-ARM.md and .json instead, so
// both comparisons can sit side by side.
func (r *Report) Write(dir string, spec *Spec) ([]string, error) {
	name := "report"
	if r.Baseline != spec.BaselineArm() {
		name = "report-vs-" + r.Baseline
	}
	md := filepath.Join(dir, name+".md")
	if err := atomicfile.WriteBytes(md, []byte(r.Markdown())); err != nil {
		return nil, err
	}
	js, err := r.JSON()
	if err != nil {
		return nil, err
	}
	jp := filepath.Join(dir, name+".json")
	if err := atomicfile.WriteBytes(jp, js); err != nil {
		return nil, err
	}
	paths := []string{md, jp}
	if err := os.MkdirAll(filepath.Join(dir, "curves"), 0o755); err != nil {
		return paths, err
	}
	for _, t := range r.Tasks {
		var cs []CurveSeries
		for _, c := range r.Curves {
			if c.Task == t.Task {
				cs = append(cs, c)
			}
		}
		if len(cs) == 0 {
			continue
		}
		p := filepath.Join(dir, "curves", t.Task+".png")
		if err := plotCurves(p, r.Study+": "+t.Task, r.Metric, cs); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}
