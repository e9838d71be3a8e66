//go:build mujoco

package main

import (
	"flag"
	"fmt"
	"math"

	"github.com/vlmrb/vlmrb/sim"
)

// trace steps both engines side by side on one file and reports, every
// -every seconds, the largest joint difference and where it is, the torso
// heights and the contact counts, then the first time each threshold of
// |Δq| is crossed and by which joint: where the trajectories part.
func trace(args []string) error {
	fs := flag.NewFlagSet("trace", flag.ContinueOnError)
	seconds := fs.Float64("T", 1, "seconds to run")
	every := fs.Float64("every", 0.05, "report interval (s)")
	ctrl := fs.Float64("ctrl", 0, "constant control of every actuator")
	all := fs.Bool("joints", false, "print every joint at each report")
	pairs := fs.Bool("contacts", false, "print the contact pairs at each report")
	iters := fs.Int("iterations", 0, "sim iterations per substep (0: default)")
	jpush := fs.Float64("jointpush", 0, "cap on joint correction speed (m/s)")
	limHz := fs.Float64("limithz", 0, "sim limit stiffness Hz (0: default)")
	conHz := fs.Float64("contacthz", 0, "sim contact stiffness Hz (0: default)")
	conZeta := fs.Float64("contactzeta", 0, "sim contact damping ratio (0: default)")
	jHz := fs.Float64("jointhz", 0, "sim joint stiffness Hz (0: default)")
	jZeta := fs.Float64("jointzeta", 0, "sim joint damping ratio (0: default)")
	push := fs.Float64("push", 0, "sim max push speed (0: default)")
	fs.IntVar(&importOpts.Substeps, "substeps", 0, "sim substeps per step (0: default)")
	fs.Float64Var(&importOpts.IntermediateMass, "intermediate", 0, "mass share of chain intermediates (0: default)")
	fs.BoolVar(&importOpts.Chain, "chain", false, "multi-joint bodies as chains of sim bodies (the old import)")
	fs.BoolVar(&importOpts.BodyArmature, "bodyarmature", false, "armature as body inertia (the old import)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("trace [flags] FILE")
	}
	f := fs.Arg(0)
	o, _, err := load(f)
	if err != nil {
		return err
	}
	if *iters > 0 {
		o.Sim.Opt.Iterations = *iters
	}
	o.Sim.Opt.MaxJointPush = *jpush
	if *limHz > 0 {
		o.Sim.Opt.LimitHertz = *limHz
	}
	if *conHz > 0 {
		o.Sim.Opt.ContactHertz = *conHz
	}
	if *conZeta > 0 {
		o.Sim.Opt.ContactDampingRatio = *conZeta
	}
	if *jHz > 0 {
		o.Sim.Opt.JointHertz = *jHz
	}
	if *jZeta > 0 {
		o.Sim.Opt.JointDampingRatio = *jZeta
	}
	if *push > 0 {
		o.Sim.Opt.MaxPushSpeed = *push
	}
	r, err := loadMJ(f)
	if err != nil {
		return err
	}
	defer r.close()
	r.reset()
	s := o.Sim.NewState()
	for i, a := range o.Actuators {
		lim, lo, hi := r.ctrlRange(i)
		u := *ctrl
		if lim {
			u = max(lo, min(hi, u))
		}
		s.Ctrl[a.Ctrl] = u
		r.setCtrl(i, u)
	}
	dt := r.timestep()
	if math.Abs(dt-o.Sim.Opt.Timestep) > 1e-15 {
		return fmt.Errorf("timesteps differ: %g vs %g", o.Sim.Opt.Timestep, dt)
	}
	n := int(math.Round(*seconds / dt))
	ev := max(1, int(math.Round(*every/dt)))
	thr := []float64{1e-6, 1e-4, 1e-3, 1e-2, 0.1, 0.5}
	first := make([]string, len(thr))
	firstContact := [2]float64{-1, -1}
	fmt.Println("t (s) | max |Δq| (joint) | torso z vlmrb / MuJoCo | contacts vlmrb / MuJoCo")
	for k := 1; k <= n; k++ {
		sim.Step(o.Sim, s)
		r.step()
		t := float64(k) * dt
		nc := 0
		for _, c := range s.Contacts() {
			if c.NormalForce > 0 {
				nc++
			}
		}
		if nc > 0 && firstContact[0] < 0 {
			firstContact[0] = t
		}
		if r.ncon() > 0 && firstContact[1] < 0 {
			firstContact[1] = t
		}
		dq, jq := 0.0, -1
		for j := range o.Joints {
			if o.Joints[j].Type == "free" {
				continue
			}
			if d := math.Abs(o.JointPos(s, j) - r.qpos(j)); d > dq {
				dq, jq = d, j
			}
		}
		for i, th := range thr {
			if first[i] == "" && dq > th {
				first[i] = fmt.Sprintf("%.3f s (%s: %.5f vs %.5f)", t, o.Joints[jq].Name, o.JointPos(s, jq), r.qpos(jq))
			}
		}
		if k%ev == 0 {
			p, _ := o.BodyPose(s, 1)
			name := "-"
			if jq >= 0 {
				name = o.Joints[jq].Name
			}
			st, sj := stretch(o.Sim, s)
			fmt.Printf("%.3f | %.4g (%s) | %.4f / %.4f | %d / %d | stretch %.2f mm (%s)\n", t, dq, name, p.Z, r.xpos(1)[2], nc, r.ncon(), 1000*st, sj)
			if *pairs {
				var ours []string
				for _, c := range s.Contacts() {
					if c.NormalForce > 0 {
						ours = append(ours, fmt.Sprintf("%s/%s %.4f", o.Sim.Shapes[c.ShapeA].Name, o.Sim.Shapes[c.ShapeB].Name, -c.Depth))
					}
				}
				fmt.Printf("    vlmrb:  %v\n    MuJoCo: %v\n", ours, r.contactPairs())
			}
			if *all {
				for j := range o.Joints {
					if o.Joints[j].Type != "free" {
						fmt.Printf("    %-16s %8.4f %8.4f\n", o.Joints[j].Name, o.JointPos(s, j), r.qpos(j))
					}
				}
			}
		}
	}
	fmt.Printf("first contact (normal force > 0 / MuJoCo ncon > 0): %.3f s / %.3f s\n", firstContact[0], firstContact[1])
	fmt.Printf("vlmrb warnings: %+v\n", s.Warnings)
	for i, th := range thr {
		fmt.Printf("|Δq| first > %g: %s\n", th, first[i])
	}
	return nil
}

