// Command rerundiff checks that reruns of a study's runs reproduce the
// committed ones: for every finished run of NEW (a study directory, e.g. a
// rerun of some seeds with a newer binary) it compares metrics.jsonl row
// by row with the same run of OLD (a study directory with runs/ or
// runs.tar.gz) and requires every value to be identical, bit for bit,
// except the time/ columns and the keys named with -except (by default
// the replay diagnostics' progress labels, which a fixed diagnostic
// changes without changing the training). It prints one line per run with
// the final evaluation success of both, and exits 1 on any difference.
//
//	go run ./bench/rerundiff -old studies/results/doorkey-themes -new /path/to/rerun
package main
