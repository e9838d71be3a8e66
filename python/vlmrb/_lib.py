"""Loads libvlmrb (the Go C ABI, python/capi) with ctypes and declares its
functions. Every call returns 0 or 1; on 1 the Go error message is raised as
a VlmrbError (or a ValueError for bad input)."""

import ctypes
import json
import os
import threading

__all__ = ["lib", "call", "VlmrbError", "dptr", "bptr"]

_NAME = "libvlmrb.so"


class VlmrbError(RuntimeError):
    """An error reported by vlmrb's Go core; the message is Go's."""


def _find():
    env = os.environ.get("VLMRB_LIB")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.join(here, _NAME)


def _load():
    path = _find()
    if not os.path.exists(path):
        raise ImportError(
            "vlmrb: the Go library %s is missing; build it with `make python` in the "
            "repository (or `pip install ./python`), or point VLMRB_LIB at it" % path)
    return ctypes.CDLL(path)


lib = _load()

_i64, _int, _u64 = ctypes.c_int64, ctypes.c_int, ctypes.c_uint64
# array pointers travel as plain addresses (numpy's arr.ctypes.data):
# converting to typed ctypes pointers costs more than the call itself
_pd = ctypes.c_void_p
_pb = ctypes.c_void_p
_pc = ctypes.c_char_p
_err = [ctypes.c_char_p, _int]

_sigs = {
    "vlmrb_abi_version": ([], _int),
    "vlmrb_live_handles": ([], _int),
    "vlmrb_info": ([_pc, _int, ctypes.POINTER(_int)] + _err, _int),
    "vlmrb_close": ([_i64] + _err, _int),
    "vlmrb_env_make": ([_pc, _pc, ctypes.POINTER(_i64)] + _err, _int),
    "vlmrb_env_spec": ([_i64, _pc, _int, ctypes.POINTER(_int)] + _err, _int),
    "vlmrb_env_reset": ([_i64, _u64, _pd, _int, _pd, _int] + _err, _int),
    "vlmrb_env_step": ([_i64, _pd, _int, _pd, _int, _pd, _pb, _pd, _int] + _err, _int),
    "vlmrb_env_render": ([_i64, _int, _int, _pb, _int] + _err, _int),
    "vlmrb_vec_make": ([_pc, _int, _pc, ctypes.POINTER(_i64)] + _err, _int),
    "vlmrb_vec_reset": ([_i64, _u64, _pd, _int, _pd, _int] + _err, _int),
    "vlmrb_vec_step": ([_i64, _pd, _int, _pd, _int, _pd, _pb, _pb, _int, _pd, _int] + _err, _int),
    "vlmrb_vec_render": ([_i64, _int, _int, _int, _pb, _int] + _err, _int),
    "vlmrb_vec_render_all": ([_i64, _int, _int, _pb, _int] + _err, _int),
    "vlmrb_go_rollout": ([_pc, _pc, _u64, _int, _pd, _int, _pd, _int, _pd] + _err, _int),
    "vlmrb_go_env_steps": ([_pc, _int, _u64, _pc, _pd, _int] + _err, _int),
    "vlmrb_go_vec_steps": ([_pc, _int, _int, _u64, _pc, _pd, _int] + _err, _int),
}
for _n, (_a, _r) in _sigs.items():
    _f = getattr(lib, _n)
    _f.argtypes, _f.restype = _a, _r

if lib.vlmrb_abi_version() != 1:
    raise ImportError("vlmrb: %s has ABI version %d, this package needs 1; rebuild it (make python)"
                      % (_find(), lib.vlmrb_abi_version()))

_tls = threading.local()
_ERRLEN = 8192


def _errbuf():
    b = getattr(_tls, "buf", None)
    if b is None:
        b = _tls.buf = ctypes.create_string_buffer(_ERRLEN)
    return b


def call(fn, *args):
    """Calls fn(*args, errbuf, errlen); raises ValueError (rc 2: bad input)
    or VlmrbError (rc 1) with Go's message on failure."""
    b = _errbuf()
    rc = fn(*args, b, _ERRLEN)
    if rc != 0:
        msg = b.value.decode("utf-8", "replace")
        raise (ValueError if rc == 2 else VlmrbError)(msg)


class GoHandle:
    """Owns one Go-side handle (self._handle, None once closed): close()
    releases it and is safe to call more than once; garbage collection and
    ``with`` blocks close it too."""

    _handle = None

    def _release(self):
        if self._handle is not None:
            h, self._handle = self._handle, None
            call(lib.vlmrb_close, h)

    def close(self):
        self._release()

    def __del__(self):
        try:
            self._release()
        except Exception:  # interpreter shutdown: nothing to report to
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def dptr(a):
    """The address of numpy array a's data (C-contiguous float64, checked by caller)."""
    return a.ctypes.data


def bptr(a):
    """The address of numpy array a's data (C-contiguous, 1-byte dtype)."""
    return a.ctypes.data


def get_json(fn, *args):
    """Calls a JSON-returning function, growing the buffer when needed."""
    n = 4096
    while True:
        buf = ctypes.create_string_buffer(n)
        need = _int(0)
        b = _errbuf()
        rc = fn(*args, buf, n, ctypes.byref(need), b, _ERRLEN)
        if rc == 0:
            return json.loads(buf.value.decode())
        if need.value > n:
            n = need.value
            continue
        raise (ValueError if rc == 2 else VlmrbError)(b.value.decode("utf-8", "replace"))


def info():
    """The library's tasks, render backends and info keys."""
    return get_json(lib.vlmrb_info)
