#!/usr/bin/env bash
# How each theme of the scorer's frames changes what the pixel scorer sees,
# without training: N expert and N random-policy clips of a task in each
# theme, scored at the training default 224×224, same seed and clips across
# themes (DoorKey tasks: 96×96 tiles, the studies' size). Prints per theme the mean score of each policy, the share of
# clips above the 0.5 threshold (what VLM-RB's sampler sees) and
# P(expert clip > random clip), the ranking's AUC (ties count ½).
# Usage: bench/theme-scores.sh [TASK [N [SEED]]]   (defaults: window-open 48 3)
set -euo pipefail
task=${1:-window-open}; n=${2:-48}; seed=${3:-3}
size=224x224; case $task in doorkey-*) size=96x96 ;; esac
cd "$(dirname "$0")/.."
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/robot-train" ./cmd/robot-train
printf '| theme | expert mean | random mean | expert > 0.5 | random > 0.5 | P(expert > random) |\n|---|---|---|---|---|---|\n'
for theme in standard misleading abstract; do
  for pol in expert random; do
    "$tmp/robot-train" score --source "sim:$task" --scorer pixel --policy "$pol" --clips "$n" \
      --seed "$seed" --size "$size" --theme "$theme" --json |
      sed -n 's/.*"score":\([0-9.e+-]*\).*/\1/p' > "$tmp/$pol"
  done
  awk -v theme="$theme" '
    FNR == 1 { f++ }
    f == 1 { e[++ne] = $1 } f == 2 { r[++nr] = $1 }
    END {
      for (i = 1; i <= ne; i++) { se += e[i]; he += e[i] > 0.5 }
      for (j = 1; j <= nr; j++) { sr += r[j]; hr += r[j] > 0.5 }
      for (i = 1; i <= ne; i++) for (j = 1; j <= nr; j++) w += (e[i] > r[j]) + 0.5 * (e[i] == r[j])
      printf "| %s | %.3f | %.3f | %.2f | %.2f | %.3f |\n", theme, se/ne, sr/nr, he/ne, hr/nr, w/(ne*nr)
    }' "$tmp/expert" "$tmp/random"
done
