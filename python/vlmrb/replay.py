"""VLM-guided replay for PyTorch/numpy training loops: vlmrb's Go replay
buffer (package replay) with its samplers, and for sampler="vlmrb" the
scoring pipeline of package vlmprio (Clipper → async Prioritizer → scorer
→ VLM-RB mixture), the same code robot-train runs."""

import ctypes
import json
from types import SimpleNamespace

import numpy as np

from . import _lib
from ._lib import GoHandle, call, lib

_i64, _int = ctypes.c_int64, ctypes.c_int
_p = ctypes.c_void_p
_err = [ctypes.c_char_p, _int]
for _n, _a in {
    "vlmrb_rb_make": [ctypes.c_char_p, ctypes.POINTER(_i64)],
    "vlmrb_rb_add": [_i64, _int, _int, _int, _p, _p, _p, _p, _p, _p, _p, _p, _p, _int, _int, _p, _p, _p],
    "vlmrb_rb_sample": [_i64, _int, _p, _p, _p, _p, _p, _p, _p, _p],
    "vlmrb_rb_update": [_i64, _p, _p, _int, ctypes.POINTER(_int)],
    "vlmrb_rb_scores": [_i64, _p, _int, _p],
    "vlmrb_rb_tick": [_i64],
    "vlmrb_rb_metrics": [_i64, ctypes.c_char_p, _int, ctypes.POINTER(_int)],
}.items():
    _f = getattr(lib, _n)
    _f.argtypes, _f.restype = _a + _err, _int


def _arr(x, dtype, shape, name):
    a = np.ascontiguousarray(x, dtype=dtype)
    if a.shape != shape:
        if a.size == int(np.prod(shape)) and a.ndim <= 1 and len(shape) == 1:
            a = a.reshape(shape)
        else:
            raise ValueError("vlmrb: %s has shape %s, want %s" % (name, a.shape, shape))
    return a


