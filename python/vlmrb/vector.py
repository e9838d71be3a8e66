"""A vector of vlmrb envs stepped in Go goroutines (one per env), writing
straight into numpy arrays. Autoreset is Gymnasium 1.x's default
(AutoresetMode.NEXT_STEP)."""

import ctypes
from types import SimpleNamespace

import numpy as np

from . import _lib
from ._lib import GoHandle, call, dptr, bptr, lib
from .env import _Seeder, _env_id, options_json
from .spaces import Box, VectorEnvBase, batch_box


class VlmrbVectorEnv(GoHandle, VectorEnvBase):
    """num_envs copies of a task, stepped in parallel by Go.

    Autoreset (Gymnasium 1.x NEXT_STEP): the step that ends env i's episode
    returns its last observation with terminated[i] or truncated[i] set; on
    the next step env i's action is ignored and it returns the first
    observation of a new episode with reward 0 and both flags False.
    Seeding: reset(seed=s) starts episode k of env i with Go's
    control.EpisodeSeed(s, i, k), so runs are independent of thread timing.

    step(actions) returns arrays like gymnasium's vector envs; with
    copy=False they are the env's own buffers, overwritten by the next
    call (no allocation per step). step_into(...) writes into arrays the
    caller owns."""

    def __init__(self, task="reach", num_envs=1, render_mode=None, copy=True, **options):
        if render_mode not in (None, "rgb_array"):
            raise ValueError("vlmrb: render_mode must be None or 'rgb_array', got %r" % (render_mode,))
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)):
            raise TypeError("vlmrb: num_envs must be an int, got %r" % (num_envs,))
        self._handle = None
        h = ctypes.c_int64(0)
        call(lib.vlmrb_vec_make, str(task).encode(), int(num_envs), options_json(options), ctypes.byref(h))
        self._handle = h.value
        s = _lib.get_json(lib.vlmrb_env_spec, self._handle)
        n, od, ad = s["num_envs"], s["obs_dim"], s["act_dim"]
        self.num_envs = n
        self.task = s["task"]
        self.copy = bool(copy)
        self.render_mode = render_mode
        self.single_observation_space = Box(-np.inf, np.inf, (od,), np.float64)
        self.single_action_space = Box(np.array(s["act_low"]), np.array(s["act_high"]), (ad,), np.float64)
        self.observation_space = batch_box(self.single_observation_space, n)
        self.action_space = batch_box(self.single_action_space, n)
        self.metadata = {"render_modes": ["rgb_array"], "render_fps": s["render_fps"],
                         "autoreset_mode": _autoreset_mode()}
        self.spec = SimpleNamespace(id=_env_id(self.task), max_episode_steps=s["max_episode_steps"],
                                    kwargs=dict(task=self.task, **options))
        self.info_keys = tuple(s["info_keys"])
        self._width = int(options.get("width", 128))
        self._height = int(options.get("height", 128))
        self.obs = np.zeros((n, od))
        self.rewards = np.zeros(n)
        self.terminated = np.zeros(n, np.bool_)
        self.truncated = np.zeros(n, np.bool_)
        self.infos = np.zeros((n, len(self.info_keys)))
        self._seeder = _Seeder()
        self._reset_done = False
        self._ptrs = (dptr(self.obs), dptr(self.rewards), bptr(self.terminated), bptr(self.truncated), dptr(self.infos))

    def _h(self):
        if self._handle is None:
            raise _lib.VlmrbError("vlmrb: vector env is closed; make a new one with vlmrb.make_vec")
        return self._handle

    def _info_dict(self, infos):
        # Gymnasium's vector info: key -> values (0 where absent), "_key" -> mask
        mask = infos == infos
        vals = np.where(mask, infos, 0.0)
        d = {}
        for k, present in enumerate(mask.any(axis=0).tolist()):
            if present:
                key = self.info_keys[k]
                d[key] = vals[:, k]
                d["_" + key] = mask[:, k]
        return d

    def reset(self, *, seed=None, options=None):
        """Resets every env; returns (obs (num_envs, obs_dim), info dict of arrays)."""
        if options:
            raise ValueError("vlmrb: reset options are not supported; pass task options to vlmrb.make_vec")
        call(lib.vlmrb_vec_reset, self._h(), self._seeder.next(seed), dptr(self.obs), self.obs.size,
             dptr(self.infos), self.infos.size)
        self._reset_done = True
        obs = self.obs.copy() if self.copy else self.obs
        return obs, self._info_dict(self.infos)

    def step(self, actions):
        """Steps every env; returns (obs, rewards, terminated, truncated, infos)."""
        a = self._actions(actions)
        if not self._reset_done:
            raise _lib.VlmrbError("vlmrb: vector env stepped before reset(); call reset() first")
        po, pr, pte, ptr, pi = self._ptrs
        call(lib.vlmrb_vec_step, self._h(), a.ctypes.data, a.size, po, self.obs.size, pr, pte, ptr,
             self.num_envs, pi, self.infos.size)
        info = self._info_dict(self.infos)
        if self.copy:
            return self.obs.copy(), self.rewards.copy(), self.terminated.copy(), self.truncated.copy(), info
        return self.obs, self.rewards, self.terminated, self.truncated, info

    def step_into(self, actions, obs, rewards, terminated, truncated, infos):
        """step() into caller-owned arrays: obs (num_envs, obs_dim) float64,
        rewards (num_envs,) float64, terminated/truncated (num_envs,) bool,
        infos (num_envs, len(info_keys)) float64 (NaN where a key is absent).
        Nothing is allocated."""
        a = self._actions(actions)
        n = self.num_envs
        for name, arr, shape, dt in (("obs", obs, self.obs.shape, np.float64), ("rewards", rewards, (n,), np.float64),
                                     ("terminated", terminated, (n,), np.bool_), ("truncated", truncated, (n,), np.bool_),
                                     ("infos", infos, self.infos.shape, np.float64)):
            if not isinstance(arr, np.ndarray) or arr.shape != shape or arr.dtype != dt or not arr.flags.c_contiguous \
                    or not arr.flags.writeable:
                raise ValueError("vlmrb: %s must be a writeable C-contiguous %s array of shape %s" % (name, np.dtype(dt), shape))
        self._step(a, obs, rewards, terminated, truncated, infos)

    def _actions(self, actions):
        a = actions
        if not (isinstance(a, np.ndarray) and a.dtype == np.float64 and a.flags.c_contiguous):
            a = np.ascontiguousarray(actions, dtype=np.float64)
        if a.shape != self.action_space.shape:
            raise ValueError("vlmrb: actions have shape %s, want %s" % (a.shape, self.action_space.shape))
        return a

    def _step(self, a, obs, rew, term, trunc, infos):
        if not self._reset_done:
            raise _lib.VlmrbError("vlmrb: vector env stepped before reset(); call reset() first")
        call(lib.vlmrb_vec_step, self._h(), dptr(a), a.size, dptr(obs), obs.size, dptr(rew),
             bptr(term), bptr(trunc), self.num_envs, dptr(infos), infos.size)

    def render(self):
        """Env 0's scene as an (height, width, 3) uint8 array (render_mode="rgb_array")."""
        if self.render_mode != "rgb_array":
            return None
        return self.render_env(0, self._width, self._height)

    def render_env(self, i, width, height):
        """Env i's scene at width×height from the scorer's camera."""
        width, height = int(width), int(height)
        if width <= 0 or height <= 0:
            raise ValueError("vlmrb: frame size %dx%d must be positive" % (width, height))
        img = np.empty((height, width, 3), np.uint8)
        call(lib.vlmrb_vec_render, self._h(), int(i), width, height, bptr(img), img.size)
        return img

    def render_all(self, width=None, height=None, out=None):
        """Every env's scene, rendered in parallel by Go: (num_envs, height,
        width, 3) uint8, into out when given (no allocation)."""
        width = int(width or self._width)
        height = int(height or self._height)
        shape = (self.num_envs, height, width, 3)
        if out is None:
            out = np.empty(shape, np.uint8)
        elif out.shape != shape or out.dtype != np.uint8 or not out.flags.c_contiguous or not out.flags.writeable:
            raise ValueError("vlmrb: out must be a writeable C-contiguous uint8 array of shape %s" % (shape,))
        call(lib.vlmrb_vec_render_all, self._h(), width, height, bptr(out), out.size)
        return out

    def close(self, **kwargs):
        """Stops the Go workers and releases the envs; safe to call more than once."""
        self._release()


    def __repr__(self):
        return "<VlmrbVectorEnv %s x%d>" % (self.task, self.num_envs)


def _autoreset_mode():
    try:
        from gymnasium.vector import AutoresetMode
        return AutoresetMode.NEXT_STEP
    except ImportError:
        return "NextStep"


def go_vec_steps(task, num_envs, seed, actions, **options):
    """Steps tasks.MakeVec's control.VecEnv in Go (no Python per step) with
    actions (steps, num_envs, act_dim): the Go baseline of the overhead
    benchmark."""
    a = np.ascontiguousarray(actions, dtype=np.float64)
    call(lib.vlmrb_go_vec_steps, str(task).encode(), int(num_envs), a.shape[0], int(seed),
         options_json(options), dptr(a), a.size)


def go_env_steps(task, seed, actions, **options):
    """Steps one tasks.Env in Go (no Python per step) with actions
    (steps, act_dim), resetting on episode end: the Go baseline of the
    single-env overhead benchmark."""
    a = np.ascontiguousarray(actions, dtype=np.float64)
    call(lib.vlmrb_go_env_steps, str(task).encode(), a.shape[0], int(seed), options_json(options), dptr(a), a.size)
