"""vlmrb's task environments behind the Gymnasium API, over the Go C ABI."""

import ctypes
import json
import secrets
from types import SimpleNamespace

import numpy as np

from . import _lib
from ._lib import GoHandle, call, dptr, bptr, lib
from .spaces import Box, EnvBase

_U64 = 1 << 64


def check_seed(seed):
    """seed as a Go uint64; ValueError/TypeError for anything else."""
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError("vlmrb: seed must be an int in [0, 2**64), got %r" % (seed,))
    seed = int(seed)
    if not 0 <= seed < _U64:
        raise ValueError("vlmrb: seed must be in [0, 2**64), got %d" % seed)
    return seed


def options_json(kw):
    """The keyword options of make() as the JSON the Go side parses (it
    rejects unknown names with the list of known ones)."""
    return json.dumps(kw).encode()


class _Seeder:
    """Gymnasium's seeding: reset(seed=s) reseeds; reset() continues a
    deterministic sequence drawn from the last seed (or from OS entropy if
    never seeded)."""

    def __init__(self):
        self._rng = None

    def next(self, seed):
        if seed is not None:
            seed = check_seed(seed)
            self._rng = np.random.Generator(np.random.PCG64(seed))
            return seed
        if self._rng is None:
            self._rng = np.random.Generator(np.random.PCG64(secrets.randbits(64)))
        return int(self._rng.integers(0, _U64, dtype=np.uint64))


def _spec(handle):
    return _lib.get_json(lib.vlmrb_env_spec, handle)


def _env_id(task):
    return "vlmrb/%s-v0" % "".join(p.capitalize() for p in task.replace("_", "-").split("-"))


class VlmrbEnv(GoHandle, EnvBase):
    """One vlmrb task as a Gymnasium environment (a real gymnasium.Env when
    gymnasium imports). Make it with vlmrb.make(task, **options).

    Observations are float64 vectors (MetaWorld's 39-value layout), actions
    float64 4-vectors in [-1, 1] (clipped by the Go env; NaN/Inf and wrong
    shapes raise ValueError and the env does not move). render() returns an
    H×W×3 uint8 frame from the same camera the VLM scorer uses."""

    # class-level, as gymnasium.make reads it before making the env; every
    # task steps at 80 Hz (instances overwrite it from the Go spec)
    metadata = {"render_modes": ["rgb_array"], "render_fps": 80}

    def __init__(self, task="reach", render_mode=None, **options):
        if render_mode not in (None, "rgb_array"):
            raise ValueError("vlmrb: render_mode must be None or 'rgb_array', got %r" % (render_mode,))
        self._handle = None
        h = ctypes.c_int64(0)
        call(lib.vlmrb_env_make, str(task).encode(), options_json(options), ctypes.byref(h))
        self._handle = h.value
        s = _spec(self._handle)
        self._s = s
        self.task = s["task"]
        self.description = s["description"]
        self.render_mode = render_mode
        self.observation_space = Box(-np.inf, np.inf, (s["obs_dim"],), np.float64)
        self.action_space = Box(np.array(s["act_low"]), np.array(s["act_high"]), (s["act_dim"],), np.float64)
        self.reward_range = (s["reward_low"], s["reward_high"])
        self.metadata = {"render_modes": ["rgb_array"], "render_fps": s["render_fps"]}
        self.spec = SimpleNamespace(id=_env_id(self.task), max_episode_steps=s["max_episode_steps"],
                                    kwargs=dict(task=self.task, **options))
        self.info_keys = tuple(s["info_keys"])
        self._width = int(options.get("width", 128))
        self._height = int(options.get("height", 128))
        self._info = np.empty(len(self.info_keys))
        self._flags = np.zeros(2, np.uint8)
        self._rew = ctypes.c_double(0)
        self._seeder = _Seeder()
        # addresses reused by every step (the buffers live as long as self)
        self._p_info, self._p_flags, self._p_rew = dptr(self._info), bptr(self._flags), ctypes.addressof(self._rew)
        self._obs_dim = s["obs_dim"]

    def _h(self):
        if self._handle is None:
            raise _lib.VlmrbError("vlmrb: env is closed; make a new one with vlmrb.make")
        return self._handle

    def _info_dict(self):
        d = dict(zip(self.info_keys, self._info.tolist()))
        for k in [k for k, v in d.items() if v != v]:  # NaN: not reported this step
            del d[k]
        return d

    def reset(self, *, seed=None, options=None):
        """Starts an episode; its randomisation is fully determined by seed."""
        if options:
            raise ValueError("vlmrb: reset options are not supported; pass task options to vlmrb.make")
        obs = np.empty(self._s["obs_dim"])
        call(lib.vlmrb_env_reset, self._h(), self._seeder.next(seed), dptr(obs), obs.size,
             dptr(self._info), self._info.size)
        return obs, self._info_dict()

    def step(self, action):
        """Applies one action; returns (obs, reward, terminated, truncated, info)."""
        a = np.ascontiguousarray(action, dtype=np.float64)
        if a.shape != self.action_space.shape:
            raise ValueError("vlmrb: action has shape %s, want %s" % (a.shape, self.action_space.shape))
        obs = np.empty(self._obs_dim)
        call(lib.vlmrb_env_step, self._h(), a.ctypes.data, a.size, obs.ctypes.data, self._obs_dim,
             self._p_rew, self._p_flags, self._p_info, self._info.size)
        fl = self._flags.tolist()
        return obs, self._rew.value, fl[0] == 1, fl[1] == 1, self._info_dict()

    def render(self):
        """The current scene as an (height, width, 3) uint8 array (render_mode="rgb_array")."""
        if self.render_mode != "rgb_array":
            return None
        return self.render_frame(self._width, self._height)

    def render_frame(self, width, height):
        """The current scene at width×height from the scorer's camera."""
        width, height = int(width), int(height)
        if width <= 0 or height <= 0:
            raise ValueError("vlmrb: frame size %dx%d must be positive" % (width, height))
        img = np.empty((height, width, 3), np.uint8)
        call(lib.vlmrb_env_render, self._h(), width, height, bptr(img), img.size)
        return img

    def close(self):
        """Releases the Go env; safe to call more than once."""
        self._release()

    @property
    def unwrapped(self):
        return self


    def __repr__(self):
        return "<VlmrbEnv %s>" % self.task


def go_rollout(task, seed, actions, **options):
    """The Go-side reference: the same task stepped by tasks.Env in Go with
    the given (steps, act_dim) actions. Returns (obs (steps+1, obs_dim),
    rewards (steps,))."""
    a = np.ascontiguousarray(actions, dtype=np.float64)
    steps = a.shape[0]
    env = VlmrbEnv(task, **options)
    od = env.observation_space.shape[0]
    env.close()
    obs = np.zeros((steps + 1, od))
    rew = np.zeros(steps)
    call(lib.vlmrb_go_rollout, str(task).encode(), options_json(options), check_seed(seed), steps,
         dptr(a), a.size, dptr(obs), obs.size, dptr(rew))
    return obs, rew
