package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/sim"
	"github.com/vlmrb/vlmrb/tasks"
)

var classes = []string{"success", "off-table", "untouched", "overshoot", "off-line", "close", "short"}

type episode struct {
	k                    int
	class                string
	sector               string
	d0, dFinal, dMin     float64
	s, l                 float64
	moved                float64
	handNear, handMoving bool
	cmdErr               float64
	handRel              sim.Vec3 // hand − cube at the end, in (along u, left of u, up from the table)
	firstTouch           int
	successAny           bool
	firstSuccess         int // control step of the first success (−1: none)
}

func main() {
	episodes := flag.Int("episodes", 50, "episodes per policy")
	verbose := flag.Bool("v", false, "print every episode")
	maxLen := flag.Int("max-episode-len", 0, "control steps per episode (0: the run's)")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: pushdiag [-episodes N] [-v] RUN_DIR...")
		os.Exit(2)
	}
	ctx := context.Background()
	expertDone := map[string]bool{}
	for _, dir := range flag.Args() {
		agent, cfg, ac, err := rundir.LoadAgentCheckpoint(dir)
		if err != nil {
			fail(err)
		}
		if cfg.Task != tasks.ArmPushName {
			fail(fmt.Errorf("%s: task %s, want %s", dir, cfg.Task, tasks.ArmPushName))
		}
		if *maxLen > 0 {
			cfg.MaxEpisodeLen = *maxLen
		}
		env, err := rundir.NewArmEnv(&cfg)
		if err != nil {
			fail(err)
		}
		e, ok := env.(*tasks.ArmObject)
		if !ok {
			fail(fmt.Errorf("%s: not an object task", dir))
		}
		seed := rundir.EvalSeed(cfg)
		name := fmt.Sprintf("%s@%d (%d-step episodes)", dir, ac.Manifest.Step, cfg.MaxEpisodeLen)
		report(name+" deterministic", run(ctx, e, rundir.AgentPolicy(agent), seed, *episodes), *verbose)
		report(name+" stochastic", run(ctx, e, rundir.StochasticAgentPolicy(agent, seed), seed, *episodes), *verbose)
		if key := fmt.Sprint(seed, cfg.MaxEpisodeLen); !expertDone[key] {
			expertDone[key] = true
			report(fmt.Sprintf("expert, seed %d (%d-step episodes)", seed, cfg.MaxEpisodeLen), run(ctx, e, e.Expert(), seed, *episodes), *verbose)
		}
		agent.Close()
		_ = env.Close()
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "pushdiag:", err)
	os.Exit(1)
}

func horiz(v sim.Vec3) sim.Vec3 { v.Z = 0; return v }

func run(ctx context.Context, e *tasks.ArmObject, pol control.Policy, seed uint64, n int) []episode {
	var out []episode
	act := make([]float64, 4)
	for k := range n {
		if ctx.Err() != nil {
			return out
		}
		obs, _ := e.Reset(control.EpisodeSeed(seed, 0, k))
		c0, g := e.CubePos(), e.Goal()
		u := horiz(g.Sub(c0))
		d0 := u.Norm()
		u = u.Scale(1 / d0)
		ep := episode{k: k, d0: d0, dMin: d0, firstTouch: -1, firstSuccess: -1, sector: sector(u)}
		var hand []sim.Vec3
		var info control.Info
		term := false
		for t := 0; ; t++ {
			pol.Act(obs, act)
			next, _, te, tr, inf, err := e.Step(act)
			if err != nil {
				fail(err)
			}
			obs, info = next, inf
			c := e.CubePos()
			m := horiz(c.Sub(c0)).Norm()
			ep.moved = math.Max(ep.moved, m)
			if m > 0.003 && ep.firstTouch < 0 {
				ep.firstTouch = t
			}
			ep.dMin = math.Min(ep.dMin, info.Get("obj_to_target"))
			if info.Success() && !ep.successAny {
				ep.successAny, ep.firstSuccess = true, t+1
			}
			hand = append(hand, e.SitePos())
			if te || tr {
				term = te
				break
			}
		}
		c, p := e.CubePos(), e.SitePos()
		dc := horiz(c.Sub(c0))
		ep.s = dc.Dot(u)
		ep.l = dc.Sub(u.Scale(ep.s)).Norm()
		ep.dFinal = info.Get("obj_to_target")
		ep.handNear = c.Sub(p).Norm() <= 0.06
		if len(hand) > 10 {
			ep.handMoving = hand[len(hand)-1].Sub(hand[len(hand)-11]).Norm() > 0.01
		}
		ep.cmdErr = sim.V3(obs[20], obs[21], obs[22]).Norm() / 10
		hr := p.Sub(c)
		ep.handRel = sim.V3(hr.X*u.X+hr.Y*u.Y, -hr.X*u.Y+hr.Y*u.X, p.Z-e.TableZ())
		ep.class = classify(info.Success(), term, ep.moved, ep.s, ep.l, d0, ep.dFinal)
		out = append(out, ep)
	}
	return out
}

