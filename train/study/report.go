package study

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/vlmrb/vlmrb/internal/atomicfile"
	"github.com/vlmrb/vlmrb/train"
)

// ReportOptions configure Analyze.
type ReportOptions struct {
	Baseline string  // arm to compare against (default: the spec's)
	Reps     int     // bootstrap resamples (default 5000)
	Conf     float64 // confidence level (default 0.95)
	Seed     uint64  // bootstrap generator seed (default 1)
}

// Report is a study's aggregate: per task and arm over seeds, the done runs
// only. Intervals are 95% (Conf) percentile stratified-bootstrap CIs.
type Report struct {
	Study    string        `json:"study"`
	Metric   string        `json:"metric"`
	Baseline string        `json:"baseline"`
	Reps     int           `json:"bootstrap_reps"`
	Conf     float64       `json:"confidence"`
	Status   Status        `json:"status"`
	CPUS     float64       `json:"cpu_s"` // CPU seconds recorded over all runs' attempts
	Tasks    []TaskReport  `json:"tasks"`
	Overall  []ArmReport   `json:"overall,omitempty"` // pooled over tasks (stratified), when there are several
	Runs     []RunStatus   `json:"runs"`
	Curves   []CurveSeries `json:"-"`
}

// Status counts runs by state.
type Status struct {
	Total   int `json:"total"`
	Done    int `json:"done"`
	Running int `json:"running"`
	Partial int `json:"partial"`
	Missing int `json:"missing"`
}

// RunStatus is one run's state and cost.
type RunStatus struct {
	ID    string   `json:"id"`
	State State    `json:"state"`
	CPUS  float64  `json:"cpu_s"`
	Final *float64 `json:"final,omitempty"` // final metric value of a done run
}

// TaskReport holds one task's arms.
type TaskReport struct {
	Task string      `json:"task"`
	Arms []ArmReport `json:"arms"`
}

// ArmReport is one arm's statistics (on one task, or pooled).
type ArmReport struct {
	Arm     string    `json:"arm"`
	Runs    int       `json:"runs"` // done runs the statistics use
	Seeds   []uint64  `json:"seeds"`
	Finals  []float64 `json:"finals"` // final metric per done run, in seed order
	IQM     Interval  `json:"final_iqm"`
	Mean    Interval  `json:"final_mean"`
	AUC     Interval  `json:"auc_iqm"` // IQM over runs of the normalised area under each run's curve
	ProbImp *Interval `json:"prob_improvement,omitempty"`
	// SampleEff compares env steps to reach the baseline's final IQM.
	SampleEff *SampleEff `json:"sample_efficiency,omitempty"`
	CPUS      float64    `json:"cpu_s"`
	// Diags summarise the run diagnostics that explain a result (per task
	// only; absent keys are left out).
	Diags []Diag `json:"diagnostics,omitempty"`
}

// Diag is one diagnostic of an arm on a task: each done run is reduced to
// one number (Agg: "max" or "mean" of the key over its logged rows, "max2"
// the max over the second half of the run, "pre" and "post" the mean
// before and after the first reward entered the buffer, "first": the first
// step at which the study's metric is above 0, "firstpos" the first step
// at which the key is above 0, "lag" the steps from the first reward in
// the buffer to the metric's first value ≥ 0.5; +Inf when never), and
// Median, Min and Max are over the runs that have a value (Runs).
type Diag struct {
	Key    string `json:"key"`
	Agg    string `json:"agg"`
	Runs   int    `json:"runs"`
	Median Finite `json:"median"`
	Min    Finite `json:"min"`
	Max    Finite `json:"max"`
}

// Finite is a float64 that encodes to JSON as null when it is not finite
// (a "first" diagnostic of a run that never succeeded is +Inf).
type Finite float64

// MarshalJSON implements json.Marshaler.
func (f Finite) MarshalJSON() ([]byte, error) {
	if math.IsInf(float64(f), 0) || math.IsNaN(float64(f)) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(f))
}

// diagKeys are the diagnostics a report summarises when runs log them:
// value blow-ups (mean Q of the batches, SAC's α), what the prioritized
// branch draws against what the buffer holds, and the Fig. 3 check.
var diagKeys = []struct{ key, agg, label string }{
	{"", "first", "first success (step)"},
	{rewardKey, "firstpos", "first reward in buffer (step)"},
	{"", "lag", "first reward → success ≥ 0.5 (steps)"},
	{"losses/qf1_values", "max", "max mean Q"},
	{"losses/q_values", "max", "max mean Q (DQN)"},
	{"charts/alpha", "max2", "max α, 2nd half"},
	{"replay/prioritized_frac", "mean", "prioritized share"},
	{"replay/semantic_hit_rate_prioritized", "mean", "progress share, prioritized draws"},
	{"replay/semantic_buffer_frac", "mean", "progress share, buffer"},
	{"replay/reward_batch_frac", "mean", "reward share, batches"},
	{"replay/reward_buffer_frac", "mean", "reward share, buffer"},
	{"eval/score_dq_spearman", "mean", "score–ΔQ Spearman"},
	{"eval/score_dq_spearman", "pre", "score–ΔQ Spearman, no reward in buffer yet"},
	{"eval/score_dq_spearman", "post", "score–ΔQ Spearman, reward in buffer"},
}

