"""Numbers for bench/menagerie.sh from simulate/oracle JSON lines.

  drift FILE.jsonl          max |qpos(t) - qpos(0)| over the lines, and NaNs
  final A.jsonl B.jsonl     max |qpos_A - qpos_B| at the last common time
  field FILE.json NAME      one field of a JSON object (the oracle's --speed)
"""
import json
import math
import sys


def lines(path):
    with open(path) as f:
        return [json.loads(s) for s in f if s.strip()]


def main():
    cmd = sys.argv[1]
    if cmd == "drift":
        xs = lines(sys.argv[2])
        if not xs:
            print("no output")
            return
        q0 = xs[0]["qpos"]
        worst, t_end = 0.0, xs[-1]["time"]
        for x in xs:
            for a, b in zip(x["qpos"], q0):
                d = abs(a - b)
                if math.isnan(d):
                    print("NaN at t=%g" % x["time"])
                    return
                worst = max(worst, d)
        print("%.3g over %g s" % (worst, t_end))
    elif cmd == "final":
        a, b = lines(sys.argv[2]), lines(sys.argv[3])
        if not a or not b:
            print("no output")
            return
        x, y = a[-1], b[-1]
        if abs(x["time"] - y["time"]) > 1e-9:
            print("times differ: %g vs %g" % (x["time"], y["time"]))
            return
        if len(x["qpos"]) != len(y["qpos"]):
            print("nq differs: %d vs %d" % (len(x["qpos"]), len(y["qpos"])))
            return
        print("%.3g" % max((abs(p - q) for p, q in zip(x["qpos"], y["qpos"])), default=0.0))
    elif cmd == "field":
        with open(sys.argv[2]) as f:
            v = json.loads(f.read().strip().splitlines()[-1])[sys.argv[3]]
        print("%.6g" % v if isinstance(v, float) else v)
    else:
        sys.exit("unknown command " + cmd)


main()
