"""vlmrb for Python: the Go library's manipulation tasks as Gymnasium
environments and its VLM-guided replay buffer, over a C ABI (libvlmrb.so,
built from python/capi with `make python` or `pip install ./python`).

    import vlmrb
    env = vlmrb.make("reach", render_mode="rgb_array")
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
    frame = env.render()            # (128, 128, 3) uint8, the scorer's camera
"""

from ._lib import VlmrbError, info as _libinfo
from .env import VlmrbEnv, go_rollout, _env_id
from .spaces import HAVE_GYMNASIUM
from .vector import VlmrbVectorEnv, go_env_steps, go_vec_steps

__all__ = ["make", "make_vec", "tasks", "VlmrbEnv", "VlmrbVectorEnv", "VlmrbError", "ReplayBuffer",
           "HAVE_GYMNASIUM"]


def tasks():
    """The task names make() accepts."""
    return list(_libinfo()["tasks"])


def make(task, **options):
    """Makes one task env, like gymnasium.make. Options: render_mode
    ("rgb_array"), width, height, camera ("task", "workspace", corner, …),
    render_backend ("auto", "soft", "egl"), theme, reward ("dense" or
    "sparse"), engine ("" or "articulated", the tabletop's only engine:
    MuJoCo's equations on the task's MJCF scene, as train's engine key;
    "sim", the old engine, was removed and is refused),
    max_episode_steps, hide_goal, terminate_on_success, freeze_layout,
    layout_seed."""
    return VlmrbEnv(task, **options)


def make_vec(task, num_envs=1, **options):
    """Makes num_envs copies stepped in Go threads, like gymnasium.make_vec
    (options as make, plus copy=True|False)."""
    return VlmrbVectorEnv(task, num_envs, **options)


def _register():
    try:
        import gymnasium
    except ImportError:
        return
    for t in tasks():
        eid = _env_id(t)
        if eid not in gymnasium.registry:
            gymnasium.register(id=eid, entry_point="vlmrb.env:VlmrbEnv", kwargs={"task": t},
                               max_episode_steps=None)


_register()

from .replay import ReplayBuffer  # noqa: E402  (needs the library loaded above)
