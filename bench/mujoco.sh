#!/usr/bin/env bash
# Reference check of sim/mjcf against MuJoCo 2.2.2 (Debian's libmujoco-dev
# and libmujoco-samples, installed here when missing). Prints the tables of
# bench/RESULTS.md "MJCF import": compiled quantities and trajectories,
# load-or-refuse of every sample model, and speed side by side.
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
go build -tags mujoco -o /tmp/vlmrb-bench-mujoco ./bench/mujoco
/tmp/vlmrb-bench-mujoco compare sim/mjcf/testdata/arm6.xml sim/mjcf/testdata/gripper.xml $M/humanoid/humanoid.xml $M/tendon_arm/arm26.xml
echo
/tmp/vlmrb-bench-mujoco refuse $M
echo
/tmp/vlmrb-bench-mujoco speed -rounds "${ROUNDS:-5}" -steps "${STEPS:-10000}" $M/humanoid/humanoid.xml sim/mjcf/testdata/arm6.xml sim/mjcf/testdata/gripper.xml
