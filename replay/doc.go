// Package replay stores transitions and samples batches from them.
//
// A Buffer is a preallocated struct-of-arrays ring of float32 transitions.
// Samplers (uniform, PER, ReLo and the VLM-RB mixture) fill caller-owned
// Batch storage without allocating. Every slot carries a generation counter,
// so a priority written back for a slot that has since been overwritten is
// dropped. Priority writes may come from other goroutines while the learner
// samples.
package replay
