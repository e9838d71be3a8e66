#!/bin/sh
# Runs every learning study of issues 15 and 16, in the order bench/RESULTS.md
# gives, into studies/results/NAME, two trainings at a time by default. Each
# `study run` skips finished runs and resumes interrupted ones, so this script
# can be killed and rerun at any point; it stops at the first study that fails.
#   studies/run-all.sh [ROBOT_TRAIN] [PARALLEL]
# ROBOT_TRAIN defaults to a binary built from this checkout into a temporary
# folder; PARALLEL to 2 (the project's 2-core machine: two trainings at once).
# CPU-hours on that machine (2026-12-02): vlmrb-sparse 13.1 (done), default-dense 2.9
# (done), variants 3.6 (done), doorkey-demos 1.9 (done; its ReLo, AER, ERO and
# score × TD arms added that day ≈ 1.8 more), doorkey5-dqn ≈ 0.5 (done),
# variants-confirm 1.3 (done), lambda 3.3 (done), doorkey-themes 2.8 (done),
# themes 3.2 (done), doorkey12-demos 4.4 (done), doorkey12-long ≈ 2.3 and doorkey12-long2
# ≈ 1.2 (2026-12-03, a quiet machine: ≈ 280 CPU-s a 12×12 run of 800k steps), doorkey (8×8) ≈ 2.6, vlmrb-demos ≈ 3.7,
# pixel-scoremap ≈ 6.7, sac-sparse ≈ 2.
# Then: robot-train study report studies/results/NAME.
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
# the cheap arms of the main comparison and of the mechanism test
# (vlmrb-demos) for every seed first, then their pixel arms
"$bin" study run studies/vlmrb-sparse.yaml --out studies/results/vlmrb-sparse --parallel "$par" --arms uniform,per,relo,vlmrb-oracle
"$bin" study run studies/doorkey5-dqn.yaml --out studies/results/doorkey5-dqn --parallel "$par"
"$bin" study run studies/vlmrb-demos.yaml --out studies/results/vlmrb-demos --parallel "$par" --arms uniform,per,vlmrb-oracle
"$bin" study run studies/vlmrb-sparse.yaml --out studies/results/vlmrb-sparse --parallel "$par"
# default-dense decided the main job's replay (its rule is in the file);
# then the open VLM-RB choices, the paper's DoorKey grid, the rest
for s in default-dense variants variants-confirm lambda doorkey-themes themes doorkey-demos doorkey12-demos doorkey12-long doorkey12-long2 doorkey vlmrb-demos pixel-scoremap sac-sparse; do
	"$bin" study run "studies/$s.yaml" --out "studies/results/$s" --parallel "$par"
done
