"""Writes minigrid_trace.json: MiniGrid's own DoorKey on fixed layouts under
seeded random actions, for grid_test.go's TestMatchesMiniGrid.

Run with MiniGrid and Gymnasium importable (e.g. in the folder prepared by
the minigrid speed anchor's setup.sh):  python3 minigrid_trace.py > minigrid_trace.json
"""
import json, sys
import numpy as np
sys.path.insert(0, "src")
from minigrid.envs.doorkey import DoorKeyEnv
from minigrid.core.grid import Grid
from minigrid.core.world_object import Door, Goal, Key

def set_layout(env, l):
    n = l["size"]
    env.grid = Grid(n, n)
    env.grid.wall_rect(0, 0, n, n)
    env.put_obj(Goal(), n - 2, n - 2)
    env.grid.vert_wall(l["split"], 0)
    env.agent_pos = (l["ax"], l["ay"])
    env.agent_dir = l["dir"]
    env.put_obj(Door("yellow", is_locked=True), l["split"], l["door"])
    env.put_obj(Key("yellow"), l["kx"], l["ky"])
    env.carrying = None
    env.step_count = 0

layouts = [
    dict(size=5, split=2, door=1, kx=1, ky=3, ax=1, ay=2, dir=1),
    dict(size=6, split=3, door=2, kx=2, ky=4, ax=1, ay=1, dir=0),
    dict(size=8, split=4, door=3, kx=2, ky=5, ax=3, ay=2, dir=2),
    dict(size=8, split=2, door=5, kx=1, ky=1, ax=1, ay=6, dir=3),
    dict(size=16, split=9, door=7, kx=5, ky=12, ax=8, ay=3, dir=1),
]
DIRS = [(1, 0), (0, 1), (-1, 0), (0, -1)]

def planner(env):
    """First action of a shortest (left/right/forward) path to face the
    current sub-goal: the key, then the door, then the goal."""
    g = env.grid
    door = next(o for o in g.grid if o is not None and o.type == "door")
    if door.is_open:
        want, final = (lambda o: o is not None and o.type == "goal"), 2
    elif door.is_locked and env.carrying is None:
        want, final = (lambda o: o is not None and o.type == "key"), 3
    else:
        want, final = (lambda o: o is door), 5
    start = (int(env.agent_pos[0]), int(env.agent_pos[1]), int(env.agent_dir))
    def faces(s):
        x, y, d = s
        return want(g.get(x + DIRS[d][0], y + DIRS[d][1]))
    if faces(start):
        return final
    parent = {start: None}
    queue = [start]
    for s in queue:
        x, y, d = s
        fx, fy = x + DIRS[d][0], y + DIRS[d][1]
        f = g.get(fx, fy)
        nxt = [(x, y, (d + 3) % 4), (x, y, (d + 1) % 4), None]
        if (f is None or f.can_overlap()) and not (f is not None and f.type == "goal"):
            nxt[2] = (fx, fy, d)
        for a, t in enumerate(nxt):
            if t is None or t in parent:
                continue
            parent[t] = (s, a)
            if faces(t):
                while parent[t][0] != start:
                    t = parent[t][0]
                return parent[t][1]
            queue.append(t)
    return 6

out = []
for li, l in enumerate(layouts):
    env = DoorKeyEnv(size=l["size"], max_steps=60)
    env.reset(seed=0)
    set_layout(env, l)
    rng = np.random.default_rng(li)
    # the planner's action with probability 0.6, else a uniform random one,
    # so keys are picked up and dropped, doors opened and closed, goals reached
    steps = []
    for _ in range(250):
        a = planner(env) if rng.random() < 0.6 else int(rng.integers(0, 7))
        obs, r, term, trunc, _ = env.step(a)
        steps.append(dict(a=a, img=obs["image"].reshape(-1).tolist(), dir=int(obs["direction"]),
                          r=float(r), term=bool(term), trunc=bool(trunc),
                          pos=[int(env.agent_pos[0]), int(env.agent_pos[1])]))
        if term or trunc:
            set_layout(env, l)
            steps[-1]["reset"] = True
    out.append(dict(layout=l, max_steps=60, steps=steps))
json.dump(out, sys.stdout, separators=(",", ":"))
