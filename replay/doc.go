// Package replay stores transitions and samples training batches from them:
// uniform replay, proportional prioritized replay (PER), ReLo, and the
// VLM-RB mixture of uniform and VLM-prioritized replay.
//
// A Buffer is a preallocated struct-of-arrays ring of float32 transitions
// (obs, action, reward, next obs, terminated and truncated kept apart, env,
// episode, step, and a generation per slot). Add returns the Ref of the slot
// it wrote; a priority or score written back with a Ref whose generation no
// longer matches is dropped, so asynchronous scorers never land on
// overwritten data.
//
// Samplers attach to a buffer (NewUniform, NewPER, NewReLo, NewVLMRB) and
// implement Sampler: Sample fills caller-owned Batch storage without
// allocating, UpdatePriorities takes the learner's per-sample signal back.
// VLMRB also implements ScoreSink (SetScore) for VLM scores. The prioritized
// samplers share a 16-ary sum tree whose nodes hold per-group prefix sums in
// float64: a batch descends level by level with branch-free scans, and every
// update recomputes its groups from the leaves, so the root never drifts from
// the sum of the leaves.
//
// Concurrency: every Buffer and sampler method is safe for concurrent use.
// One mutex per buffer guards the data and the attached samplers' trees, so
// scorer goroutines may write scores while the learner samples and no sample
// sees a half-updated tree.
//
// Persistence: Buffer.Save(w) writes the data and the state of every attached
// sampler (priorities, scores, scored flags, schedule steps) in a versioned,
// CRC-32C-checked format; SaveFile does it atomically (temp file, fsync,
// rename). Load and LoadFile verify everything before changing anything.
//
// Memory: BytesPerTransition(39, 4) = 356 bytes per slot, plus each prioritized
// sampler's BytesPerSlot (≈ 17 for PER and ReLo, ≈ 26 for VLMRB with the TD factor).
// On Linux, arrays of 4 MiB and more are mapped with transparent huge pages.
//
// This package does not score clips (vlmprio does) or compute TD errors
// (sac does); it only stores what they produce.
package replay