// rewardKey marks the split of the "pre" and "post" aggregates: the first
// logged step at which the buffer holds a reward-bearing transition.
const rewardKey = "replay/reward_buffer_frac"

// runDiags reduces one run's rows to its diagnostics (NaN: not logged).
// "max2" is the max over the rows of the run's second half (steps), where
// a late rise of SAC's α marks a blow-up and its early decay does not.
// "pre" and "post" are means over the rows before and from the first row
// whose buffer holds a reward (rewardKey > 0): with a sparse reward the
// critic has nothing to learn a value from before that step.
func runDiags(rows []train.Row, steps, vals []float64) []float64 {
	out := make([]float64, len(diagKeys))
	half := 0.0
	if len(rows) > 0 {
		half = float64(rows[len(rows)-1].Step) / 2
	}
	rewarded := math.Inf(1)
	for _, row := range rows {
		if v, ok := row.Values[rewardKey]; ok && v > 0 {
			rewarded = float64(row.Step)
			break
		}
	}
	for k, dk := range diagKeys {
		out[k] = math.NaN()
		switch dk.agg {
		case "firstpos":
			if logs(rows, dk.key) {
				out[k] = rewarded
			}
			continue
		case "lag":
			// how long the replay takes to turn the first reward into a
			// policy: NaN when no reward was found, +Inf when never
			if math.IsInf(rewarded, 1) {
				continue
			}
			out[k] = math.Inf(1)
			for i, v := range vals {
				if v >= 0.5 && steps[i] >= rewarded {
					out[k] = steps[i] - rewarded
					break
				}
			}
			continue
		}
		if dk.agg == "first" {
			out[k] = math.Inf(1)
			for i, v := range vals {
				if v > 0 {
					out[k] = steps[i]
					break
				}
			}
			continue
		}
		n, acc := 0, 0.0
		for _, row := range rows {
			v, ok := row.Values[dk.key]
			step := float64(row.Step)
			if !ok || math.IsNaN(v) || (dk.agg == "max2" && step < half) ||
				(dk.agg == "pre" && step >= rewarded) || (dk.agg == "post" && step < rewarded) {
				continue
			}
			switch {
			case (dk.agg == "max" || dk.agg == "max2") && (n == 0 || v > acc):
				acc = v
			case dk.agg == "mean" || dk.agg == "pre" || dk.agg == "post":
				acc += v
			}
			n++
		}
		if n > 0 {
			if dk.agg == "mean" || dk.agg == "pre" || dk.agg == "post" {
				acc /= float64(n)
			}
			out[k] = acc
		}
	}
	return out
}

// logs reports whether any row logs key.
func logs(rows []train.Row, key string) bool {
	return slices.ContainsFunc(rows, func(r train.Row) bool { _, ok := r.Values[key]; return ok })
}

// armDiags summarises the runs' diagnostics key by key.
func armDiags(ds []*runData) []Diag {
	var out []Diag
	for k, dk := range diagKeys {
		var xs []float64
		for _, d := range ds {
			if v := d.diags[k]; !math.IsNaN(v) {
				xs = append(xs, v)
			}
		}
		if len(xs) == 0 {
			continue
		}
		sort.Float64s(xs)
		key := dk.key
		if key == "" {
			key = "metric"
		}
		out = append(out, Diag{Key: key, Agg: dk.agg, Runs: len(xs), Median: Finite(median(xs)), Min: Finite(xs[0]), Max: Finite(xs[len(xs)-1])})
	}
	return out
}

// SampleEff is the step at which the arm's IQM curve first reaches the
// baseline's final IQM, against the step at which the baseline's own IQM
// curve first reaches it: Ratio = BaselineStep / ArmStep (> 1: the arm
// gets there sooner). Note explains a missing ratio.
type SampleEff struct {
	Target       float64 `json:"target"`
	BaselineStep float64 `json:"baseline_step"`
	ArmStep      float64 `json:"arm_step,omitempty"`
	Ratio        float64 `json:"ratio,omitempty"`
	Note         string  `json:"note,omitempty"` // "never", "baseline final is 0"
}

// CurveSeries is an IQM learning curve with its CI band.
type CurveSeries struct {
	Task, Arm string
	Steps     []float64
	IQM       []Interval
}

