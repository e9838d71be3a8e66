#!/usr/bin/env bash
# Reliability faults of issue 19 against the real binary: each fault, the
# exit code, wall time, peak memory (/usr/bin/time -v) and the last line
# the binary printed on stderr. Prints a markdown table for bench/RESULTS.md.
# Usage: bench/reliability.sh OUTDIR   (needs python3 and /usr/bin/time)
set -uo pipefail
out=${1:?usage: bench/reliability.sh OUTDIR}
mkdir -p "$out"
cd "$(dirname "$0")/.."
go build -o "$out/robot-train" ./cmd/robot-train || exit 1
bin=$out/robot-train
port=${PORT:-18779}
python3 bench/faultserver.py "$port" & srv=$!
trap 'kill $srv 2>/dev/null' EXIT
sleep 1
u=http://127.0.0.1:$port
export OPENAI_API_KEY=sk-reliability-CANARY-0123456789

measure() { # name, then the robot-train arguments
  local name=$1; shift
  local log=$out/$(echo "$name" | tr -c 'a-zA-Z0-9\n' '_')
  /usr/bin/time -v "$bin" "$@" > "$log.out" 2> "$log.err"
  local rc
  rc=$(sed -n 's/.*Exit status: //p' "$log.err")
  local rss
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$log.err")
  local wall
  wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$log.err")
  local msg
  msg=$(grep -v '^\s' "$log.err" | grep -v -e '^Command exited' -e '^Run `robot-train' | tail -1 | cut -c1-220)
  [ -n "$msg" ] || msg=$(grep -v '^\s*$' "$log.out" | head -1 | cut -c1-220)
  local leak=""
  # (the "Command being timed" line is /usr/bin/time's, not the binary's)
  if grep -v 'Command being timed' "$log.out" "$log.err" | grep -q CANARY; then leak=" **KEY PRINTED**"; fi
  printf '| %s | %s | %s | %d MB | %s%s |\n' "$name" "${rc:-?}" "$wall" $(( ${rss:-0} / 1024 )) "${msg//|/\\|}" "$leak"
}

echo "| fault | exit | wall | peak RSS | what it said (last stderr line) |"
echo "|---|---|---|---|---|"
# PARTS selects groups: 1 score faults, 2 training with a faulty VLM, 3 run-directory faults
parts=${PARTS:-1 2 3}
if [[ " $parts " == *" 1 "* ]]; then
measure "score: VLM answers 200 MB (chunked)" score --source sim:reach --scorer openai --clips 3 --render-backend soft \
  --vlm-base-url "$u/big/v1" --vlm-model m --json
measure "score: VLM announces 200 MB (Content-Length)" score --source sim:reach --scorer openai --clips 3 --render-backend soft \
  --vlm-base-url "$u/bigcl/v1" --vlm-model m --json
measure "score: 401 echoing the key" score --source sim:reach --scorer openai --clips 3 --render-backend soft \
  --vlm-base-url "http://user:pw-CANARY@127.0.0.1:$port/echo/v1?api_key=CANARYQ" --vlm-model m --json
measure "score: VLM accepts and never answers (--timeout 5s)" score --source sim:reach --scorer openai --clips 10 --render-backend soft \
  --vlm-base-url "$u/hang/v1" --vlm-model m --timeout 5s
for f in cl4e9 noboundary headerflood slowloris; do
  measure "score --source MJPEG $f" score --source "$u/$f" --scorer pixel --clips 1
done
measure "score --source rtsp://127.0.0.1:1/x" score --source rtsp://127.0.0.1:1/x --scorer pixel --clips 1
fi
tiny=(--task reach --steps 400 --num-envs 2 --learning-starts 100 --batch-size 32 --hidden 16,16 --eval-every 0
  --eval-episodes 1 --max-episode-len 50 --log-every 100 --checkpoint-every 200 --quiet --render-backend soft)
if [[ " $parts " == *" 2 "* ]]; then
rm -rf "$out/run-big" "$out/run-401" "$out/run-401-req"
measure "train vlmrb: VLM answers 200 MB" train "${tiny[@]}" --replay vlmrb --scorer openai --vlm-base-url "$u/big/v1" --vlm-model m --out "$out/run-big"
measure "train vlmrb: 401 (outage policy)" train "${tiny[@]}" --replay vlmrb --scorer openai --vlm-base-url "$u/echo/v1" --vlm-model m --out "$out/run-401"
measure "train vlmrb: 401 with --vlm-required" train "${tiny[@]}" --replay vlmrb --scorer openai --vlm-base-url "$u/echo/v1" --vlm-model m --vlm-required --out "$out/run-401-req"
fi
if [[ " $parts " == *" 3 "* ]]; then
[ -d "$out/run-401" ] || "$bin" train "${tiny[@]}" --steps 200 --replay uniform --out "$out/run-401" > /dev/null 2>&1
measure "train --resume of a finished run" train --resume "$out/run-401" --quiet
measure "config with gamma .nan" train "${tiny[@]}" --config <(printf 'sac:\n  gamma: .nan\n') --out "$out/run-nan"
measure "num_envs 10000 for 300 steps" train --task reach --steps 300 --num-envs 10000 --out "$out/run-envs"
# a second process against a live run directory
rm -rf "$out/run-live"
"$bin" train "${tiny[@]}" --steps 1000000 --replay uniform --out "$out/run-live" > /dev/null 2>&1 & live=$!
for _ in $(seq 100); do [ -f "$out/run-live/config.yaml" ] && break; sleep 0.2; done
measure "train --resume of a live run" train --resume "$out/run-live" --steps 2000000 --quiet
kill -INT $live; wait $live
fi
