#!/usr/bin/env bash
# Acceptance check of the LeRobot v3 writer (issue 33): records a dataset
# with robot-train (3 expert episodes, two camera videos) and converts a
# folder recording of a camera, then reads both back with DuckDB
# (@duckdb/node-api from npm) and ffprobe and compares row counts, episode
# boundaries, index continuity, column types, feature shapes, tasks, stats
# and video frame counts with what robot-train reported recording; and
# trains from the dataset after DuckDB has rewritten its parquet files.
#
# The npm package goes into a cache directory outside the repository
# ($VLMRB_NPM_CACHE, default ~/.cache/vlmrb/lerobot-check); npm downloads
# only the package tarballs (no install scripts run). Missing node, npm or
# ffmpeg are installed with apt-get as scripts/deps.sh does.
set -euo pipefail
cd "$(dirname "$0")/.."
DUCKDB_VERSION=1.5.6-r.1
CACHE="${VLMRB_NPM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/vlmrb/lerobot-check}"

need=()
command -v node >/dev/null 2>&1 || need+=(nodejs)
command -v npm >/dev/null 2>&1 || need+=(npm)
command -v ffprobe >/dev/null 2>&1 || need+=(ffmpeg)
if [ ${#need[@]} -gt 0 ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "lerobot-check: install ${need[*]} (node ≥ 18, npm, ffmpeg/ffprobe) and run again" >&2
    exit 1
  fi
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  echo "lerobot-check: installing ${need[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

if [ ! -f "$CACHE/node_modules/@duckdb/node-api/package.json" ] ||
   [ "$(node -p "require('$CACHE/node_modules/@duckdb/node-api/package.json').version")" != "$DUCKDB_VERSION" ]; then
  mkdir -p "$CACHE"
  echo '{"private": true}' > "$CACHE/package.json"
  (cd "$CACHE" && npm install --no-audit --no-fund --ignore-scripts --loglevel=error "@duckdb/node-api@$DUCKDB_VERSION")
fi
# ES modules resolve packages next to the importing file
cp scripts/lerobot-check.mjs scripts/lerobot-rewrite.mjs "$CACHE/"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
go build -o "$work/robot-train" ./cmd/robot-train

# sim episodes: 3 expert episodes laid out as a 2-env run, two cameras
"$work/robot-train" record --task window-open --policy expert --episodes 3 --num-envs 2 --seed 7 \
  --max-episode-len 60 --cameras task,workspace --size 96x64 --render-backend auto \
  --lerobot "$work/sim" --json > "$work/sim.json"
node "$CACHE/lerobot-check.mjs" "$work/sim" "$work/sim.json"

# the same dataset with its parquet rewritten by DuckDB's writer: vlmrb's
# reader takes it as demonstrations (3 episodes of 60 steps on 2 envs fill
# 240 env steps of the 400)
node "$CACHE/lerobot-rewrite.mjs" "$work/sim" "$work/sim-duckdb"
"$work/robot-train" train --task window-open --seed 7 --num-envs 2 --max-episode-len 60 \
  --steps 400 --learning-starts 300 --hidden 8,8 --batch-size 16 --eval-episodes 1 --eval-every 0 \
  --demos "$work/sim-duckdb" --out "$work/run" > "$work/train.log"
grep -q "demonstrations: 3 episodes, 180 transitions" "$work/train.log" && grep -q "finished at env step 400" "$work/train.log" || { cat "$work/train.log"; echo "lerobot-check: train --demos on the DuckDB-written dataset failed" >&2; exit 1; }
echo "lerobot-check: train --demos read the DuckDB-rewritten dataset"

# a camera recording: a folder of 25 odd-sized PNG frames at 10 fps
mkdir "$work/frames"
ffmpeg -hide_banner -loglevel error -f lavfi -i testsrc=size=97x65:rate=10 -frames:v 25 "$work/frames/frame%03d.png"
"$work/robot-train" record --hw "$work/frames" --fps 10 --lerobot "$work/cam" --json > "$work/cam.json"
node "$CACHE/lerobot-check.mjs" "$work/cam" "$work/cam.json"
echo "lerobot-check: ok"