type runData struct {
	run   Run
	state State
	steps []float64
	vals  []float64
	diags []float64 // per diagKeys
	cpu   float64
}

// Analyze reads every run of the study in dir and aggregates the done ones.
func Analyze(spec *Spec, dir string, o ReportOptions) (*Report, error) {
	if o.Reps <= 0 {
		o.Reps = 5000
	}
	if o.Conf <= 0 || o.Conf >= 1 {
		o.Conf = 0.95
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	base := o.Baseline
	if base == "" {
		base = spec.BaselineArm()
	} else if !hasArm(spec, base) {
		return nil, fmt.Errorf("study report: --baseline %q is not an arm of %s", base, spec.Name)
	}
	runs, err := spec.Runs(dir)
	if err != nil {
		return nil, err
	}
	recs, err := openRunRecords(dir) // the run directories, or DIR/runs.tar.gz
	if err != nil {
		return nil, err
	}
	metric := spec.MetricKey()
	rep := &Report{Study: spec.Name, Metric: metric, Baseline: base, Reps: o.Reps, Conf: o.Conf}
	data, err := readRuns(runs, recs, metric, rep)
	if err != nil {
		return nil, err
	}
	// per task
	finals := map[string][][]float64{} // arm → per task finals
	aucs := map[string][][]float64{}
	for ti, task := range spec.Tasks {
		rep.Tasks = append(rep.Tasks, taskReport(spec, ti, task, data, base, o, finals, aucs, rep))
	}
	if len(spec.Tasks) > 1 {
		rep.Overall = overallReport(spec, rep, finals, aucs, base, o)
	}
	return rep, nil
}

// readRuns reads every run's state, CPU time and metric series (from recs:
// the run directories or DIR/runs.tar.gz) into rep's status and run list;
// it returns the runs by task/arm/seed id.
func readRuns(runs []Run, recs runRecords, metric string, rep *Report) (map[string]*runData, error) {
	data := map[string]*runData{} // by task/arm/seed id
	for _, r := range runs {
		d := &runData{run: r, state: recs.state(r.Config.Out)}
		for _, a := range recs.attempts(r.Config.Out) {
			d.cpu += a.CPUS
		}
		rep.CPUS += d.cpu
		rep.Status.Total++
		switch d.state {
		case Done:
			rep.Status.Done++
			rows, err := recs.metrics(r.Config.Out)
			if err != nil {
				return nil, fmt.Errorf("study report: run %s: %w", r.ID(), err)
			}
			for _, row := range rows {
				if v, ok := row.Values[metric]; ok && !math.IsNaN(v) {
					if n := len(d.steps); n > 0 && d.steps[n-1] == float64(row.Step) {
						d.vals[n-1] = v // the final evaluation at a periodic one's step
						continue
					}
					d.steps = append(d.steps, float64(row.Step))
					d.vals = append(d.vals, v)
				}
			}
			if len(d.vals) == 0 {
				return nil, fmt.Errorf("study report: run %s is done but its metrics.jsonl has no %s", r.ID(), metric)
			}
			d.diags = runDiags(rows, d.steps, d.vals)
		case Running:
			rep.Status.Running++
		case Partial:
			rep.Status.Partial++
		default:
			rep.Status.Missing++
		}
		rs := RunStatus{ID: r.ID(), State: d.state, CPUS: d.cpu}
		if len(d.vals) > 0 {
			rs.Final = &d.vals[len(d.vals)-1]
		}
		rep.Runs = append(rep.Runs, rs)
		data[r.ID()] = d
	}
	return data, nil
}

// taskReport aggregates one task's arms: finals, IQM/mean/AUC intervals,
// curves, and each arm against the baseline; it appends the arms' finals
// and AUCs to finals and aucs (by arm, in task order) and the curves to
// rep.
func taskReport(spec *Spec, ti int, task string, data map[string]*runData, base string, o ReportOptions,
	finals, aucs map[string][][]float64, rep *Report) TaskReport {
	tr := TaskReport{Task: task}
	curves := map[string]CurveSeries{}
	for _, arm := range spec.Arms {
		ar := ArmReport{Arm: arm.Name}
		var ds []*runData
		for _, seed := range spec.Seeds {
			d := data[Run{Task: task, Arm: arm.Name, Seed: seed}.ID()]
			ar.CPUS += d.cpu
			if d.state != Done {
				continue
			}
			ds = append(ds, d)
			ar.Seeds = append(ar.Seeds, seed)
			ar.Finals = append(ar.Finals, d.vals[len(d.vals)-1])
		}
		ar.Runs = len(ds)
		ar.Diags = armDiags(ds)
		var au []float64
		for _, d := range ds {
			au = append(au, AUC(d.steps, d.vals))
		}
		seed := o.Seed + uint64(ti)*1000
		ar.IQM = BootstrapCI([][]float64{ar.Finals}, PooledIQM, o.Reps, o.Conf, seed)
		ar.Mean = BootstrapCI([][]float64{ar.Finals}, PooledMean, o.Reps, o.Conf, seed+1)
		ar.AUC = BootstrapCI([][]float64{au}, PooledIQM, o.Reps, o.Conf, seed+2)
		finals[arm.Name] = append(finals[arm.Name], ar.Finals)
		aucs[arm.Name] = append(aucs[arm.Name], au)
		if len(ds) > 0 {
			curves[arm.Name] = iqmCurve(task, arm.Name, ds, o, seed+3)
		}
		tr.Arms = append(tr.Arms, ar)
	}
	bc, hasBase := curves[base]
	for i := range tr.Arms {
		ar := &tr.Arms[i]
		if ar.Arm == base {
			continue
		}
		bf := finals[base][ti]
		if ar.Runs > 0 && len(bf) > 0 {
			pi := ProbImprovementCI([][]float64{ar.Finals}, [][]float64{bf}, o.Reps, o.Conf, o.Seed+uint64(ti)*1000+4)
			ar.ProbImp = &pi
		}
		if c, ok := curves[ar.Arm]; ok && hasBase {
			ar.SampleEff = sampleEff(bc, c)
		}
	}
	for _, arm := range spec.Arms {
		if c, ok := curves[arm.Name]; ok {
			rep.Curves = append(rep.Curves, c)
		}
	}
	return tr
}

// overallReport pools every task's runs per arm (stratified by task).
func overallReport(spec *Spec, rep *Report, finals, aucs map[string][][]float64, base string, o ReportOptions) []ArmReport {
	var out []ArmReport
	for _, arm := range spec.Arms {
		ar := ArmReport{Arm: arm.Name}
		for _, f := range finals[arm.Name] {
			ar.Runs += len(f)
		}
		for _, t := range rep.Tasks {
			for _, a := range t.Arms {
				if a.Arm == arm.Name {
					ar.CPUS += a.CPUS
				}
			}
		}
		ar.IQM = BootstrapCI(finals[arm.Name], PooledIQM, o.Reps, o.Conf, o.Seed+7)
		ar.Mean = BootstrapCI(finals[arm.Name], PooledMean, o.Reps, o.Conf, o.Seed+8)
		ar.AUC = BootstrapCI(aucs[arm.Name], PooledIQM, o.Reps, o.Conf, o.Seed+9)
		if arm.Name != base && ar.Runs > 0 {
			pi := ProbImprovementCI(finals[arm.Name], finals[base], o.Reps, o.Conf, o.Seed+10)
			if !math.IsNaN(pi.Point) {
				ar.ProbImp = &pi
			}
		}
		out = append(out, ar)
	}
	return out
}

func hasArm(s *Spec, name string) bool {
	for _, a := range s.Arms {
		if a.Name == name {
			return true
		}
	}
	return false
}

// iqmCurve aggregates the runs' curves at every step that all of them
// logged (runs of one arm share the eval schedule).
func iqmCurve(task, arm string, ds []*runData, o ReportOptions, seed uint64) CurveSeries {
	count := map[float64]int{}
	for _, d := range ds {
		for _, s := range d.steps {
			count[s]++
		}
	}
	var steps []float64
	for s, n := range count {
		if n == len(ds) {
			steps = append(steps, s)
		}
	}
	sort.Float64s(steps)
	c := CurveSeries{Task: task, Arm: arm, Steps: steps}
	reps := min(o.Reps, 1000) // per-point bands: fewer resamples suffice
	for i, s := range steps {
		var v []float64
		for _, d := range ds {
			j := sort.SearchFloat64s(d.steps, s)
			v = append(v, d.vals[j])
		}
		c.IQM = append(c.IQM, BootstrapCI([][]float64{v}, PooledIQM, reps, o.Conf, seed+uint64(i)))
	}
	return c
}

func sampleEff(base, arm CurveSeries) *SampleEff {
	n := len(base.IQM)
	if n == 0 {
		return nil
	}
	target := base.IQM[n-1].Point
	se := &SampleEff{Target: target}
	if target <= 0 {
		se.Note = "baseline final is 0"
		return se
	}
	bs, _ := FirstReach(base.Steps, points(base.IQM), target)
	se.BaselineStep = bs
	as, ok := FirstReach(arm.Steps, points(arm.IQM), target)
	if !ok {
		se.Note = "never"
		return se
	}
	se.ArmStep = as
	if as > 0 {
		se.Ratio = bs / as
	}
	return se
}

func points(iv []Interval) []float64 {
	out := make([]float64, len(iv))
	for i, v := range iv {
		out[i] = v.Point
	}
	return out
}

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

func fmtIv(iv Interval) string {
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
