// Package replay stores transitions and samples training batches from them:
// uniform replay, proportional prioritized replay (PER), ReLo, and the
// VLM-RB mixture of uniform and VLM-prioritized replay.
//
// A Buffer is a preallocated struct-of-arrays ring of float32 transitions
// (obs, action, reward, next obs, terminated and truncated kept apart, env,
// episode, step, and a generation per slot). With Config.ShareNextObs each
// observation is stored once: a slot's next obs is read from the slot of the
// same env's following transition (episode ends keep their final obs in a
// phantom slot; an env's newest transition is not sampled until its
// successor arrives). Add returns the Ref of the slot
// it wrote; a priority or score written back with a Ref whose generation no
// longer matches is dropped, so asynchronous scorers never land on
// overwritten data.
//
// Samplers attach to a buffer (NewUniform, NewPER, NewReLo, NewVLMRB) and
// implement Sampler: Sample fills caller-owned Batch storage without
// allocating, UpdatePriorities takes the learner's per-sample signal back.
// VLMRB also implements ScoreSink (SetScore) for VLM scores. The prioritized
// samplers share a 16-ary sum tree: float32 leaves, sixteen to a 64-byte
// cache line, under float64 per-group prefix sums that are 16× smaller and
// stay in cache, so a draw costs about one memory line. A batch descends
// level by level, every draw's scan independent of the others so their
// cache misses overlap (on amd64 the next level's lines are also
// software-prefetched, half a batch ahead); a draw's generation comes from
// the ring position, not a second memory read; and every update recomputes its groups from their
// children, so the root never drifts from the sum of the leaves.
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
// Memory: BytesPerTransition(39, 4) = 356 bytes per slot, or with
// ShareNextObs BytesPerTransitionShared(39, 4) = 204 (plus one phantom slot
// per finished episode), plus each prioritized sampler's BytesPerSlot
// (≈ 5.3 for PER and ReLo, ≈ 14.3 for VLMRB with the TD factor). On Linux,
// arrays of 2 MiB and more are mapped with transparent huge pages.
//
// This package does not score clips (vlmprio does) or compute TD errors
// (sac does); it only stores what they produce.
package replay
