#!/usr/bin/env bash
# Speed of the anchors' tabletop (sim/mjcf/testdata/tabletop.xml: a
# mocap-welded hand, two servoed fingers, a cube, a drawer in a cabinet)
# on the articulated engine and on MuJoCo 2.2.2 (Debian's libmujoco-dev
# through cgo), mjbench.c's idle/push/lift scenarios interleaved in one
# process, steps per CPU-second. Prints the table of bench/RESULTS.md "The
# tabletop on the articulated engine" (whose old-engine column is gone
# with that engine).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! dpkg-query -W -f='${Status}' libmujoco-dev 2>/dev/null | grep -q 'install ok installed'; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get install -y libmujoco-dev
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -tags mujoco -o "$tmp/bench-mujoco" ./bench/mujoco
"$tmp/bench-mujoco" tabletop -rounds "${ROUNDS:-3}" -episodes "${EPISODES:-6}" sim/mjcf/testdata/tabletop.xml
