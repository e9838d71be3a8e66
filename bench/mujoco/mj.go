//go:build mujoco

package main

/*
#cgo LDFLAGS: -lmujoco
#include <mujoco/mujoco.h>
#include <stdlib.h>
#include <string.h>

static mjModel* load(const char* f, char* err, int n) { return mj_loadXML(f, 0, err, n); }
static int nbody(mjModel* m) { return m->nbody; }
static int njnt(mjModel* m) { return m->njnt; }
static int nu(mjModel* m) { return m->nu; }
static double timestep(mjModel* m) { return m->opt.timestep; }
static const char* bodyname(mjModel* m, int i) { return mj_id2name(m, mjOBJ_BODY, i); }
static const char* jntname(mjModel* m, int i) { return mj_id2name(m, mjOBJ_JOINT, i); }
static double bodymass(mjModel* m, int i) { return m->body_mass[i]; }
static double bodyinertia(mjModel* m, int i, int k) { return m->body_inertia[3*i+k]; }
static int jnttype(mjModel* m, int i) { return m->jnt_type[i]; }
static int jntlimited(mjModel* m, int i) { return m->jnt_limited[i]; }
static int jntqpos(mjModel* m, int i) { return m->jnt_qposadr[i]; }
static int jntbody(mjModel* m, int i) { return m->jnt_bodyid[i]; }
static double xpos(mjData* d, int i, int k) { return d->xpos[3*i+k]; }
static double xquat(mjData* d, int i, int k) { return d->xquat[4*i+k]; }
static double qpos(mjData* d, int i) { return d->qpos[i]; }
static void setctrl(mjData* d, int i, double u) { d->ctrl[i] = u; }
static int ctrllimited(mjModel* m, int i) { return m->actuator_ctrllimited[i]; }
static double ctrlrange(mjModel* m, int i, int k) { return m->actuator_ctrlrange[2*i+k]; }
static double dtime(mjData* d) { return d->time; }
static void settimestep(mjModel* m, double dt) { m->opt.timestep = dt; }
static int ncon(mjData* d) { return d->ncon; }
static int congeom(mjData* d, int i, int k) { return k == 0 ? d->contact[i].geom1 : d->contact[i].geom2; }
static double condist(mjData* d, int i) { return d->contact[i].dist; }
static const char* geomname(mjModel* m, int i) { return mj_id2name(m, mjOBJ_GEOM, i); }
static int nkey(mjModel* m) { return m->nkey; }
static void resetkey(mjModel* m, mjData* d, int k) { mj_resetDataKeyframe(m, d, k); mj_forward(m, d); }
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"
)

// mj is a MuJoCo model and data loaded from one file.
type mj struct {
	m *C.mjModel
	d *C.mjData
}

func loadMJ(path string) (*mj, error) {
	cs := C.CString(path)
	defer C.free(unsafe.Pointer(cs))
	buf := make([]byte, 1000)
	m := C.load(cs, (*C.char)(unsafe.Pointer(&buf[0])), C.int(len(buf)))
	if m == nil {
		n := 0
		for n < len(buf) && buf[n] != 0 {
			n++
		}
		return nil, errors.New(string(buf[:n]))
	}
	d := C.mj_makeData(m)
	C.mj_forward(m, d)
	return &mj{m: m, d: d}, nil
}

func (x *mj) close() {
	C.mj_deleteData(x.d)
	C.mj_deleteModel(x.m)
}

func (x *mj) nbody() int        { return int(C.nbody(x.m)) }
func (x *mj) njnt() int         { return int(C.njnt(x.m)) }
func (x *mj) nu() int           { return int(C.nu(x.m)) }
func (x *mj) timestep() float64 { return float64(C.timestep(x.m)) }
func (x *mj) bodyName(i int) string {
	s := C.bodyname(x.m, C.int(i))
	if s == nil {
		return ""
	}
	return C.GoString(s)
}
func (x *mj) jntName(i int) string {
	s := C.jntname(x.m, C.int(i))
	if s == nil {
		return ""
	}
	return C.GoString(s)
}
func (x *mj) mass(i int) float64 { return float64(C.bodymass(x.m, C.int(i))) }
func (x *mj) inertia(i int) [3]float64 {
	return [3]float64{float64(C.bodyinertia(x.m, C.int(i), 0)), float64(C.bodyinertia(x.m, C.int(i), 1)), float64(C.bodyinertia(x.m, C.int(i), 2))}
}
func (x *mj) xpos(i int) [3]float64 {
	return [3]float64{float64(C.xpos(x.d, C.int(i), 0)), float64(C.xpos(x.d, C.int(i), 1)), float64(C.xpos(x.d, C.int(i), 2))}
}
func (x *mj) xquat(i int) [4]float64 {
	var q [4]float64
	for k := range q {
		q[k] = float64(C.xquat(x.d, C.int(i), C.int(k)))
	}
	return q
}
func (x *mj) jntType(i int) int        { return int(C.jnttype(x.m, C.int(i))) } // 0 free, 1 ball, 2 slide, 3 hinge
func (x *mj) jntLimited(i int) bool    { return C.jntlimited(x.m, C.int(i)) != 0 }
func (x *mj) jntBody(i int) int        { return int(C.jntbody(x.m, C.int(i))) }
func (x *mj) qpos(j int) float64       { return float64(C.qpos(x.d, C.jntqpos(x.m, C.int(j)))) }
func (x *mj) setCtrl(i int, u float64) { C.setctrl(x.d, C.int(i), C.double(u)) }
func (x *mj) ctrlRange(i int) (bool, float64, float64) {
	return C.ctrllimited(x.m, C.int(i)) != 0, float64(C.ctrlrange(x.m, C.int(i), 0)), float64(C.ctrlrange(x.m, C.int(i), 1))
}
func (x *mj) setTimestep(dt float64) { C.settimestep(x.m, C.double(dt)) }
func (x *mj) ncon() int              { return int(C.ncon(x.d)) }

// contactPairs lists the geom names of each contact and its distance.
func (x *mj) contactPairs() []string {
	var out []string
	for i := 0; i < x.ncon(); i++ {
		g1, g2 := C.congeom(x.d, C.int(i), 0), C.congeom(x.d, C.int(i), 1)
		out = append(out, C.GoString(C.geomname(x.m, g1))+"/"+C.GoString(C.geomname(x.m, g2))+fmt.Sprintf(" %.4f", float64(C.condist(x.d, C.int(i)))))
	}
	return out
}
func (x *mj) reset()    { C.mj_resetData(x.m, x.d); C.mj_forward(x.m, x.d) }
func (x *mj) nkey() int { return int(C.nkey(x.m)) }

// resetKey puts the data in keyframe k's state and computes its poses.
func (x *mj) resetKey(k int) { C.resetkey(x.m, x.d, C.int(k)) }
func (x *mj) step()          { C.mj_step(x.m, x.d) }
func (x *mj) steps(n int) {
	for i := 0; i < n; i++ {
		C.mj_step(x.m, x.d)
	}
}
