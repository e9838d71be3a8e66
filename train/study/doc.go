// Package study runs and reports learning studies: grids of tasks × arms ×
// seeds over a base training configuration, where an arm is a named
// overlay of any config keys (replay, scorer, buffer.lambda_max, …).
//
// A Spec is read from a YAML study file (studies/*.yaml). A Runner executes
// the grid's runs as `robot-train train` child processes, N at a time with
// the BLAS and Go thread counts split so they do not oversubscribe the
// cores; it is resumable (done runs are skipped, interrupted runs resume
// from their newest checkpoint) and shardable (Shard K/N takes a
// deterministic 1/N of the grid, for Slurm job arrays or Kubernetes
// Indexed Jobs writing to shared storage). Each run directory gets
// study-config.yaml (the resolved config), study-attempts.jsonl (CPU time
// of every process that worked on it) and study-done.json.
//
// Any number of Runners may share one study directory: a run is decided
// and trained only under its run directory's lock (RUN_DIR/.lock, the one
// train takes), which the training child inherits, so each run is trained
// by one process at a time and finished once. Nothing below the study
// directory is followed through a symbolic link, and every file read from
// it is a regular file read within a size limit (internal/safefile).
//
// Runs reproduce bit for bit only on one BLAS kernel, so a study pins
// OpenBLAS's (BLASCoreFile: the study file's blas_core, else the first
// runner's OPENBLAS_CORETYPE, else DefaultBLASCore), frozen on its first
// run and set as OPENBLAS_CORETYPE for every child. An arm marked retired
// (its runs can no longer be regenerated) is never started or resumed.
//
// Analyze aggregates the done runs with the conventions of rliable
// (Agarwal et al., NeurIPS 2021): interquartile mean and mean of the final
// score, percentile confidence intervals from a stratified bootstrap,
// normalised area under the learning curve, probability of improvement
// over a baseline arm (Mann–Whitney), and the sample-efficiency ratio of
// env steps to reach the baseline's final IQM. Report.Write produces
// report.md, report.json and curves/TASK.png (IQM with a shaded CI band);
// against another baseline than the study's, report-vs-ARM.md and .json.
package study
