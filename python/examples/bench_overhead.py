"""Overhead of stepping vlmrb envs from Python: steps/s of the single env
and of an N-env vector env from Python against the same envs stepped in Go
(tasks.Env, and tasks.MakeVec's control.VecEnv), in one process, with the
same precomputed actions, rounds interleaved so machine load hits both.

    PYTHONPATH=python /usr/bin/python3 python/examples/bench_overhead.py [--task reach] [--envs 8]
"""

import argparse
import statistics
import time

import numpy as np

import vlmrb


def timed(f):
    t = time.perf_counter()
    f()
    return time.perf_counter() - t


def py_single(task, acts, seed):
    env = vlmrb.make(task)
    env.reset(seed=seed)
    k = 0

    def run():
        nonlocal k
        for a in acts:
            _, _, te, tr, _ = env.step(a)
            if te or tr:
                k += 1
                env.reset(seed=seed + k)
    dt = timed(run)
    env.close()
    return dt


def py_vec(task, n, acts, seed, mode):
    v = vlmrb.make_vec(task, n, copy=(mode == "copy"))
    v.reset(seed=seed)
    if mode == "step_into":
        obs, rew = np.empty((n, 39)), np.empty(n)
        te, tr = np.empty(n, bool), np.empty(n, bool)
        inf = np.empty((n, len(v.info_keys)))

        def run():
            for a in acts:
                v.step_into(a, obs, rew, te, tr, inf)
    else:
        def run():
            for a in acts:
                v.step(a)
    dt = timed(run)
    v.close()
    return dt


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--task", default="reach")
    p.add_argument("--envs", type=int, default=8)
    p.add_argument("--steps", type=int, default=4000, help="single-env steps per round")
    p.add_argument("--vec-steps", type=int, default=1000, help="vector steps per round (each steps --envs envs)")
    p.add_argument("--rounds", type=int, default=5)
    a = p.parse_args()
    rng = np.random.default_rng(0)
    acts1 = rng.uniform(-1, 1, size=(a.steps, 4))
    actsN = rng.uniform(-1, 1, size=(a.vec_steps, a.envs, 4))
    res = {k: [] for k in ("go1", "py1", "goN", "pyN_step_into", "pyN_nocopy", "pyN_copy")}
    for r in range(a.rounds):
        res["go1"].append(a.steps / timed(lambda: vlmrb.go_env_steps(a.task, r, acts1)))
        res["py1"].append(a.steps / py_single(a.task, acts1, r))
        res["goN"].append(a.vec_steps * a.envs / timed(lambda: vlmrb.go_vec_steps(a.task, a.envs, r, actsN)))
        for mode in ("step_into", "nocopy", "copy"):
            res["pyN_" + mode].append(a.vec_steps * a.envs / py_vec(a.task, a.envs, actsN, r, mode))
    med = {k: statistics.median(v) for k, v in res.items()}
    print("task %s, %d rounds (median env-steps/s; overhead = 1 - python/go)" % (a.task, a.rounds))
    print("  single env  go %9.0f  python %9.0f  overhead %5.1f%%" % (med["go1"], med["py1"], 100 * (1 - med["py1"] / med["go1"])))
    for mode in ("step_into", "nocopy", "copy"):
        k = "pyN_" + mode
        print("  %d envs      go %9.0f  python %9.0f  overhead %5.1f%%  (%s)" % (
            a.envs, med["goN"], med[k], 100 * (1 - med[k] / med["goN"]), mode))


if __name__ == "__main__":
    main()
