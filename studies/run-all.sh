#!/bin/sh
# Runs every learning study of issues 15 and 16, in the order bench/RESULTS.md
# gives, into studies/results/NAME, two trainings at a time by default. Each
# `study run` skips finished runs and resumes interrupted ones, so this script
# can be killed and rerun at any point; it stops at the first study that fails.
#   studies/run-all.sh [ROBOT_TRAIN] [PARALLEL]
# ROBOT_TRAIN defaults to a binary built from this checkout into a temporary
# folder; PARALLEL to 2 (the project's 2-core machine: two trainings at once).
# CPU-hours on that machine (2026-12-01): vlmrb-sparse ≈ 9, sac-sparse ≈ 2,
# doorkey5-dqn ≈ 0.5, variants ≈ 2, lambda ≈ 2, themes ≈ 6, doorkey ≈ 5,
# doorkey-themes ≈ 1. Then: robot-train study report studies/results/NAME.
set -eu
cd "$(dirname "$0")/.."
bin=${1:-}
par=${2:-2}
if [ -z "$bin" ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	go build -o "$tmp/robot-train" ./cmd/robot-train
	bin=$tmp/robot-train
fi
# the main comparison's cheap arms for every seed first, then its pixel arm
"$bin" study run studies/vlmrb-sparse.yaml --out studies/results/vlmrb-sparse --parallel "$par" --arms uniform,per,relo,vlmrb-oracle
for s in doorkey5-dqn vlmrb-sparse sac-sparse variants lambda themes doorkey doorkey-themes; do
	"$bin" study run "studies/$s.yaml" --out "studies/results/$s" --parallel "$par"
done
