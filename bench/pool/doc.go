// Command pool pools the final scores of arms with the same configuration
// across studies (disjoint seeds, written before either ran) and reports
// them with the study report's statistics: IQM and mean of the final
// metric with 95% stratified bootstrap intervals, and the probability of
// improvement P(X > Y) over a baseline arm. Each study is one stratum of
// every bootstrap: a resample redraws each study's runs from that study
// only, at its own size, so the pooled arm keeps each study's share.
// P(X > Y) is the Mann–Whitney statistic over every pair of the two
// arms' pooled runs (ties count ½); its interval comes from the same
// stratified resampling of both arms.
//
//	go run ./bench/pool -baseline uniform \
//	  uniform=studies/results/doorkey-demos:uniform+studies/results/doorkey-themes:uniform \
//	  oracle=studies/results/doorkey-demos:vlmrb-oracle+studies/results/doorkey-themes:oracle \
//	  pixel=studies/results/doorkey-demos:vlmrb-pixel+studies/results/doorkey-themes:pixel-standard \
//	  per=studies/results/doorkey-demos:per+studies/results/doorkey-themes:per
//
// It reads each DIR/report.json (written by robot-train study report, which
// recomputes it from the study's per-run records, DIR/runs.tar.gz or an
// unpacked DIR/runs), so run the report first; only runs in the "done"
// state count. The
// bootstrap is seeded (seed 1, 5000 resamples by default), so a table
// reproduces exactly.
package main
