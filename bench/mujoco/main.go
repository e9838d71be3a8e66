//go:build mujoco

package main

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/vlmrb/vlmrb/sim"
	"github.com/vlmrb/vlmrb/sim/mjcf"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: mujoco compare FILE...|refuse DIR|speed [-rounds N -steps N] FILE...|artspeed [-rounds N -steps N] FILE...|tabletop [-rounds N -episodes N] tabletop.xml")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "compare":
		err = compare(os.Args[2:])
	case "refuse":
		err = refuse(os.Args[2:])
	case "sensitivity":
		err = sensitivity(os.Args[2:])
	case "trace":
		err = trace(os.Args[2:])
	case "speed":
		err = speed(os.Args[2:])
	case "artspeed":
		err = artspeed(os.Args[2:])
	case "tabletop":
		err = tabletopSpeed(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mujoco:", err)
		os.Exit(1)
	}
}

// load imports path; arm26 (tendons and muscles) is compared on its
// supported part only: its compiled bodies, not its muscle-driven motion.
func load(path string) (m *mjcf.Model, lenient bool, err error) {
	m, err = mjcf.Load(path, importOpts)
	if err != nil && strings.Contains(filepath.Base(path), "arm26") {
		o := importOpts
		o.Lenient = true
		m, err = mjcf.Load(path, o)
		return m, true, err
	}
	return m, false, err
}

// importOpts are the import options of compare and speed (-substeps,
// -intermediate).
var importOpts mjcf.Options

// importFlags registers the import options shared by compare and speed.
func importFlags(fs *flag.FlagSet) {
	fs.IntVar(&importOpts.Substeps, "substeps", 0, "sim substeps per step (0: the import's rule)")
	fs.IntVar(&importOpts.Iterations, "iterations", 0, "sim velocity iterations per substep (0: default)")
	fs.Float64Var(&importOpts.MaxJointPush, "jointpush", 0, "cap on joint correction speed, m/s (0: none)")
	fs.Float64Var(&importOpts.IntermediateMass, "intermediate", 0, "mass share of chain intermediates (0: default)")
	fs.BoolVar(&importOpts.Chain, "chain", false, "multi-joint bodies as chains of sim bodies (the old import)")
	fs.BoolVar(&importOpts.BodyArmature, "bodyarmature", false, "armature as body inertia (the old import)")
	fs.BoolVar(&importOpts.SubstepMasses, "substepmasses", false, "joint effective masses every substep (the old import)")
}

func compare(args []string) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	importFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	files := fs.Args()
	fmt.Println("| model | quantity | vlmrb | MuJoCo 2.2.2 | max difference | tolerance | ok |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, f := range files {
		ours, lenient, err := load(f)
		if err != nil {
			return err
		}
		ref, err := loadMJ(f)
		if err != nil {
			return fmt.Errorf("%s: MuJoCo: %v", f, err)
		}
		name := filepath.Base(f)
		compiled(name, ours, ref)
		keyframes(name, ours, ref)
		if lenient {
			fmt.Printf("| %s | trajectories | not compared: tendons and muscles dropped (%d warnings) | | | | |\n", name, len(ours.Warnings))
		} else {
			trajectories(name, ours, ref)
		}
		ref.close()
	}
	return nil
}

func row(model, q, ours, ref string, diff, tol float64) {
	ok := "yes"
	if !(diff <= tol) {
		ok = "**no**"
	}
	fmt.Printf("| %s | %s | %s | %s | %.3g | %.3g | %s |\n", model, q, ours, ref, diff, tol, ok)
}

