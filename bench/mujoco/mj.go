//go:build mujoco

package main

/*
#cgo LDFLAGS: -lmujoco
#include <mujoco/mujoco.h>
#include <stdlib.h>
#include <string.h>

static mjModel* load(const char* f, char* err, int n) { return mj_loadXML(f, 0, err, n); }
*/
import "C"

import (
	"errors"
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