class ReplayBuffer(GoHandle):
    """A replay buffer of float32 transitions in Go.

    sampler: "uniform", "per" (proportional PER, |TD| fed back with
    update_priorities) or "vlmrb" (the VLM-RB mixture
    q = λ·p_i/Σp + (1−λ)/N, λ rising 0 → lambda_max over warmup_steps
    sample() calls; unscored transitions keep default_prio). With "vlmrb"
    every add() hands the transitions' frames to vlmprio's Clipper; clips of
    clip_len frames every stride steps are scored asynchronously by scorer
    ("pixel", "oracle" or "openai" with base_url, model, clip_format,
    frames, timeout_s, prompt and OPENAI_API_KEY from the environment, as
    robot-train's flags) with `workers` goroutines, scores written back
    `lag` add() calls later (workers=0: inside add()). Defaults are
    robot-train's.

    add() takes one transition per env (num_envs rows) per loop step;
    sample(batch_size) returns float32 arrays, importance weights and int64
    indices; update_priorities(indices, td_errors) feeds |δ| back (PER,
    and VLM-RB with td_product=True)."""

    def __init__(self, capacity, obs_dim, act_dim, num_envs=1, sampler="vlmrb", scorer="pixel",
                 task="reach", seed=0, **options):
        self._handle = None
        opts = dict(capacity=int(capacity), obs_dim=int(obs_dim), act_dim=int(act_dim),
                    num_envs=int(num_envs), sampler=sampler, scorer=scorer, task=task, seed=int(seed), **options)
        h = _i64(0)
        call(lib.vlmrb_rb_make, json.dumps(opts).encode(), ctypes.byref(h))
        self._handle = h.value
        self.capacity, self.obs_dim, self.act_dim, self.num_envs = int(capacity), int(obs_dim), int(act_dim), int(num_envs)
        self.sampler, self.scorer = sampler, scorer
        self._idx = np.zeros(self.num_envs, np.int64)
        self._batches = {}

    def _h(self):
        if self._handle is None:
            raise _lib.VlmrbError("vlmrb: replay buffer is closed")
        return self._handle

    def add(self, obs, actions, rewards, next_obs, terminated, truncated, episodes,
            frames=None, terminal_frames=None, progress=None, valid=None):
        """Stores one transition per env (row i from env i): obs and next_obs
        (num_envs, obs_dim), actions (num_envs, act_dim), rewards,
        terminated, truncated and episode ids (num_envs,). next_obs is the
        true final observation at an episode's end. frames (num_envs, H, W, 3)
        uint8 are o_t, the frames of obs (env.render() before the step); the
        pixel and openai scorers need them. terminal_frames are o_T of
        episodes that terminated (optional); progress is info["progress"]
        of obs (the oracle scorer reads it). valid (num_envs,) bool marks
        the rows to store: pass ~autoreset with a NEXT_STEP vector env,
        whose autoreset step is no transition. Returns the indices
        (num_envs,) int64 of the stored transitions (valid until
        overwritten; -1 for rows not stored)."""
        n, od, ad = self.num_envs, self.obs_dim, self.act_dim
        o = _arr(obs, np.float64, (n, od), "obs")
        a = _arr(actions, np.float64, (n, ad), "actions")
        r = _arr(rewards, np.float64, (n,), "rewards")
        no = _arr(next_obs, np.float64, (n, od), "next_obs")
        te = _arr(terminated, np.bool_, (n,), "terminated")
        tr = _arr(truncated, np.bool_, (n,), "truncated")
        ep = _arr(episodes, np.int64, (n,), "episodes")
        fp = tp = pp = None
        fh = fw = 0
        keep = []
        if frames is not None:
            f = np.ascontiguousarray(frames, dtype=np.uint8)
            if f.ndim == 3 and n == 1:
                f = f[None]
            if f.ndim != 4 or f.shape[0] != n or f.shape[3] != 3:
                raise ValueError("vlmrb: frames have shape %s, want (num_envs=%d, H, W, 3) uint8" % (f.shape, n))
            fh, fw = f.shape[1], f.shape[2]
            fp = f.ctypes.data
            keep.append(f)
            if terminal_frames is not None:
                t = np.ascontiguousarray(terminal_frames, dtype=np.uint8).reshape(f.shape)
                tp = t.ctypes.data
                keep.append(t)
        elif terminal_frames is not None:
            raise ValueError("vlmrb: terminal_frames need frames")
        if progress is not None:
            p = _arr(progress, np.float64, (n,), "progress")
            pp = p.ctypes.data
            keep.append(p)
        vp = None
        if valid is not None:
            v = _arr(valid, np.bool_, (n,), "valid")
            vp = v.ctypes.data
            keep.append(v)
        call(lib.vlmrb_rb_add, self._h(), n, od, ad, o.ctypes.data, a.ctypes.data, r.ctypes.data, no.ctypes.data,
             te.ctypes.data, tr.ctypes.data, ep.ctypes.data, fp, tp, fh, fw, pp, vp, self._idx.ctypes.data)
        return self._idx.copy()

    def _batch(self, n):
        b = self._batches.get(n)
        if b is None:
            od, ad = self.obs_dim, self.act_dim
            b = SimpleNamespace(obs=np.zeros((n, od), np.float32), actions=np.zeros((n, ad), np.float32),
                                rewards=np.zeros(n, np.float32), next_obs=np.zeros((n, od), np.float32),
                                terminated=np.zeros(n, np.float32), truncated=np.zeros(n, np.float32),
                                weights=np.zeros(n, np.float32), indices=np.zeros(n, np.int64))
            self._batches = {n: b}
        return b

    def sample(self, batch_size, out=None):
        """Draws batch_size transitions from the sampler. Returns a namespace
        of float32 arrays obs, actions, rewards, next_obs, terminated,
        truncated, weights (importance weights; 1 for uniform) and int64
        indices. The arrays are the buffer's own, overwritten by the next
        sample() of that size (torch.from_numpy them, no copy); pass out=
        (a namespace of such arrays) to fill arrays you own."""
        n = int(batch_size)
        if n <= 0:
            raise ValueError("vlmrb: batch_size must be at least 1, got %d" % n)
        b = out if out is not None else self._batch(n)
        if out is not None:
            for k, shape, dt in (("obs", (n, self.obs_dim), np.float32), ("actions", (n, self.act_dim), np.float32),
                                 ("rewards", (n,), np.float32), ("next_obs", (n, self.obs_dim), np.float32),
                                 ("terminated", (n,), np.float32), ("truncated", (n,), np.float32),
                                 ("weights", (n,), np.float32), ("indices", (n,), np.int64)):
                a = getattr(out, k)
                if a.shape != shape or a.dtype != dt or not a.flags.c_contiguous or not a.flags.writeable:
                    raise ValueError("vlmrb: out.%s must be a writeable C-contiguous %s array of shape %s" % (k, np.dtype(dt), shape))
        call(lib.vlmrb_rb_sample, self._h(), n, b.obs.ctypes.data, b.actions.ctypes.data, b.rewards.ctypes.data,
             b.next_obs.ctypes.data, b.terminated.ctypes.data, b.truncated.ctypes.data, b.weights.ctypes.data,
             b.indices.ctypes.data)
        return b

    def update_priorities(self, indices, td_errors):
        """Feeds the learner's |TD error| of sampled indices back (PER; VLM-RB
        with td_product=True; uniform ignores it). Stale indices (slots
        overwritten since) are skipped. Returns how many were applied."""
        idx = np.ascontiguousarray(indices, dtype=np.int64).ravel()
        v = np.ascontiguousarray(td_errors, dtype=np.float64).ravel()
        if idx.shape != v.shape:
            raise ValueError("vlmrb: %d indices and %d TD errors; pass one per index" % (idx.size, v.size))
        k = _int(0)
        call(lib.vlmrb_rb_update, self._h(), idx.ctypes.data, v.ctypes.data, idx.size, ctypes.byref(k))
        return k.value

    def scores(self, indices):
        """The VLM score of each index (NaN while unscored or when stale)."""
        idx = np.ascontiguousarray(indices, dtype=np.int64).ravel()
        out = np.empty(idx.size)
        call(lib.vlmrb_rb_scores, self._h(), idx.ctypes.data, idx.size, out.ctypes.data)
        return out

    def tick(self):
        """Ends a loop step without adding (add() ticks by itself): under
        lag, writes back the scores that are due."""
        call(lib.vlmrb_rb_tick, self._h())

    def metrics(self):
        """Counters: len, sampleable, adds, samples, drawn,
        prioritized_draws, lambda, beta, applied/stale/rejected writes,
        scored_slots, and scoring (vlmprio Prioritizer metrics: submitted,
        dropped, scored, failed, written, …) and clipper stats."""
        return _lib.get_json(lib.vlmrb_rb_metrics, self._h())

    def __len__(self):
        return int(self.metrics()["len"])

    def close(self):
        """Stops the scorer workers; safe to call more than once."""
        self._release()

