//go:build cgo

package main

/*
#include <stdint.h>
*/
import "C"

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"unsafe"

	"github.com/vlmrb/vlmrb/control"
)

// Every exported function returns 0 on success, 2 when the caller passed
// bad input (Python raises ValueError) and 1 on any other error, with the
// error's message (NUL-terminated, truncated to errlen−1 bytes) written to
// errbuf. A panic inside Go is recovered and reported the same way, so a
// bug surfaces as a Python exception rather than a dead interpreter.

func setErr(err error, buf *C.char, n C.int) C.int {
	if err == nil {
		return 0
	}
	rc := C.int(1)
	var in inputError
	if errors.As(err, &in) || errors.Is(err, control.ErrNonFiniteAction) {
		rc = 2
	}
	if buf != nil && n > 0 {
		b := unsafe.Slice((*byte)(unsafe.Pointer(buf)), int(n))
		k := copy(b[:len(b)-1], err.Error())
		b[k] = 0
	}
	return rc
}

// guard runs f and turns a panic into an error carrying the Go stack.
func guard(buf *C.char, n C.int, f func() error) (rc C.int) {
	defer func() {
		if r := recover(); r != nil {
			rc = setErr(fmt.Errorf("vlmrb: internal error (please report): %v\n%s", r, debug.Stack()), buf, n)
		}
	}()
	return setErr(f(), buf, n)
}

func f64s(p *C.double, n int) []float64 {
	if p == nil || n <= 0 {
		return nil
	}
	return unsafe.Slice((*float64)(unsafe.Pointer(p)), n)
}

func u8s(p *C.uint8_t, n int) []byte {
	if p == nil || n <= 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(p)), n)
}

// writeJSON marshals v into buf (NUL-terminated); *need gets the size
// required, so a caller with a small buffer can retry.
func writeJSON(v any, buf *C.char, n C.int, need *C.int) error {
	js, err := json.Marshal(v)
	if err != nil {
		return err
	}
	*need = C.int(len(js) + 1)
	if int(n) < len(js)+1 {
		return fmt.Errorf("vlmrb: JSON buffer of %d bytes is too small; %d needed", n, len(js)+1)
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(buf)), int(n))
	copy(b, js)
	b[len(js)] = 0
	return nil
}

//export vlmrb_abi_version
func vlmrb_abi_version() C.int { return 1 }

//export vlmrb_info
func vlmrb_info(buf *C.char, n C.int, need *C.int, errbuf *C.char, errlen C.int) C.int {
	return guard(errbuf, errlen, func() error { return writeJSON(libInfo(), buf, n, need) })
}

//export vlmrb_close
func vlmrb_close(h C.int64_t, errbuf *C.char, errlen C.int) C.int {
	return guard(errbuf, errlen, func() error { return closeHandle(int64(h)) })
}

//export vlmrb_live_handles
func vlmrb_live_handles() C.int { return C.int(liveHandles()) }

//export vlmrb_env_make
func vlmrb_env_make(task, opts *C.char, out *C.int64_t, errbuf *C.char, errlen C.int) C.int {
	return guard(errbuf, errlen, func() error {
		e, err := newEnv(C.GoString(task), C.GoString(opts))
		if err != nil {
			return err
		}
		*out = C.int64_t(putHandle(e))
		return nil
	})
}

//export vlmrb_env_spec
func vlmrb_env_spec(h C.int64_t, buf *C.char, n C.int, need *C.int, errbuf *C.char, errlen C.int) C.int {
	return guard(errbuf, errlen, func() error {
		if v, err := getHandle[*vecEnv](int64(h), "vector env"); err == nil {
			return writeJSON(v.spec, buf, n, need)
		}
		e, err := getHandle[*env](int64(h), "env")
		if err != nil {
			return err
		}
		return writeJSON(specOf(e.e, 1), buf, n, need)
	})
}

//export vlmrb_env_reset
func vlmrb_env_reset(h C.int64_t, seed C.uint64_t, obs *C.double, nobs C.int, info *C.double, ninfo C.int, errbuf *C.char, errlen C.int) C.int {
	return guard(errbuf, errlen, func() error {
		e, err := getHandle[*env](int64(h), "env")
		if err != nil {
			return err
		}
		return e.Reset(uint64(seed), f64s(obs, int(nobs)), f64s(info, int(ninfo)))
	})
}

//export vlmrb_env_step
func vlmrb_env_step(h C.int64_t, act *C.double, nact C.int, obs *C.double, nobs C.int, reward *C.double, flags *C.uint8_t, info *C.double, ninfo C.int, errbuf *C.char, errlen C.int) C.int {
	return guard(errbuf, errlen, func() error {
		e, err := getHandle[*env](int64(h), "env")
		if err != nil {
			return err
		}
		var r float64
		var te, tr bool
		if err := e.Step(f64s(act, int(nact)), f64s(obs, int(nobs)), &r, &te, &tr, f64s(info, int(ninfo))); err != nil {
			return err
		}
		fl := u8s(flags, 2)
		*reward, fl[0], fl[1] = C.double(r), b2u(te), b2u(tr)
		return nil
	})
}

