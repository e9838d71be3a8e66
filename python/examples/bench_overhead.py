"""Overhead of stepping vlmrb envs from Python: steps/s of the single env
and of an N-env vector env from Python against the same envs stepped in Go
(tasks.Env, and tasks.MakeVec's control.VecEnv), in one process, with the
same precomputed actions, rounds interleaved so machine load hits both.

Two clocks: wall time, and the process's CPU time (every thread, Go's
included), which other processes on a shared machine disturb much less.
The overhead is the median over rounds of 1 − python/go, each round's
Python run paired with the Go run just before it.

    PYTHONPATH=python /usr/bin/python3 python/examples/bench_overhead.py [--task reach] [--envs 8]
"""

import argparse
import time

import numpy as np

import vlmrb


def timed(f):
    t, c = time.perf_counter(), time.process_time()
    f()
    return np.array([time.perf_counter() - t, time.process_time() - c])


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
    modes = ("step_into", "nocopy", "copy")
    rows = [("single env", "go1", "py1")] + [("%d envs %s" % (a.envs, m), "goN", "pyN_" + m) for m in modes]
    res = {k: [] for k in ("go1", "py1", "goN") + tuple("pyN_" + m for m in modes)}
    for r in range(a.rounds):
        res["go1"].append(a.steps / timed(lambda: vlmrb.go_env_steps(a.task, r, acts1)))
        res["py1"].append(a.steps / py_single(a.task, acts1, r))
        res["goN"].append(a.vec_steps * a.envs / timed(lambda: vlmrb.go_vec_steps(a.task, a.envs, r, actsN)))
        for mode in modes:
            res["pyN_" + mode].append(a.vec_steps * a.envs / py_vec(a.task, a.envs, actsN, r, mode))
    print("task %s, %d rounds: median env-steps/s; overhead = median over rounds of 1 - python/go" % (a.task, a.rounds))
    for clock, c in (("wall", 0), ("cpu", 1)):
        for name, g, p_ in rows:
            go = np.array([x[c] for x in res[g]])
            py = np.array([x[c] for x in res[p_]])
            ov = 100 * (1 - py / go)
            print("  %-4s %-20s go %9.0f  python %9.0f  overhead %5.1f%% (IQR %5.1f%% .. %5.1f%%)" % (
                clock, name, np.median(go), np.median(py), np.median(ov), np.percentile(ov, 25), np.percentile(ov, 75)))


if __name__ == "__main__":
    main()