// stretch returns the largest separation of a joint's anchor on its two
// bodies (m) and the joint's name: how far the soft joints give.
func stretch(m *sim.Model, s *sim.State) (float64, string) {
	var worst float64
	name := ""
	for i := range m.Joints {
		j := &m.Joints[i]
		if j.Kind == sim.Weld || j.Compound || i+1 < len(m.Joints) && m.Joints[i+1].Compound {
			continue
		}
		p0, c0 := &m.Bodies[j.Parent], &m.Bodies[j.Child]
		lp := p0.Rot.InvRotate(j.Anchor.Sub(p0.Pos))
		lc := c0.Rot.InvRotate(j.Anchor.Sub(c0.Pos))
		if j.Parent == sim.World {
			lp = j.Anchor
		}
		bp, bc := &s.Bodies[j.Parent], &s.Bodies[j.Child]
		ap := bp.Pos.Add(bp.Rot.Rotate(lp))
		if j.Parent == sim.World {
			ap = lp
		}
		ac := bc.Pos.Add(bc.Rot.Rotate(lc))
		if d := ac.Sub(ap).Norm(); d > worst {
			worst, name = d, j.Name
		}
	}
	return worst, name
}

// sensitivity runs MuJoCo alone on each file for -T seconds with ctrl 0
// and prints each run's largest joint difference to the first file's
// (and the torso height): how far MuJoCo's own final pose moves under
// small changes of the model (initial height, timestep, solver).
func sensitivity(args []string) error {
	fs := flag.NewFlagSet("sensitivity", flag.ContinueOnError)
	seconds := fs.Float64("T", 3, "seconds to run")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var ref []float64
	for i, f := range fs.Args() {
		r, err := loadMJ(f)
		if err != nil {
			return err
		}
		r.reset()
		r.steps(int(math.Round(*seconds / r.timestep())))
		var q []float64
		for j := 0; j < r.njnt(); j++ {
			if r.jntType(j) == 0 {
				q = append(q, 0)
			} else {
				q = append(q, r.qpos(j))
			}
		}
		if i == 0 {
			ref = q
		}
		dq, jq := 0.0, 0
		for j := range q {
			if d := math.Abs(q[j] - ref[j]); d > dq {
				dq, jq = d, j
			}
		}
		fmt.Printf("%s | max |Δq| vs first %.3g (%s) | torso z %.4f\n", f, dq, r.jntName(jq), r.xpos(1)[2])
		r.close()
	}
	return nil
}