//export vlmrb_env_render
func vlmrb_env_render(h C.int64_t, w, ht C.int, dst *C.uint8_t, n C.int, errbuf *C.char, errlen C.int) C.int {
	return guard(errbuf, errlen, func() error {
		e, err := getHandle[*env](int64(h), "env")
		if err != nil {
			return err
		}
		return e.Render(int(w), int(ht), u8s(dst, int(n)))
	})
}

//export vlmrb_vec_make
func vlmrb_vec_make(task *C.char, n C.int, opts *C.char, out *C.int64_t, errbuf *C.char, errlen C.int) C.int {
	return guard(errbuf, errlen, func() error {
		v, err := newVecEnv(C.GoString(task), int(n), C.GoString(opts))
		if err != nil {
			return err
		}
		*out = C.int64_t(putHandle(v))
		return nil
	})
}

//export vlmrb_vec_reset
func vlmrb_vec_reset(h C.int64_t, seed C.uint64_t, obs *C.double, nobs C.int, info *C.double, ninfo C.int, errbuf *C.char, errlen C.int) C.int {
	return guard(errbuf, errlen, func() error {
		v, err := getHandle[*vecEnv](int64(h), "vector env")
		if err != nil {
			return err
		}
		return v.Reset(uint64(seed), f64s(obs, int(nobs)), f64s(info, int(ninfo)))
	})
}

//export vlmrb_vec_step
func vlmrb_vec_step(h C.int64_t, act *C.double, nact C.int, obs *C.double, nobs C.int, rew *C.double, term, trunc *C.uint8_t, n C.int, info *C.double, ninfo C.int, errbuf *C.char, errlen C.int) C.int {
	return guard(errbuf, errlen, func() error {
		v, err := getHandle[*vecEnv](int64(h), "vector env")
		if err != nil {
			return err
		}
		return v.Step(f64s(act, int(nact)), f64s(obs, int(nobs)), f64s(rew, int(n)), u8s(term, int(n)), u8s(trunc, int(n)), f64s(info, int(ninfo)))
	})
}

//export vlmrb_vec_render
func vlmrb_vec_render(h C.int64_t, i, w, ht C.int, dst *C.uint8_t, n C.int, errbuf *C.char, errlen C.int) C.int {
	return guard(errbuf, errlen, func() error {
		v, err := getHandle[*vecEnv](int64(h), "vector env")
		if err != nil {
			return err
		}
		return v.Render(int(i), int(w), int(ht), u8s(dst, int(n)))
	})
}

//export vlmrb_go_rollout
func vlmrb_go_rollout(task, opts *C.char, seed C.uint64_t, steps C.int, act *C.double, nact C.int, obs *C.double, nobs C.int, rew *C.double, errbuf *C.char, errlen C.int) C.int {
	return guard(errbuf, errlen, func() error {
		return goRollout(C.GoString(task), C.GoString(opts), uint64(seed), int(steps), f64s(act, int(nact)), f64s(obs, int(nobs)), f64s(rew, int(steps)))
	})
}

//export vlmrb_go_vec_steps
func vlmrb_go_vec_steps(task *C.char, n, steps C.int, seed C.uint64_t, opts *C.char, act *C.double, nact C.int, errbuf *C.char, errlen C.int) C.int {
	return guard(errbuf, errlen, func() error {
		return goVecSteps(C.GoString(task), int(n), int(steps), uint64(seed), C.GoString(opts), f64s(act, int(nact)))
	})
}

//export vlmrb_go_env_steps
func vlmrb_go_env_steps(task *C.char, steps C.int, seed C.uint64_t, opts *C.char, act *C.double, nact C.int, errbuf *C.char, errlen C.int) C.int {
	return guard(errbuf, errlen, func() error {
		return goEnvSteps(C.GoString(task), int(steps), uint64(seed), C.GoString(opts), f64s(act, int(nact)))
	})
}

func f32s(p *C.float, n int) []float32 {
	if p == nil || n <= 0 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(p)), n)
}

func i64s(p *C.int64_t, n int) []int64 {
	if p == nil || n <= 0 {
		return nil
	}
	return unsafe.Slice((*int64)(unsafe.Pointer(p)), n)
}

