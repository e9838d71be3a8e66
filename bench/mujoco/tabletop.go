//go:build mujoco

package main

/*
#cgo LDFLAGS: -lmujoco
#include <mujoco/mujoco.h>

// The scenarios of the anchors' mjbench.c on tabletop.xml: control step =
// 5 steps of 2 ms, episodes of 250 control steps, reset per episode.
typedef struct { int mocap, lf, rf, cube, hand; } tt_ids;

static int tt_lookup(const mjModel* m, tt_ids* ids) {
  int mb = mj_name2id(m, mjOBJ_BODY, "mocap");
  int lf = mj_name2id(m, mjOBJ_JOINT, "lf"), rf = mj_name2id(m, mjOBJ_JOINT, "rf");
  int cube = mj_name2id(m, mjOBJ_JOINT, "cube_free"), hand = mj_name2id(m, mjOBJ_JOINT, "hand_free");
  if (mb < 0 || lf < 0 || rf < 0 || cube < 0 || hand < 0 || m->body_mocapid[mb] < 0) return -1;
  ids->mocap = m->body_mocapid[mb];
  ids->lf = m->jnt_qposadr[lf]; ids->rf = m->jnt_qposadr[rf];
  ids->cube = m->jnt_qposadr[cube]; ids->hand = m->jnt_qposadr[hand];
  return 0;
}

static void tt_start(const mjModel* m, mjData* d, const tt_ids* ids, int sc) {
  double x = 0, z = 0.2, qf = 0;
  if (sc == 1) { x = -0.08; z = 0.08; qf = 0.04; }
  mj_resetData(m, d);
  double* mp = d->mocap_pos + 3 * ids->mocap;
  mp[0] = x; mp[1] = 0; mp[2] = z;
  double* hq = d->qpos + ids->hand;
  hq[0] = x; hq[1] = 0; hq[2] = z; hq[3] = 1; hq[4] = hq[5] = hq[6] = 0;
  d->qpos[ids->lf] = d->qpos[ids->rf] = qf;
  d->ctrl[0] = d->ctrl[1] = qf;
  double* cq = d->qpos + ids->cube;
  cq[0] = 0; cq[1] = 0; cq[2] = 0.025; cq[3] = 1; cq[4] = cq[5] = cq[6] = 0;
}

static void tt_control(mjData* d, const tt_ids* ids, int sc, int k) {
  double* mp = d->mocap_pos + 3 * ids->mocap;
  if (sc == 1) {
    mp[0] = -0.08 + 0.001 * k;
    d->ctrl[0] = d->ctrl[1] = 0.04;
  } else if (sc == 2) {
    if (k < 50) { mp[2] = 0.2 - (0.2 - 0.075) * (k + 1) / 50.0; d->ctrl[0] = d->ctrl[1] = 0; }
    else if (k < 100) { mp[2] = 0.075; d->ctrl[0] = d->ctrl[1] = (k < 60) ? 0.0 : 0.04; }
    else if (k < 200) { mp[2] = 0.075 + (0.25 - 0.075) * (k - 99) / 100.0; d->ctrl[0] = d->ctrl[1] = 0.04; }
    else { mp[2] = 0.25; d->ctrl[0] = d->ctrl[1] = 0.04; }
  }
}

// tt_run runs n whole episodes; returns the summed contact count.
static double tt_run(const mjModel* m, mjData* d, const tt_ids* ids, int sc, int n, double* cubez) {
  double ncon = 0;
  for (int e = 0; e < n; e++) {
    tt_start(m, d, ids, sc);
    for (int k = 0; k < 250; k++) {
      tt_control(d, ids, sc, k);
      for (int s = 0; s < 5; s++) { mj_step(m, d); ncon += d->ncon; }
    }
    *cubez = d->qpos[ids->cube + 2];
  }
  return ncon;
}
*/
import "C"

import (
	"errors"
	"flag"
	"fmt"
	"runtime"

	"github.com/vlmrb/vlmrb/sim/articulated"
	"github.com/vlmrb/vlmrb/sim/mjcf"
)

const (
	ttFrameSkip = 5
	ttEpLen     = 250
)

var ttScenarios = []string{"idle", "push", "lift"}

