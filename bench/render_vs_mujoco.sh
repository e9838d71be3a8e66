#!/bin/sh
# Interleaved render comparison, one sitting: vlmrb scorer frames (224×224,
# task camera, scenery with the arm, shadows, 4× MSAA; EGL/llvmpipe) against
# MuJoCo 2.2.2's renderer (224×224, default flags: shadows and reflections;
# EGL/llvmpipe) from the anchors' mujoco_bench harness.
#
# usage: bench/render_vs_mujoco.sh ANCHORS_DIR [ROUNDS] [SECONDS]
#   ANCHORS_DIR holds tabletop.xml and mujoco_bench/ built with `make mjbench`
#   (research/anchors in the shared folder; see its README for packages).
#
# Each round runs MuJoCo, then vlmrb, each with LP_NUM_THREADS=0 (llvmpipe
# rasterizes on the calling thread). Per round it prints frames/s and CPU
# time per frame (process CPU incl. llvmpipe threads) of both, and their
# ratios; at the end the median and range of each ratio. On a loaded machine
# the CPU-per-frame ratio is the steadier one: wall-clock frames/s depends on
# how many cores the scheduler grants each process.
set -eu
anchors=${1:?usage: $0 ANCHORS_DIR [ROUNDS] [SECONDS]}
rounds=${2:-5}
secs=${3:-2}
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$here" && go test -c -o "$tmp/render.test" ./render)
export LP_NUM_THREADS=0
i=1
while [ "$i" -le "$rounds" ]; do
	"$anchors/mujoco_bench/mjbench" "$anchors/tabletop.xml" "$secs" --render egl >"$tmp/mj.txt" 2>&1
	mj_fps=$(awk '/render 224x224 default-flags/ {for (k=1;k<=NF;k++) if ($k=="=") {print $(k+1); exit}}' "$tmp/mj.txt")
	mj_cpu=$(awk '/render 224x224 default-flags/ {f=1; next} f && /own_cpu=/ {sub(/.*own_cpu=/,""); sub(/ .*/,""); print; exit}' "$tmp/mj.txt")
	(cd "$here/render" && "$tmp/render.test" -test.run '^$' -test.bench 'ScorerFrame/egl/arm_shadow_msaa4/224$' -test.benchtime "${secs}s") >"$tmp/go.txt" 2>&1
	go_fps=$(awk '/ScorerFrame/ {for (k=1;k<=NF;k++) if ($k=="frames/s") print $(k-1)}' "$tmp/go.txt")
	go_us=$(awk '/ScorerFrame/ {for (k=1;k<=NF;k++) if ($k=="cpu-µs/frame") print $(k-1)}' "$tmp/go.txt")
	if [ -z "$mj_fps" ] || [ -z "$go_fps" ]; then
		echo "round $i: a benchmark failed"; cat "$tmp/mj.txt" "$tmp/go.txt"; exit 1
	fi
	awk -v i="$i" -v mf="$mj_fps" -v mc="$mj_cpu" -v gf="$go_fps" -v gu="$go_us" 'BEGIN {
		mus = mc / mf * 1e6
		printf "round %d: mujoco %.1f frames/s %.0f cpu-us/frame | vlmrb %.1f frames/s %.0f cpu-us/frame | wall ratio %.2f  cpu ratio %.2f\n", i, mf, mus, gf, gu, gf / mf, mus / gu
	}' | tee -a "$tmp/rounds.txt"
	i=$((i + 1))
done
for col in "wall ratio" "cpu ratio"; do
	awk -v c="$col" '{ for (k=1;k<=NF;k++) if ($k" "$(k+1)==c) print $(k+2) }' "$tmp/rounds.txt" | sort -g |
		awk -v c="$col" '{ v[NR]=$1 } END { m = (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2; printf "%s: median %.2f, range %.2f–%.2f over %d rounds\n", c, m, v[1], v[NR], NR }'
done