func compiled(name string, o *mjcf.Model, r *mj) {
	row(name, "bodies", strconv.Itoa(len(o.Bodies)), strconv.Itoa(r.nbody()), math.Abs(float64(len(o.Bodies)-r.nbody())), 0)
	n := min(len(o.Bodies), r.nbody())
	var dm, di, dp, dq float64
	var tm, tr float64
	wm, wi, wp := "", "", ""
	for i := 1; i < n; i++ {
		b := &o.Bodies[i]
		if b.Name != r.bodyName(i) {
			fmt.Printf("| %s | body %d name | %s | %s | | | **no** |\n", name, i, b.Name, r.bodyName(i))
		}
		tm += b.Mass
		tr += r.mass(i)
		if d := math.Abs(b.Mass-r.mass(i)) / max(r.mass(i), 1e-12); d > dm {
			dm, wm = d, b.Name
		}
		oi := []float64{b.Inertia.X, b.Inertia.Y, b.Inertia.Z}
		ri := r.inertia(i)
		rs := ri[:]
		sort.Float64s(oi)
		sort.Float64s(rs)
		for k := 0; k < 3; k++ {
			if d := math.Abs(oi[k]-rs[k]) / max(rs[2], 1e-15); d > di {
				di, wi = d, b.Name
			}
		}
		p := r.xpos(i)
		if d := math.Abs(b.Pos.X-p[0]) + math.Abs(b.Pos.Y-p[1]) + math.Abs(b.Pos.Z-p[2]); d > dp {
			dp, wp = d, b.Name
		}
		q := r.xquat(i)
		dot := math.Abs(b.Rot.W*q[0] + b.Rot.X*q[1] + b.Rot.Y*q[2] + b.Rot.Z*q[3])
		dq = max(dq, 2*math.Acos(min(1, dot)))
	}
	row(name, "total mass (kg)", fmt.Sprintf("%.6f", tm), fmt.Sprintf("%.6f", tr), math.Abs(tm-tr), 1e-9*max(tr, 1))
	row(name, "body mass, max rel. diff ("+wm+")", "", "", dm, 1e-9)
	row(name, "principal inertia, max rel. diff ("+wi+")", "", "", di, 1e-6)
	row(name, "body world pos at qpos0, max |Δ| (m) ("+wp+")", "", "", dp, 1e-9)
	row(name, "body world rot at qpos0, max angle (rad)", "", "", dq, 1e-9)
}

// keyframes compares every body's world pose in each keyframe:
// mj_resetDataKeyframe + mj_forward against SetKeyframe.
func keyframes(name string, o *mjcf.Model, r *mj) {
	if len(o.Keyframes) != r.nkey() {
		row(name, "keyframes", strconv.Itoa(len(o.Keyframes)), strconv.Itoa(r.nkey()), math.Abs(float64(len(o.Keyframes)-r.nkey())), 0)
		return
	}
	for k := range o.Keyframes {
		s := o.Sim.NewState()
		o.SetKeyframe(s, k)
		r.resetKey(k)
		var dp, dq float64
		wp := ""
		for i := 1; i < min(len(o.Bodies), r.nbody()); i++ {
			p, q := o.BodyPose(s, i)
			rp, rq := r.xpos(i), r.xquat(i)
			if d := math.Abs(p.X-rp[0]) + math.Abs(p.Y-rp[1]) + math.Abs(p.Z-rp[2]); d > dp {
				dp, wp = d, o.Bodies[i].Name
			}
			dot := math.Abs(q.W*rq[0] + q.X*rq[1] + q.Y*rq[2] + q.Z*rq[3])
			dq = max(dq, 2*math.Acos(min(1, dot)))
		}
		key := o.KeyframeNames()[k]
		row(name, fmt.Sprintf("keyframe %s: body world pos, max |Δ| (m) (%s)", key, wp), "", "", dp, 1e-9)
		row(name, fmt.Sprintf("keyframe %s: body world rot, max angle (rad)", key), "", "", dq, 1e-7)
	}
	r.reset()
}

// scenario is one stepped comparison: joint tolerance (rad or m) and body
// position tolerance (m).
type scenario struct {
	name         string
	seconds      float64
	ctrl         float64
	tolQ, tolPos float64
}

// state is what trajectories compares: joint coordinates and body world
// positions after a run.
type state struct {
	q   []float64 // per joint (NaN for free joints)
	pos [][3]float64
}

func (x *mj) run(sc scenario, nu int) state {
	x.reset()
	for i := 0; i < nu; i++ {
		lim, lo, hi := x.ctrlRange(i)
		u := sc.ctrl
		if lim {
			u = max(lo, min(hi, u))
		}
		x.setCtrl(i, u)
	}
	x.steps(int(math.Round(sc.seconds / x.timestep())))
	var st state
	for j := 0; j < x.njnt(); j++ {
		if x.jntType(j) == 0 {
			st.q = append(st.q, math.NaN())
		} else {
			st.q = append(st.q, x.qpos(j))
		}
	}
	for i := 0; i < x.nbody(); i++ {
		st.pos = append(st.pos, x.xpos(i))
	}
	return st
}

