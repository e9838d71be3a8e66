#!/usr/bin/env python3
"""The table of issue 50's learning-parity studies (studies/python-parity.md):
Python's final success per seed from scripts/python-parity.sh's
DIR/py-S.json files against robot-train's 10 seeds of the first study
(bench/RESULTS.md, "Issue 50 (learning parity)"; robot-train's SAC, train,
tasks and replay are unchanged since and its runs are deterministic), or
against robot-train run directories given with --go DIR (final
eval/success_rate in DIR/go-S/metrics.jsonl).

Per policy (deterministic, stochastic): means and medians per side, Python −
Go with a 95% bootstrap CI (10,000 resamples, seeds resampled within each
side, fixed generator) and Welch's t. Standard library only.

    scripts/python-parity-table.py studies/python-parity-2/A
"""

import argparse
import glob
import json
import math
import os
import random
import re
import statistics as st

# robot-train train --task reach --gamma 0.99 --replay uniform --seed S --eval-episodes 50:
# final (deterministic, stochastic) success on the seed's 50 evaluation episodes (first study)
GO_FIRST_STUDY = {1: (0.76, 0.86), 2: (0.52, 0.70), 3: (0.68, 0.78), 4: (0.72, 0.92), 5: (0.72, 0.84),
                  6: (0.48, 0.68), 7: (0.62, 0.80), 8: (0.58, 0.74), 9: (0.84, 0.96), 10: (0.94, 0.98)}


def go_runs(d):
    out = {}
    for p in glob.glob(os.path.join(d, "go-*", "metrics.jsonl")):
        s = int(re.search(r"go-(\d+)", p).group(1))
        last = None
        with open(p) as f:
            for line in f:
                row = json.loads(line)
                if "eval/success_rate" in row:
                    last = row
        if last is not None:
            out[s] = (last["eval/success_rate"], last.get("eval/success_rate_stochastic", float("nan")))
    return out


def py_runs(d):
    out, cpu = {}, {}
    for p in glob.glob(os.path.join(d, "py-*.json")):
        s = int(re.search(r"py-(\d+)\.json$", p).group(1))
        with open(p) as f:
            j = json.load(f)
        out[s] = (j["eval_success"], j["eval_success_stochastic"])
        t = p[:-5] + ".time"
        if os.path.exists(t):
            with open(t) as f:
                u, sy = f.read().split()[-2:]
            cpu[s] = float(u) + float(sy)
    return out, cpu


def compare(go, py, k, resamples=10000):
    g = [go[s][k] for s in sorted(go)]
    p = [py[s][k] for s in sorted(py)]
    rng = random.Random(1)
    diffs = sorted(st.mean(rng.choices(p, k=len(p))) - st.mean(rng.choices(g, k=len(g))) for _ in range(resamples))
    lo, hi = diffs[int(0.025 * resamples) - 1], diffs[int(0.975 * resamples) - 1]
    se = math.sqrt(st.variance(g) / len(g) + st.variance(p) / len(p)) if len(g) > 1 and len(p) > 1 else float("nan")
    t = (st.mean(p) - st.mean(g)) / se if se and se == se else float("nan")
    return st.mean(g), st.median(g), st.mean(p), st.median(p), st.mean(p) - st.mean(g), lo, hi, t


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("py_dir", help="a scripts/python-parity.sh output directory")
    ap.add_argument("--go", help="robot-train run directories go-S (default: the first study's values)")
    a = ap.parse_args()
    go = go_runs(a.go) if a.go else GO_FIRST_STUDY
    py, cpu = py_runs(a.py_dir)
    if not py:
        raise SystemExit("no py-S.json in %s: run scripts/python-parity.sh first" % a.py_dir)
    seeds = sorted(set(go) | set(py))
    print("| seed | " + " | ".join(str(s) for s in seeds) + " |")
    print("|---|" + "---|" * len(seeds))
    for name, side in (("Go", go), ("Python", py)):
        print("| %s | " % name + " | ".join("%.2f / %.2f" % side[s] if s in side else "—" for s in seeds) + " |")
    print()
    if len(py) < len(go):
        print("PARTIAL: %d of %d Python seeds\n" % (len(py), len(go)))
    print("| policy | Go mean (median) | Python mean (median) | Python − Go [95% CI] | Welch t |")
    print("|---|---|---|---|---|")
    for k, name in ((0, "deterministic"), (1, "stochastic")):
        mg, dg, mp, dp, d, lo, hi, t = compare(go, py, k)
        print("| %s | %.3f (%.2f) | %.3f (%.2f) | %+.3f [%+.3f, %+.3f] | %.2f |" % (name, mg, dg, mp, dp, d, lo, hi, t))
    if cpu:
        v = sorted(cpu.values())
        print("\nPython CPU-s per run (user + system): median %.0f, range %.0f–%.0f over %d runs" % (
            st.median(v), v[0], v[-1], len(v)))


if __name__ == "__main__":
    main()
