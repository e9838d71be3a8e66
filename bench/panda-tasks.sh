#!/usr/bin/env bash
# panda-pick and panda-push on Menagerie's Panda (issue 47, deliverable 4).
#
#   bench/panda-tasks.sh MENAGERIE_DIR            # the experts' table
#   bench/panda-tasks.sh --prepare MENAGERIE_DIR  # only the model copy
#
# MENAGERIE_DIR is a local copy of google-deepmind/mujoco_menagerie (or of
# its XMLs). franka_emika_panda/ is copied to runs/menagerie/ (ignored by
# git, where studies/panda-push.yaml points); every absent mesh file gets
# bench/menagerie_meshes.py's stand-in (a 2 cm cube). mjx_panda.xml
# collides through primitives only (finger pads, hand capsule) and every
# body has an explicit <inertial>, so the stand-ins change only the
# picture, not the physics. Then the experts run 20 fixed seeds on each
# task (control.EpisodeSeed(1, 0, k), k = 0..19), through the CLI, and the
# grasp is checked against MuJoCo 3.3.8: the pick scene in the state after
# 80 expert steps of seed 3 (the cube held at the goal; a keyframe written
# by TestArmObjectHoldScene beside the model) runs 4 s with its controls
# held in robot-train simulate and in scripts/mujoco-oracle.sh, and the
# table prints the cube's height and the largest qpos difference each
# second (needs node and npm, as the oracle does).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
prepare=0
if [ "${1:-}" = "--prepare" ]; then
	prepare=1
	shift
fi
if [ $# -ne 1 ] || [ ! -f "$1/franka_emika_panda/mjx_panda.xml" ]; then
	echo "usage: bench/panda-tasks.sh [--prepare] MENAGERIE_DIR: the folder of a local Menagerie copy (with franka_emika_panda/mjx_panda.xml)" >&2
	exit 2
fi
dst="$here/runs/menagerie"
mkdir -p "$dst"
rm -rf "$dst/franka_emika_panda.tmp"
cp -r "$1/franka_emika_panda" "$dst/franka_emika_panda.tmp"
stand=$(python3 "$here/bench/menagerie_meshes.py" "$dst/franka_emika_panda.tmp/mjx_panda.xml")
rm -rf "$dst/franka_emika_panda"
mv "$dst/franka_emika_panda.tmp" "$dst/franka_emika_panda"
model="$dst/franka_emika_panda/mjx_panda.xml"
echo "model: runs/menagerie/franka_emika_panda/mjx_panda.xml ($stand stand-in mesh files)"
[ $prepare -eq 1 ] && exit 0
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$here" && go build -o "$work/robot-train" ./cmd/robot-train)
for task in pick push; do
	"$work/robot-train" eval --policy expert --model "$model" --task "$task" --episodes 20 --seed 1
done
hold="$dst/franka_emika_panda/vlmrb_hold.xml"
(cd "$here" && VLMRB_PANDA="$model" VLMRB_PANDA_HOLD="$hold" go test -count=1 -run TestArmObjectHoldScene ./tasks/ >/dev/null)
"$work/robot-train" simulate --model "$hold" --keyframe hold --duration 4 --every 500 --json >"$work/ours.jsonl"
"$here/scripts/mujoco-oracle.sh" --model "$hold" --keyframe hold --duration 4 --every 500 >"$work/mj.jsonl"
python3 - "$work/ours.jsonl" "$work/mj.jsonl" <<'PY'
import json, sys
ours = [json.loads(l) for l in open(sys.argv[1])]
mj = [json.loads(l) for l in open(sys.argv[2])]
print("| t (s) | cube z ours (m) | cube z MuJoCo 3.3.8 (m) | max abs dqpos |")
print("|---|---|---|---|")
for a, b in zip(ours, mj):
    d = max(abs(x - y) for x, y in zip(a["qpos"], b["qpos"]))
    print("| %.1f | %.5f | %.5f | %.1e |" % (a["time"], a["qpos"][11], b["qpos"][11], d))
PY