func ours(o *mjcf.Model, sc scenario, lims func(int) (bool, float64, float64)) state {
	s := o.Sim.NewState()
	for i, a := range o.Actuators {
		lim, lo, hi := lims(i)
		u := sc.ctrl
		if lim {
			u = max(lo, min(hi, u))
		}
		s.Ctrl[a.Ctrl] = u
	}
	for i, n := 0, int(math.Round(sc.seconds/o.Sim.Opt.Timestep)); i < n; i++ {
		sim.Step(o.Sim, s)
	}
	var st state
	for j := range o.Joints {
		if o.Joints[j].Type == "free" {
			st.q = append(st.q, math.NaN())
		} else {
			st.q = append(st.q, o.JointPos(s, j))
		}
	}
	for i := range o.Bodies {
		p, _ := o.BodyPose(s, i)
		st.pos = append(st.pos, [3]float64{p.X, p.Y, p.Z})
	}
	return st
}

// diff returns the largest joint and body-position differences and where.
func diff(a, b state, o *mjcf.Model) (dq float64, jq int, dp float64, bp int) {
	jq, bp = -1, -1
	for j := 0; j < min(len(a.q), len(b.q)); j++ {
		if d := math.Abs(a.q[j] - b.q[j]); d > dq {
			dq, jq = d, j
		}
	}
	for i := 1; i < min(len(a.pos), len(b.pos)); i++ {
		d := math.Sqrt(sq(a.pos[i][0]-b.pos[i][0]) + sq(a.pos[i][1]-b.pos[i][1]) + sq(a.pos[i][2]-b.pos[i][2]))
		if d > dp {
			dp, bp = d, i
		}
	}
	return
}

func sq(x float64) float64 { return x * x }

// trajectories compares runs of both engines. The tolerance of each row is
// the larger of a fixed engineering bound (joint coordinates 0.01 rad or m
// at 0.2 s, 0.05 at 1 s and at rest; body positions 5, 20 and 50 mm plus
// MuJoCo's explicit-Euler free-fall drift g·dt·T/2, vlmrb's being exact)
// and twice MuJoCo's own change when its timestep is halved: a contact-rich
// fall is chaotic, and no engine can be held closer to MuJoCo than MuJoCo
// is to itself.
func trajectories(name string, o *mjcf.Model, r *mj) {
	dt := r.timestep()
	for _, sc := range []scenario{
		{"gravity, ctrl 0", 0.2, 0, 0.01, 0.005},
		{"gravity, ctrl 0", 1, 0, 0.05, 0.02},
		{"constant ctrl 0.3", 1, 0.3, 0.05, 0.02},
		{"rest, ctrl 0", 3, 0, 0.05, 0.05},
	} {
		if len(o.Actuators) == 0 && sc.ctrl != 0 {
			continue
		}
		ref := r.run(sc, r.nu())
		r.setTimestep(dt / 2)
		half := r.run(sc, r.nu())
		r.setTimestep(dt)
		us := ours(o, sc, r.ctrlRange)
		sq0, _, sp0, _ := diff(ref, half, o)
		dq, jq, dp, bp := diff(us, ref, o)
		tolQ := max(sc.tolQ, 2*sq0)
		tolP := max(sc.tolPos+0.5*9.81*dt*sc.seconds, 2*sp0)
		label := fmt.Sprintf("%s, %.1f s", sc.name, sc.seconds)
		if jq >= 0 {
			row(name, label+": joint q, max |Δ| ("+o.Joints[jq].Name+")", fmt.Sprintf("%.4f", us.q[jq]), fmt.Sprintf("%.4f", ref.q[jq]), dq, tolQ)
		}
		if bp >= 0 {
			row(name, label+": body pos, max |Δ| m ("+o.Bodies[bp].Name+")", "", "", dp, tolP)
		}
		fmt.Printf("| %s | %s: MuJoCo dt vs dt/2 | | | q %.3g, pos %.3g | | |\n", name, label, sq0, sp0)
		if strings.HasPrefix(sc.name, "rest") {
			row(name, label+": height of "+o.Bodies[1].Name+" (m)", fmt.Sprintf("%.4f", us.pos[1][2]), fmt.Sprintf("%.4f", ref.pos[1][2]), math.Abs(us.pos[1][2]-ref.pos[1][2]), max(sc.tolPos, 2*math.Abs(half.pos[1][2]-ref.pos[1][2])))
		}
	}
}

