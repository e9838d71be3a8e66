#!/usr/bin/env bash
# Issue 50's learning-parity re-measure (studies/python-parity.md, "Second
# study"): python/examples/sac_reach.py on reach with uniform replay for
# seeds FIRST..LAST, one training at a time on one BLAS/torch thread, each
# seed writing OUT/py-S.json (its summary), OUT/py-S.log and OUT/py-S.time
# (/usr/bin/time: user and system CPU seconds). Seeds whose json exists are
# skipped, so the script resumes where a killed session stopped.
#
#   make python && scripts/python-parity.sh OUT [FIRST LAST] [extra sac_reach.py flags]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/python-parity.sh OUT [FIRST LAST] [sac_reach.py flags]}
first=${2:-1}
last=${3:-10}
shift $(($# < 3 ? $# : 3))
mkdir -p "$out"
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 VLMRB_BLAS_THREADS=1
for s in $(seq "$first" "$last"); do
	if [[ -s "$out/py-$s.json" ]]; then
		echo "seed $s: done ($out/py-$s.json)"
		continue
	fi
	echo "seed $s: running"
	PYTHONPATH=python nice -n 10 /usr/bin/time -f '%U %S' -o "$out/py-$s.time" \
		/usr/bin/python3 python/examples/sac_reach.py --replay uniform --seed "$s" --threads 1 \
		--out "$out/py-$s.json" "$@" >"$out/py-$s.log" 2>&1
	tail -1 "$out/py-$s.log"
done
