#!/usr/bin/env bash
# Regenerates every study's reports from its committed records, in a copy,
# and compares them byte for byte with the committed ones: report.md,
# report.json and each report-vs-ARM.md/.json (the baselines the study
# committed). With --archive it also packs each copy's runs into
# runs.tar.gz (robot-train study archive), removes runs/, and checks the
# reports regenerated from the archive alone.
#   scripts/check-study-reports.sh [--archive] [STUDY_DIR…]   (default: studies/results/*)
set -euo pipefail
archive=0
if [[ "${1:-}" == "--archive" ]]; then archive=1; shift; fi
bin=$(mktemp -d)/robot-train
go build -o "$bin" ./cmd/robot-train
work=$(mktemp -d)
trap 'rm -rf "$work" "$(dirname "$bin")"' EXIT
dirs=("$@")
[[ ${#dirs[@]} -gt 0 ]] || dirs=(studies/results/*/)
fail=0
check() { # study copy, committed dir, what
	local c=$1 orig=$2 what=$3
	"$bin" study report "$c" >/dev/null
	for f in "$orig"/report-vs-*.md; do
		[[ -e "$f" ]] || continue
		b=${f##*/report-vs-}; b=${b%.md}
		"$bin" study report "$c" --baseline "$b" >/dev/null
	done
	for f in "$orig"/report*.md "$orig"/report*.json; do
		if ! cmp -s "$f" "$c/${f##*/}"; then
			echo "DIFFERS ($what): $f"; fail=1
		fi
	done
}
for d in "${dirs[@]}"; do
	d=${d%/}; name=${d##*/}
	cp -r "$d" "$work/$name"
	if [[ -e "$d/runs" ]]; then
		check "$work/$name" "$d" "from runs/"
		cp -r "$work/$name" "$work/$name.fromruns"
	fi
	if [[ $archive == 1 && ! -e "$work/$name/runs.tar.gz" ]]; then
		"$bin" study archive "$work/$name" >/dev/null
	fi
	if [[ -e "$work/$name/runs.tar.gz" && ! -e "$work/$name/runs" ]]; then
		check "$work/$name" "$d" "from runs.tar.gz"
		if [[ -e "$work/$name.fromruns" ]]; then # the two regenerations agree
			for f in "$work/$name.fromruns"/report*.md "$work/$name.fromruns"/report*.json; do
				cmp -s "$f" "$work/$name/${f##*/}" || { echo "ARCHIVE DIFFERS FROM runs/: $name/${f##*/}"; fail=1; }
			done
		fi
	fi
	echo "checked $name"
done
exit $fail
