// Package stats owns the aggregate statistics that every learning result of
// the project is reported with, following rliable (Agarwal et al., NeurIPS
// 2021): the interquartile mean, percentile confidence intervals from a
// stratified bootstrap, the probability of improvement (Mann–Whitney U),
// the area under a learning curve and the first step a curve reaches a
// target. Studies (train/study) and the bench tools call it; it imports
// nothing of the project.
//
// Contracts: an empty sample gives NaN, never a panic; samples are not
// modified (Quantile reads an already sorted slice); a bootstrap is a
// function of its seed.
package stats
