// Package cputime reads the process's CPU time for benchmarks: on a shared
// machine a rate per CPU-second is steadier than a wall-clock rate, whose
// time includes time spent descheduled.
package cputime
