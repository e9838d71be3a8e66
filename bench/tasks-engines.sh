#!/usr/bin/env bash
# Env steps per CPU-second of the nine tabletop tasks through tasks.Env
# (the scripted expert, observation, reward and info included; episodes of
# 500 control steps of 5 x 2.5 ms) on the old engine sim
# (BenchmarkStep) and on the articulated engine on the MJCF scenes
# (BenchmarkStepArticulated), interleaved: each round runs every task on
# sim, then on articulated, each in its own process. Prints per task the
# median [range] of each and of their ratio over the rounds, the table of
# bench/RESULTS.md "The tabletop tasks through tasks.Env on both engines".
# ROUNDS (5) and STEPS (5000 control steps a run) override the defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go test -c -o "$tmp/tasks.test" ./tasks/
tasks="reach reach-center push pick-place door-open drawer-open button-press-topdown sweep-into window-open"
for r in $(seq 1 "${ROUNDS:-5}"); do
	for t in $tasks; do
		for b in Step StepArticulated; do
			(cd tasks && "$tmp/tasks.test" -test.run '^$' -test.bench "^Benchmark$b\$/^$t\$" -test.benchtime "${STEPS:-5000}x") |
				awk -v t="$t" -v b="$b" '/^Benchmark/ { for (i = 2; i <= NF; i++) if ($i == "steps/cpu-s") print t, b, $(i-1) }'
		done
	done
done >"$tmp/runs.txt"
awk '
function median(s,   n, a, i, j, x) {
	n = split(s, a, " ")
	for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j > 0 && a[j] > x; j--) a[j+1] = a[j]; a[j+1] = x }
	return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
}
function lo(s,   n, a, i, m) { n = split(s, a, " "); m = a[1]; for (i = 2; i <= n; i++) if (a[i] < m) m = a[i]; return m }
function hi(s,   n, a, i, m) { n = split(s, a, " "); m = a[1]; for (i = 2; i <= n; i++) if (a[i] > m) m = a[i]; return m }
$2 == "Step" { sim[$1] = sim[$1] " " $3; last[$1] = $3; if (!($1 in seen)) { seen[$1] = 1; order[++k] = $1 } }
$2 == "StepArticulated" { art[$1] = art[$1] " " $3; ratio[$1] = ratio[$1] " " $3 / last[$1] }
END {
	print "| task | sim steps/cpu-s | articulated steps/cpu-s | articulated / sim |"
	print "|---|---|---|---|"
	for (i = 1; i <= k; i++) {
		t = order[i]
		printf "| %s | %.0f [%.0f–%.0f] | %.0f [%.0f–%.0f] | %.2f× [%.2f–%.2f] |\n", t,
			median(sim[t]), lo(sim[t]), hi(sim[t]), median(art[t]), lo(art[t]), hi(art[t]),
			median(ratio[t]), lo(ratio[t]), hi(ratio[t])
	}
}' "$tmp/runs.txt"
