"""MiniGrid's DoorKey speed anchor measured in CPU time, for bench/minigrid_vs_go.sh.

The workload of research/anchors/minigrid/mgbench.py (random actions, the 7×7×3 egocentric
observation of every step, reset at episode end) for SECONDS of CPU time each on DoorKey-8×8
and 16×16, printing steps per CPU-second and per wall second. CPU time makes the figure
comparable with the Go benchmark's steps/cpu-s when other jobs share the machine.
Usage: python3 mgbench_cpu.py MINIGRID_SRC [SECONDS]  (MINIGRID_SRC: the anchor's src/)
"""
import sys
import time

sys.path.insert(0, sys.argv[1])
import numpy as np  # noqa: E402
from minigrid.envs.doorkey import DoorKeyEnv  # noqa: E402

seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 3.0
for size in (8, 16):
    env = DoorKeyEnv(size=size)
    env.reset(seed=0)
    acts = np.random.default_rng(0).integers(0, 7, size=200000)
    n = 0
    c0, w0 = time.process_time(), time.perf_counter()
    while time.process_time() - c0 < seconds:
        _, _, term, trunc, _ = env.step(int(acts[n % len(acts)]))
        n += 1
        if term or trunc:
            env.reset()
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    print(f"minigrid doorkey-{size}x{size} {n / cpu:.0f} steps/cpu-s {n / wall:.0f} steps/s")
