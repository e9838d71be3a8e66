#!/usr/bin/env bash
# Speed of sim/articulated against native MuJoCo 2.2.2 (Debian's
# libmujoco-dev and libmujoco-samples, installed here when missing) on the
# project's arm and gripper and MuJoCo's sample humanoid (contacts on),
# then the anchors' tabletop scenarios; steps per CPU-second, interleaved
# rounds. bench/articulated-speed.sh adds MuJoCo 3.3.8 and the feature
# models. Trajectories are compared with MuJoCo 3.3.8 in sim/mjcf's tests.
set -euo pipefail
cd "$(dirname "$0")/.."
need=()
for p in libmujoco-dev libmujoco-samples; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get install -y "${need[@]}"
fi
M=/usr/share/mujoco/model
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -tags mujoco -o "$tmp/bench-mujoco" ./bench/mujoco
"$tmp/bench-mujoco" artspeed -node=false -rounds "${ROUNDS:-5}" -steps "${STEPS:-10000}" \
  sim/mjcf/testdata/arm6.xml sim/mjcf/testdata/gripper.xml $M/humanoid/humanoid.xml
echo
"$tmp/bench-mujoco" tabletop -rounds "${ROUNDS:-5}" -episodes "${EPISODES:-6}" sim/mjcf/testdata/tabletop.xml
