"""Box spaces: gymnasium.spaces.Box when gymnasium imports, else a duck-typed
equivalent with the same attributes (shape, dtype, low, high) and methods
(sample, contains, seed)."""

import numpy as np

try:  # pragma: no cover - depends on the user's environment
    import gymnasium as _gym
    from gymnasium import spaces as _gspaces
except ImportError:  # gymnasium is optional
    _gym = None
    _gspaces = None

HAVE_GYMNASIUM = _gym is not None


class _DuckBox:
    """A continuous box of shape `shape` with bounds low/high (gymnasium.spaces.Box's
    face without gymnasium)."""

    def __init__(self, low, high, shape=None, dtype=np.float64, seed=None):
        self.dtype = np.dtype(dtype)
        if shape is None:
            shape = np.shape(low)
        self.shape = tuple(int(s) for s in shape)
        self.low = np.broadcast_to(np.asarray(low, dtype=self.dtype), self.shape).copy()
        self.high = np.broadcast_to(np.asarray(high, dtype=self.dtype), self.shape).copy()
        self._rng = np.random.default_rng(seed)

    def seed(self, seed=None):
        self._rng = np.random.default_rng(seed)
        return [seed]

    @property
    def np_random(self):
        return self._rng

    def is_bounded(self, manner="both"):
        lo, hi = np.all(np.isfinite(self.low)), np.all(np.isfinite(self.high))
        return {"both": lo and hi, "below": lo, "above": hi}[manner]

    def sample(self):
        lo = np.where(np.isfinite(self.low), self.low, -1.0)
        hi = np.where(np.isfinite(self.high), self.high, 1.0)
        unb = ~np.isfinite(self.low) & ~np.isfinite(self.high)
        x = self._rng.uniform(lo, hi, size=self.shape)
        x[unb] = self._rng.normal(size=int(unb.sum()))
        return x.astype(self.dtype)

    def contains(self, x):
        x = np.asarray(x)
        return (x.shape == self.shape and np.can_cast(x.dtype, self.dtype, "same_kind")
                and bool(np.all(x >= self.low)) and bool(np.all(x <= self.high)))

    __contains__ = contains

    def __repr__(self):
        return "Box(%s, %s, %s, %s)" % (self.low.min(), self.high.max(), self.shape, self.dtype)

    def __eq__(self, other):
        return (isinstance(other, _DuckBox) and self.shape == other.shape and self.dtype == other.dtype
                and np.array_equal(self.low, other.low) and np.array_equal(self.high, other.high))


def Box(low, high, shape=None, dtype=np.float64):
    """gymnasium.spaces.Box(low, high, shape, dtype) when gymnasium imports, else a duck-typed Box."""
    if _gspaces is not None:
        return _gspaces.Box(low=low, high=high, shape=shape, dtype=dtype)
    return _DuckBox(low, high, shape, dtype)


def batch_box(box, n):
    """The Box of n stacked samples of box (gymnasium.vector.utils.batch_space)."""
    low = np.broadcast_to(box.low, (n,) + box.shape)
    high = np.broadcast_to(box.high, (n,) + box.shape)
    return Box(low, high, (n,) + box.shape, box.dtype)


EnvBase = _gym.Env if HAVE_GYMNASIUM else object
VectorEnvBase = _gym.vector.VectorEnv if HAVE_GYMNASIUM else object