// classify names an episode's outcome (the classes of doc.go) from the
// cube's path: success and term at the last step, its largest horizontal
// displacement moved, its final progress s along the start–goal direction
// and distance l off that line, the start's distance d0 to the goal and
// the final distance dFinal (m).
func classify(success, term bool, moved, s, l, d0, dFinal float64) string {
	switch {
	case success:
		return "success"
	case term:
		return "off-table"
	case moved < 0.01:
		return "untouched"
	case s > d0:
		return "overshoot"
	case l > 0.05:
		return "off-line"
	case dFinal <= 0.08:
		return "close"
	}
	return "short"
}

// sector names u's direction: +x (away from the base), −x, +y, −y.
func sector(u sim.Vec3) string {
	a := math.Atan2(u.Y, u.X) * 180 / math.Pi
	switch {
	case a > -45 && a <= 45:
		return "+x"
	case a > 45 && a <= 135:
		return "+y"
	case a > -135 && a <= -45:
		return "-y"
	}
	return "-x"
}

func report(name string, eps []episode, verbose bool) {
	count := map[string]int{}
	near, moving, ikStuck, anyStep := 0, 0, 0, 0
	bySector := map[string][2]int{}
	var finals, firsts []float64
	for _, ep := range eps {
		if ep.class == "success" {
			firsts = append(firsts, float64(ep.firstSuccess))
		}
		count[ep.class]++
		s := bySector[ep.sector]
		s[1]++
		if ep.class == "success" {
			s[0]++
		} else {
			if ep.handNear {
				near++
			}
			if ep.handMoving {
				moving++
			}
			if ep.cmdErr > 0.02 {
				ikStuck++
			}
			finals = append(finals, ep.dFinal)
		}
		if ep.successAny {
			anyStep++
		}
		bySector[ep.sector] = s
		if verbose {
			fmt.Printf("  k=%2d %-9s %s d0=%.3f final=%.3f min=%.3f s=%+.3f l=%.3f moved=%.3f touch@%d near=%v moving=%v cmdErr=%.3f hand(along,left,z)=(%+.3f,%+.3f,%.3f)\n",
				ep.k, ep.class, ep.sector, ep.d0, ep.dFinal, ep.dMin, ep.s, ep.l, ep.moved, ep.firstTouch, ep.handNear, ep.handMoving, ep.cmdErr, ep.handRel.X, ep.handRel.Y, ep.handRel.Z)
		}
	}
	var parts []string
	for _, c := range classes {
		parts = append(parts, fmt.Sprintf("%s %d", c, count[c]))
	}
	fmt.Printf("%s: %d episodes, success at the end %d, at any step %d\n  %s\n", name, len(eps), count["success"], anyStep, strings.Join(parts, ", "))
	sort.Float64s(finals)
	med := math.NaN()
	if len(finals) > 0 {
		med = finals[len(finals)/2]
	}
	sort.Float64s(firsts)
	if len(firsts) > 0 {
		fmt.Printf("  successes: first success at control step median %.0f [%.0f – %.0f]\n", firsts[len(firsts)/2], firsts[0], firsts[len(firsts)-1])
	}
	fmt.Printf("  failures: %d, hand within 6 cm of the cube at the end %d, hand moving %d, command > 2 cm from the hand %d, median final distance %.3f m\n",
		len(finals), near, moving, ikStuck, med)
	var sec []string
	for _, k := range []string{"+x", "-x", "+y", "-y"} {
		s := bySector[k]
		sec = append(sec, fmt.Sprintf("%s %d/%d", k, s[0], s[1]))
	}
	fmt.Printf("  success by push direction: %s\n", strings.Join(sec, ", "))
}
