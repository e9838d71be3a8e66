#!/usr/bin/env bash
# train --demos DATASET against the built-in demos: 2 (issue 33): records the
# two expert episodes that vlmrb-demos' first episodes are (window-open,
# seed 501, 2 envs), trains both ways for 10k steps at the study's
# settings and compares metrics.jsonl and the final agent.bin.
#   bench/lerobot-demos.sh OUT [uniform|vlmrb-oracle|vlmrb-pixel]
# The VLM-RB arms score inline (vlm.workers: 0) so a run is a function of its
# seed; vlmrb-pixel scores the recorded demonstrations from their AV1 video.
set -euo pipefail
out="${1:?usage: bench/lerobot-demos.sh OUT [uniform|vlmrb-oracle|vlmrb-pixel]}"
arm="${2:-uniform}"
cd "$(dirname "$0")/.."
export GOMAXPROCS=1 OPENBLAS_NUM_THREADS=1 OPENBLAS_CORETYPE=Haswell
mkdir -p "$out"
go build -o "$out/robot-train" ./cmd/robot-train
cat > "$out/base.yaml" <<YAML
task: window-open
reward: sparse
seed: 501
steps: 10000
num_envs: 2
sac: {hidden: [128, 128], batch_size: 128}
eval: {every: 5000, episodes: 20, gif: false}
log: {every: 5000, tensorboard: false}
checkpoint: {every: 10000, keep: 1}
YAML
case "$arm" in
  uniform) echo "replay: uniform" >> "$out/base.yaml" ;;
  vlmrb-oracle) printf 'replay: vlmrb\nscorer: oracle\nvlm: {workers: 0}\n' >> "$out/base.yaml" ;;
  vlmrb-pixel) printf 'replay: vlmrb\nscorer: pixel\nvlm: {workers: 0}\n' >> "$out/base.yaml" ;;
  *) echo "arm $arm is not uniform, vlmrb-oracle or vlmrb-pixel" >&2; exit 2 ;;
esac
rm -rf "$out/demos" "$out/builtin" "$out/dataset"
"$out/robot-train" record --task window-open --policy expert --episodes 2 --num-envs 2 --seed 501 \
  --cameras task --size 224x224 --lerobot "$out/demos"
( time "$out/robot-train" train --config "$out/base.yaml" --demos 2 --out "$out/builtin" --quiet ) 2>&1 | tail -3
( time "$out/robot-train" train --config "$out/base.yaml" --demos "$out/demos" --out "$out/dataset" --quiet ) 2>&1 | tail -3
python3 - "$out" <<'PY'
import json, sys, hashlib, glob
out = sys.argv[1]
rows = lambda p: [json.loads(l) for l in open(p)]
a, b = rows(f"{out}/builtin/metrics.jsonl"), rows(f"{out}/dataset/metrics.jsonl")
timing = lambda k: k.startswith(("time/", "vlm/latency", "vlm/render", "replay/semantic"))
same = diff = 0
for ra, rb in zip(a, b):
    for k in sorted(set(ra) | set(rb)):
        if timing(k):
            continue
        if ra.get(k) == rb.get(k):
            same += 1
        else:
            diff += 1
            if diff <= 10:
                print(f"step {ra.get('step')} {k}: built-in {ra.get(k)!r}, dataset {rb.get(k)!r}")
for ra, rb in zip(a, b):
    if "eval/success_rate" in ra:
        print(f"eval @ {ra['step']}: success {ra['eval/success_rate']} vs {rb.get('eval/success_rate')}, "
              f"return {ra['eval/mean_return']:.3f} vs {rb.get('eval/mean_return', float('nan')):.3f}")
h = lambda run: hashlib.sha256(open(glob.glob(f"{out}/{run}/checkpoints/step-*/agent.bin")[0], "rb").read()).hexdigest()
print(f"{len(a)} vs {len(b)} metric rows; {same} values equal, {diff} differ "
      f"(wall-clock timings and the privileged replay/semantic_* labels not compared); "
      f"agent.bin {'identical' if h('builtin') == h('dataset') else 'DIFFERENT'}")
PY