func refuse(args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("refuse DIR")
	}
	var files []string
	filepath.WalkDir(args[0], func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".xml") {
			files = append(files, p)
		}
		return nil
	})
	slices.Sort(files)
	fmt.Println("| model | MuJoCo 2.2.2 | vlmrb | why (first error) / warnings |")
	fmt.Println("|---|---|---|---|")
	for _, f := range files {
		rel, _ := filepath.Rel(args[0], f)
		refState := "loads"
		if r, err := loadMJ(f); err != nil {
			refState = "refuses: " + firstLine(err.Error())
		} else {
			refState = fmt.Sprintf("loads (%d bodies)", r.nbody())
			r.close()
		}
		m, err := mjcf.Load(f, mjcf.Options{})
		if err != nil {
			msg := firstLine(err.Error())
			msg = strings.ReplaceAll(msg, args[0]+"/", "")
			fmt.Printf("| %s | %s | refused | %s |\n", rel, refState, strings.ReplaceAll(msg, "|", "/"))
			continue
		}
		fmt.Printf("| %s | %s | loaded (%d bodies, %d sim bodies) | %d warnings |\n", rel, refState, len(m.Bodies), len(m.Sim.Bodies), len(m.Warnings))
	}
	return nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

var stepsRE = regexp.MustCompile(`Steps per second\s*:\s*([0-9.]+)`)

func speed(args []string) error {
	fs := flag.NewFlagSet("speed", flag.ContinueOnError)
	rounds := fs.Int("rounds", 5, "interleaved rounds")
	steps := fs.Int("steps", 20000, "steps per run")
	importFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	fmt.Println("| model | timestep (ms) | substeps | vlmrb steps/s | MuJoCo steps/s | ratio | per-round min–max | vlmrb steps/cpu-s | MuJoCo steps/cpu-s | CPU ratio | per-round min–max | rounds |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, f := range fs.Args() {
		o, _, err := load(f)
		if err != nil {
			return err
		}
		var ours, theirs, oursCPU, theirsCPU []float64
		for r := 0; r < *rounds; r++ {
			wall, cpu := runOurs(o, *steps)
			ours, oursCPU = append(ours, wall), append(oursCPU, cpu)
			v, c, err := testspeed(f, *steps)
			if err != nil {
				return err
			}
			// the CPU time of a 1-step run is testspeed's loading cost
			_, c1, err := testspeed(f, 1)
			if err != nil {
				return err
			}
			theirs = append(theirs, v)
			theirsCPU = append(theirsCPU, float64(*steps-1)/max(c-c1, 1e-9))
		}
		fmt.Printf("| %s | %g | %d | %s | %s | %s |\n", filepath.Base(f), o.Sim.Opt.Timestep*1000, o.Sim.Opt.Substeps,
			ratioCells(ours, theirs), ratioCells(oursCPU, theirsCPU), strconv.Itoa(*rounds))
	}
	return nil
}

// testspeed runs mujoco-testspeed on f for n steps (one thread, 0.01
// control noise) and returns its steps/s and the CPU time (s) it used.
func testspeed(f string, n int) (stepsPerSec, cpu float64, err error) {
	cmd := exec.Command("mujoco-testspeed", f, strconv.Itoa(n), "1", "0.01")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return 0, 0, fmt.Errorf("mujoco-testspeed %s: %v: %s", f, err, out)
	}
	m := stepsRE.FindSubmatch(out)
	if m == nil {
		return 0, 0, fmt.Errorf("mujoco-testspeed %s: no steps/s in %q", f, out)
	}
	v, _ := strconv.ParseFloat(string(m[1]), 64)
	ps := cmd.ProcessState
	return v, (ps.UserTime() + ps.SystemTime()).Seconds(), nil
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

// runOurs steps the model with testspeed's control noise (0.01 of each
// control range about its centre, uniform) and returns steps/s.
func runOurs(o *mjcf.Model, n int) (wall, cpu float64) {
	s := o.Sim.NewState()
	rng := rand.New(rand.NewPCG(1, 2))
	t0, c0 := time.Now(), cpuSeconds()
	for i := 0; i < n; i++ {
		for _, a := range o.Actuators {
			c, rad := 0.0, 1.0
			if a.CtrlLimited {
				c, rad = (a.CtrlRange[0]+a.CtrlRange[1])/2, (a.CtrlRange[1]-a.CtrlRange[0])/2
			}
			s.Ctrl[a.Ctrl] = c + 0.01*rad*(2*rng.Float64()-1)
		}
		sim.Step(o.Sim, s)
	}
	return float64(n) / time.Since(t0).Seconds(), float64(n) / max(cpuSeconds()-c0, 1e-9)
}

// cpuSeconds returns the CPU time (user + system, s) this process has used.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + 1e-6*float64(ru.Utime.Usec+ru.Stime.Usec)
}

func median(x []float64) float64 {
	y := slices.Clone(x)
	slices.Sort(y)
	return y[len(y)/2]
}
