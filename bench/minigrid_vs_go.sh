#!/usr/bin/env bash
# DoorKey env steps: tasks/grid against MiniGrid's own DoorKeyEnv, interleaved in one sitting.
# Each round runs the Go benchmark (`BenchmarkStep`, "fast": StepIndex + Observe; "env":
# control.Env.Step) and the anchor's workload in Python (bench/mgbench_cpu.py), both on one core
# and both in CPU time, so that other jobs on the machine slow them alike; it prints each
# round's ratios and then the median ratio with its range.
# Usage: bench/minigrid_vs_go.sh MINIGRID_SRC [ROUNDS [SECONDS]]
#   MINIGRID_SRC: the src/ folder that research/anchors/minigrid/setup.sh lays out
#   (it needs Debian's python3-numpy, python3-cloudpickle, python3-pygame and
#   python3-typing-extensions).
set -euo pipefail
src=${1:?usage: bench/minigrid_vs_go.sh MINIGRID_SRC [ROUNDS [SECONDS]]}
rounds=${2:-5}; secs=${3:-3}
src=$(cd "$src" && pwd)
cd "$(dirname "$0")/.."
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
go test -c -o "$tmp/grid.test" ./tasks/grid
for r in $(seq "$rounds"); do
  "$tmp/grid.test" -test.run '^$' -test.bench 'BenchmarkStep' -test.benchtime "${secs}s" -test.cpu 1 |
    awk -v r="$r" '/steps\/cpu-s/ { for (i = 1; i < NF; i++) if ($(i+1) == "steps/cpu-s") v = $i;
      split($1, p, "/"); print r, "go", p[2] "/" p[3], v }' >> "$tmp/rows"
  /usr/bin/python3 bench/mgbench_cpu.py "$src" "$secs" |
    awk -v r="$r" '{ print r, "mg", $2, $3 }' >> "$tmp/rows"
done
awk '
  $2 == "mg" { mg[$1 " " $3] = $4 }
  $2 == "go" { split($3, p, "/"); go[$1 " " p[1] " " p[2]] = $4; sizes[p[1]]; paths[p[2]]; rounds[$1] }
  END {
    printf "| round | task | MiniGrid steps/cpu-s | Go fast | Go env | fast / MiniGrid | env / MiniGrid |\n|---|---|---|---|---|---|---|\n"
    for (r in rounds) for (s in sizes) {
      m = mg[r " " s]; f = go[r " " s " fast"]; e = go[r " " s " env"]
      printf "| %s | %s | %.0f | %.0f | %.0f | %.0f× | %.0f× |\n", r, s, m, f, e, f / m, e / m
      print s, "fast", f / m > "/dev/stderr"; print s, "env", e / m > "/dev/stderr"
    }
  }' "$tmp/rows" 2> "$tmp/ratios" | sort -t'|' -k2,2n -k3,3
echo
# median and range of each ratio over the rounds (plain awk has no sort)
for k in $(awk '{ print $1 "/" $2 }' "$tmp/ratios" | sort -u); do
  awk -v k="$k" '$1 "/" $2 == k { print $3 }' "$tmp/ratios" | sort -g |
    awk -v k="$k" '{ a[NR] = $1 } END { m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2
      printf "%s: median %.0f× (range %.0f–%.0f×, %d rounds)\n", k, m, a[1], a[NR], NR }'
done
