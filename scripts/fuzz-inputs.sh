#!/usr/bin/env bash
# Fuzz the input readers of issue 44: the MJCF parser with includes, OBJ
# and STL meshes, the ONNX session (run, not only decode), the LeRobot
# reader and the study archive. CI runs each for a few seconds
# (FUZZTIME=5s, the default); a long run is `FUZZTIME=1h
# scripts/fuzz-inputs.sh`. A crash leaves its input under the package's
# testdata/fuzz/ and fails the script. Each target runs with one worker
# (-parallel 1) so a 2-core machine stays usable, and minimizes a new
# input for at most 100 executions (the default, 60 s per input, stalled
# the LeRobot target at 148 executions in 6 minutes).
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZTIME="${FUZZTIME:-5s}"
targets=(
	"./sim/mjcf FuzzLoadIncludes"
	"./sim/mjcf FuzzMesh"
	"./sim/mjcf FuzzParse"
	"./onnx FuzzRun"
	"./onnx FuzzUnmarshal"
	"./lerobot FuzzReader"
	"./train/study FuzzRunsArchive"
)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for t in "${targets[@]}"; do
	read -r pkg name <<<"$t"
	start=$(date +%s)
	# The summary of a pass, the whole story of a failure (the failing
	# input's file, the panic or the hang).
	if ! go test -run '^$' -fuzz "^${name}\$" -fuzztime "$FUZZTIME" -fuzzminimizetime 100x -parallel 1 "$pkg" >"$log" 2>&1; then
		tail -n 80 "$log"
		echo "fuzz $pkg $name: FAILED (a failing input, if any, is under $pkg/testdata/fuzz/$name)"
		exit 1
	fi
	tail -n 3 "$log"
	echo "fuzz $pkg $name: $FUZZTIME of fuzzing, $(($(date +%s) - start)) s with the build"
done
