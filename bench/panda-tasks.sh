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
# task (control.EpisodeSeed(1, 0, k), k = 0..19), through the CLI.
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
