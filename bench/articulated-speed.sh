#!/usr/bin/env bash
# Speed of sim/articulated against MuJoCo 2.2.2 (native, Debian's
# libmujoco-dev through cgo) and MuJoCo 3.3.8 (npm mujoco-js, WebAssembly
# in Node), interleaved rounds on the same files and timesteps: the
# project's feature models (sim/mjcf/testdata/articulated) and MuJoCo's
# sample humanoid with contacts disabled (the engine has no contacts yet).
# Prints the table of bench/RESULTS.md "Articulated engine".
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
./scripts/mujoco-oracle.sh --install-only >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed 's|<option timestep="0.005"/>|<option timestep="0.005"><flag contact="disable"/></option>|' \
  /usr/share/mujoco/model/humanoid/humanoid.xml > "$tmp/humanoid_nocontact.xml"
go build -tags mujoco -o "$tmp/bench-mujoco" ./bench/mujoco
T=sim/mjcf/testdata/articulated
"$tmp/bench-mujoco" artspeed -rounds "${ROUNDS:-5}" -steps "${STEPS:-20000}" \
  $T/hinge_chain.xml $T/slide_hinge.xml $T/ball.xml $T/free.xml $T/actuators.xml $T/nogravity.xml \
  $T/combined.xml $T/stiff_arm.xml $T/limits.xml $T/friction.xml $T/equality.xml $T/weld.xml \
  $T/sites.xml $T/tendon.xml $T/tendon_implicit.xml $T/rk4_limits.xml "$tmp/humanoid_nocontact.xml"
