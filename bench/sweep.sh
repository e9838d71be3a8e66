#!/usr/bin/env bash
# Replay/scorer sweep of issue 9: eval success vs env steps, 3 seeds.
# Usage: bench/sweep.sh OUTDIR [task ...]   (defaults: reach push pick-place)
# Each run: robot-train train --config bench/sweep-30k.yaml --task T --replay R --scorer S --seed N
# About 75 CPU-seconds per run; 36 runs in all on the default tasks.
set -euo pipefail
out=${1:?usage: bench/sweep.sh OUTDIR [task ...]}; shift || true
if [ $# -gt 0 ]; then tasks=("$@"); else tasks=(reach push pick-place); fi
mkdir -p "$out"
cd "$(dirname "$0")/.."
go build -o "$out/robot-train" ./cmd/robot-train
for t in "${tasks[@]}"; do
  for rs in uniform:pixel per:pixel vlmrb:pixel vlmrb:oracle; do
    r=${rs%%:*}; s=${rs##*:}
    for seed in 1 2 3; do
      name=$t-$r-$s-s$seed
      [ -f "$out/$name/done" ] && continue
      "$out/robot-train" train --config bench/sweep-30k.yaml --task "$t" --replay "$r" --scorer "$s" \
        --seed "$seed" --quiet --out "$out/$name" > "$out/$name.log" 2>&1 && touch "$out/$name/done"
    done
  done
done
echo "eval/success_rate per run is in $out/*/metrics.csv"