//export vlmrb_rb_make
func vlmrb_rb_make(opts *C.char, out *C.int64_t, errbuf *C.char, errlen C.int) C.int {
	return guard(errbuf, errlen, func() error {
		r, err := newReplay(C.GoString(opts))
		if err != nil {
			return err
		}
		*out = C.int64_t(putHandle(r))
		return nil
	})
}

// vlmrb_rb_add stores one transition per env (n = num_envs); frames,
// terminal, progress and valid may be NULL.
//
//export vlmrb_rb_add
func vlmrb_rb_add(h C.int64_t, n, od, ad C.int, obs, act, rew, next *C.double, term, trunc *C.uint8_t, episode *C.int64_t,
	frames, terminal *C.uint8_t, fh, fw C.int, progress *C.double, valid *C.uint8_t, idx *C.int64_t, errbuf *C.char, errlen C.int) C.int {
	return guard(errbuf, errlen, func() error {
		r, err := getHandle[*rbuf](int64(h), "replay buffer")
		if err != nil {
			return err
		}
		k := int(n)
		fb := k * int(fh) * int(fw) * 3
		a := addArgs{obs: f64s(obs, k*int(od)), act: f64s(act, k*int(ad)), rew: f64s(rew, k), next: f64s(next, k*int(od)),
			term: u8s(term, k), trunc: u8s(trunc, k), episode: i64s(episode, k), frames: u8s(frames, fb),
			terminal: u8s(terminal, fb), h: int(fh), w: int(fw), progress: f64s(progress, k), valid: u8s(valid, k), idx: i64s(idx, k)}
		if k != r.opts.NumEnvs {
			return badf("vlmrb: add got %d transitions; the buffer was made for num_envs = %d (one per env per call)", k, r.opts.NumEnvs)
		}
		return r.Add(a)
	})
}

//export vlmrb_rb_sample
func vlmrb_rb_sample(h C.int64_t, n C.int, obs, act, rew, next, term, trunc, weights *C.float, idx *C.int64_t, errbuf *C.char, errlen C.int) C.int {
	return guard(errbuf, errlen, func() error {
		r, err := getHandle[*rbuf](int64(h), "replay buffer")
		if err != nil {
			return err
		}
		k, od, ad := int(n), r.opts.ObsDim, r.opts.ActDim
		if k <= 0 {
			return badf("vlmrb: batch size %d must be at least 1", k)
		}
		ok, err := r.Sample(f32s(obs, k*od), f32s(act, k*ad), f32s(rew, k), f32s(next, k*od), f32s(term, k), f32s(trunc, k), f32s(weights, k), i64s(idx, k))
		if err == nil && !ok {
			err = errNotSampleable
		}
		return err
	})
}

//export vlmrb_rb_update
func vlmrb_rb_update(h C.int64_t, idx *C.int64_t, vals *C.double, n C.int, applied *C.int, errbuf *C.char, errlen C.int) C.int {
	return guard(errbuf, errlen, func() error {
		r, err := getHandle[*rbuf](int64(h), "replay buffer")
		if err != nil {
			return err
		}
		k, err := r.Update(i64s(idx, int(n)), f64s(vals, int(n)))
		*applied = C.int(k)
		return err
	})
}

//export vlmrb_rb_scores
func vlmrb_rb_scores(h C.int64_t, idx *C.int64_t, n C.int, out *C.double, errbuf *C.char, errlen C.int) C.int {
	return guard(errbuf, errlen, func() error {
		r, err := getHandle[*rbuf](int64(h), "replay buffer")
		if err != nil {
			return err
		}
		return r.Scores(i64s(idx, int(n)), f64s(out, int(n)))
	})
}

//export vlmrb_rb_tick
func vlmrb_rb_tick(h C.int64_t, errbuf *C.char, errlen C.int) C.int {
	return guard(errbuf, errlen, func() error {
		r, err := getHandle[*rbuf](int64(h), "replay buffer")
		if err != nil {
			return err
		}
		return r.Tick()
	})
}

//export vlmrb_rb_metrics
func vlmrb_rb_metrics(h C.int64_t, buf *C.char, n C.int, need *C.int, errbuf *C.char, errlen C.int) C.int {
	return guard(errbuf, errlen, func() error {
		r, err := getHandle[*rbuf](int64(h), "replay buffer")
		if err != nil {
			return err
		}
		m, err := r.Metrics()
		if err != nil {
			return err
		}
		return writeJSON(m, buf, n, need)
	})
}

//export vlmrb_vec_render_all
func vlmrb_vec_render_all(h C.int64_t, w, ht C.int, dst *C.uint8_t, n C.int, errbuf *C.char, errlen C.int) C.int {
	return guard(errbuf, errlen, func() error {
		v, err := getHandle[*vecEnv](int64(h), "vector env")
		if err != nil {
			return err
		}
		return v.RenderAll(int(w), int(ht), u8s(dst, int(n)))
	})
}