// tabletopSpeed times the anchors' tabletop scenarios (idle, push, lift;
// mjbench.c's scripted mocap and finger controls) on the articulated
// engine and on MuJoCo 2.2.2 (the same MJCF file; its control loop in C),
// in interleaved rounds of whole episodes. Steps per CPU-second of the
// stepping thread.
func tabletopSpeed(args []string) error {
	fs := flag.NewFlagSet("tabletop", flag.ContinueOnError)
	rounds := fs.Int("rounds", 5, "interleaved rounds")
	episodes := fs.Int("episodes", 8, "episodes (1250 steps each) per engine per round")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("usage: tabletop [-rounds N -episodes N] tabletop.xml")
	}
	f := fs.Arg(0)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	am, err := mjcf.Load(f, mjcf.Options{})
	if err != nil {
		return err
	}
	art, err := newArtTabletop(am.Model)
	if err != nil {
		return err
	}
	native, err := loadMJ(f)
	if err != nil {
		return err
	}
	defer native.close()
	var ids C.tt_ids
	if C.tt_lookup(native.m, &ids) != 0 {
		return fmt.Errorf("%s: no mocap body \"mocap\" or joints lf, rf, cube_free, hand_free", f)
	}
	steps := float64(*episodes * ttEpLen * ttFrameSkip)
	fmt.Println("| scenario | articulated steps/cpu-s | MuJoCo 2.2.2 steps/cpu-s | articulated / MuJoCo | per round | contacts per step art / MuJoCo | cube z at episode end art / MuJoCo (m) |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for sc, name := range ttScenarios {
		var a, n []float64
		var aCon, nCon, aZ, nZ float64
		for range *rounds {
			c0 := threadCPU()
			aCon, aZ = art.run(sc, *episodes)
			a = append(a, steps/max(threadCPU()-c0, 1e-9))
			var z C.double
			c0 = threadCPU()
			nc := C.tt_run(native.m, native.d, &ids, C.int(sc), C.int(*episodes), &z)
			n = append(n, steps/max(threadCPU()-c0, 1e-9))
			nCon, nZ = float64(nc)/steps, float64(z)
		}
		if art.d.Warnings.Total() > 0 {
			return fmt.Errorf("%s: the articulated engine warned: %+v", name, art.d.Warnings)
		}
		fmt.Printf("| %s | %s | %.2f / %.2f | %.4f / %.4f |\n", name, ratioCells(a, n), aCon, nCon, aZ, nZ)
	}
	return nil
}

// artTabletop runs the scenarios on the articulated engine.
type artTabletop struct {
	m                  *articulated.Model
	d                  *articulated.Data
	lf, rf, cube, hand int
}

func newArtTabletop(m *articulated.Model) (*artTabletop, error) {
	t := &artTabletop{m: m, d: articulated.NewData(m)}
	adr := map[string]*int{"lf": &t.lf, "rf": &t.rf, "cube_free": &t.cube, "hand_free": &t.hand}
	for j := range m.Joints {
		if p, ok := adr[m.Joints[j].Name]; ok {
			*p = m.QposAdr(j) + 1 // 0 means missing
			delete(adr, m.Joints[j].Name)
		}
	}
	if len(adr) > 0 || len(m.MocapBodies) != 1 || m.NU != 2 {
		return nil, fmt.Errorf("articulated tabletop: joints %v missing, %d mocap bodies, %d actuators (want 1 and 2)", adr, len(m.MocapBodies), m.NU)
	}
	t.lf, t.rf, t.cube, t.hand = t.lf-1, t.rf-1, t.cube-1, t.hand-1
	return t, nil
}

func (t *artTabletop) start(sc int) {
	m, d := t.m, t.d
	x, z, qf := 0.0, 0.2, 0.0
	if sc == 1 {
		x, z, qf = -0.08, 0.08, 0.04
	}
	articulated.Reset(m, d)
	d.MocapPos[0] = [3]float64{x, 0, z}
	copy(d.Qpos[t.hand:], []float64{x, 0, z, 1, 0, 0, 0})
	d.Qpos[t.lf], d.Qpos[t.rf] = qf, qf
	d.Ctrl[0], d.Ctrl[1] = qf, qf
	copy(d.Qpos[t.cube:], []float64{0, 0, 0.025, 1, 0, 0, 0})
}

func (t *artTabletop) control(sc, k int) {
	d := t.d
	mp := &d.MocapPos[0]
	g := 0.0
	switch sc {
	case 1:
		mp[0], g = -0.08+0.001*float64(k), 0.04
	case 2:
		switch {
		case k < 50:
			mp[2] = 0.2 - (0.2-0.075)*float64(k+1)/50
		case k < 100:
			mp[2] = 0.075
			if k >= 60 {
				g = 0.04
			}
		case k < 200:
			mp[2], g = 0.075+(0.25-0.075)*float64(k-99)/100, 0.04
		default:
			mp[2], g = 0.25, 0.04
		}
	}
	d.Ctrl[0], d.Ctrl[1] = g, g
}

// run runs n episodes and returns contacts per step and the cube's final z.
func (t *artTabletop) run(sc, n int) (float64, float64) {
	con := 0
	for range n {
		t.start(sc)
		for k := range ttEpLen {
			t.control(sc, k)
			for range ttFrameSkip {
				articulated.Step(t.m, t.d)
				con += len(t.d.Contacts)
			}
		}
	}
	return float64(con) / float64(n*ttEpLen*ttFrameSkip), t.d.Qpos[t.cube+2]
}
