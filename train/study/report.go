package study

import (
	"fmt"
	"math"
	"sort"

	"github.com/vlmrb/vlmrb/stats"
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
	Arm     string          `json:"arm"`
	Runs    int             `json:"runs"` // done runs the statistics use
	Seeds   []uint64        `json:"seeds"`
	Finals  []float64       `json:"finals"` // final metric per done run, in seed order
	IQM     stats.Interval  `json:"final_iqm"`
	Mean    stats.Interval  `json:"final_mean"`
	AUC     stats.Interval  `json:"auc_iqm"` // IQM over runs of the normalised area under each run's curve
	ProbImp *stats.Interval `json:"prob_improvement,omitempty"`
	// SampleEff compares env steps to reach the baseline's final IQM.
	SampleEff *SampleEff `json:"sample_efficiency,omitempty"`
	CPUS      float64    `json:"cpu_s"`
	// Diags summarise the run diagnostics that explain a result (per task
	// only; absent keys are left out).
	Diags []Diag `json:"diagnostics,omitempty"`
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
	IQM       []stats.Interval
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
			au = append(au, stats.AUC(d.steps, d.vals))
		}
		seed := o.Seed + uint64(ti)*1000
		ar.IQM = stats.BootstrapCI([][]float64{ar.Finals}, stats.PooledIQM, o.Reps, o.Conf, seed)
		ar.Mean = stats.BootstrapCI([][]float64{ar.Finals}, stats.PooledMean, o.Reps, o.Conf, seed+1)
		ar.AUC = stats.BootstrapCI([][]float64{au}, stats.PooledIQM, o.Reps, o.Conf, seed+2)
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
			pi := stats.ProbImprovementCI([][]float64{ar.Finals}, [][]float64{bf}, o.Reps, o.Conf, o.Seed+uint64(ti)*1000+4)
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
		ar.IQM = stats.BootstrapCI(finals[arm.Name], stats.PooledIQM, o.Reps, o.Conf, o.Seed+7)
		ar.Mean = stats.BootstrapCI(finals[arm.Name], stats.PooledMean, o.Reps, o.Conf, o.Seed+8)
		ar.AUC = stats.BootstrapCI(aucs[arm.Name], stats.PooledIQM, o.Reps, o.Conf, o.Seed+9)
		if arm.Name != base && ar.Runs > 0 {
			pi := stats.ProbImprovementCI(finals[arm.Name], finals[base], o.Reps, o.Conf, o.Seed+10)
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
		c.IQM = append(c.IQM, stats.BootstrapCI([][]float64{v}, stats.PooledIQM, reps, o.Conf, seed+uint64(i)))
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
	bs, _ := stats.FirstReach(base.Steps, points(base.IQM), target)
	se.BaselineStep = bs
	as, ok := stats.FirstReach(arm.Steps, points(arm.IQM), target)
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

func points(iv []stats.Interval) []float64 {
	out := make([]float64, len(iv))
	for i, v := range iv {
		out[i] = v.Point
	}
	return out
}
