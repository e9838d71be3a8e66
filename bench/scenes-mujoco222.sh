#!/usr/bin/env bash
# Speed of the tabletop scene files (tasks/scenes/*.xml) on the articulated
# engine against native MuJoCo 2.2.2 (bench/mujoco artspeed: -steps steps
# from qpos0 with zero controls, interleaved rounds, steps per CPU-second)
# and MuJoCo 3.3.8 (WebAssembly). MuJoCo 2.2.2 knows neither the position
# actuator's kv nor body gravcomp, so both engines run a variant written
# to a temporary folder: the servos as the equivalent general actuators
# (gain kp, affine bias 0 −kp −kv) and no gravcomp (the hand then hangs
# on its weld and the button sags on its spring: the same physics on both
# engines, not the tasks'). Needs libmujoco-dev 2.2.2 (bench/mujoco.sh
# installs it) and node for the WebAssembly column.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in tasks/scenes/*.xml; do
	sed -e 's|<position kp="\([^"]*\)" kv="\([^"]*\)" forcerange="\([^"]*\)" ctrlrange="\([^"]*\)"/>|<general gainprm="\1" biastype="affine" biasprm="0 -\1 -\2" forcelimited="true" forcerange="\3" ctrllimited="true" ctrlrange="\4"/>|' \
		-e 's|<position name=|<general name=|' -e 's| gravcomp="1"||' "$f" >"$tmp/$(basename "$f")"
done
go build -tags mujoco -o "$tmp/mjbench" ./bench/mujoco
"$tmp/mjbench" artspeed -rounds "${ROUNDS:-3}" -steps "${STEPS:-10000}" "$tmp"/*.xml
