#!/usr/bin/env bash
# ERL-VLM vs the sparse task reward (issue 11): drawer-open and sweep-into,
# 3 seeds, the same budget and SAC settings (bench/erlvlm-100k.yaml); the
# erlvlm arm learns its reward from oracle ratings with 20% label noise.
# Usage: bench/erlvlm.sh OUTDIR [task ...]   (PARALLEL=2 runs at a time;
# CONFIG=FILE replaces bench/erlvlm-100k.yaml; STEPS=N overrides its budget)
# Then each final checkpoint is evaluated on 50 fresh episodes (success,
# and the dense return as a finer measure of progress) and a table printed.
set -euo pipefail
out=${1:?usage: bench/erlvlm.sh OUTDIR [task ...]}; shift || true
if [ $# -gt 0 ]; then tasks=("$@"); else tasks=(drawer-open sweep-into); fi
mkdir -p "$out"
cd "$(dirname "$0")/.."
go build -o "$out/robot-train" ./cmd/robot-train
jobs=()
for t in "${tasks[@]}"; do
  for seed in 1 2 3; do
    for arm in erlvlm sparse; do jobs+=("$t $arm $seed"); done
  done
done
run_one() {
  local out=$1 t=$2 arm=$3 seed=$4 name=$2-$3-s$4
  [ -f "$out/$name/done" ] && return 0
  rm -rf "${out:?}/$name"
  "$out/robot-train" train --config "${CONFIG:-bench/erlvlm-100k.yaml}" --task "$t" --reward "$arm" \
    --seed "$seed" ${STEPS:+--steps "$STEPS"} --quiet --out "$out/$name" > "$out/$name.log" 2>&1 && touch "$out/$name/done"
}
export -f run_one; export CONFIG STEPS
printf '%s\n' "${jobs[@]}" | xargs -P "${PARALLEL:-2}" -L 1 bash -c 'run_one "$0" $1 $2 $3' "$out"

printf '%-12s %-7s %-4s %-8s %-9s %s\n' task reward seed success dense_ret "expert_spearman(final)"
for j in "${jobs[@]}"; do
  set -- $j; name=$1-$2-s$3
  [ -f "$out/$name/done" ] || { echo "$name did not finish (see $out/$name.log)"; continue; }
  s=$("$out/robot-train" eval --checkpoint "$out/$name" --episodes 50 --seed 7 --json | sed -n 's/.*"success_rate":\([^,]*\).*/\1/p')
  d=$("$out/robot-train" eval --checkpoint "$out/$name" --episodes 50 --seed 7 --reward dense --json | sed -n 's/.*"mean_return":\([^,]*\).*/\1/p')
  rho=$(grep -o '"eval/reward_expert_spearman":[^,}]*' "$out/$name/metrics.jsonl" | tail -1 | cut -d: -f2 || true)
  printf '%-12s %-7s %-4s %-8s %-9.1f %s\n' "$1" "$2" "$3" "$s" "$d" "${rho:--}"
done
