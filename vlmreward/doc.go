// Package vlmreward learns and computes rewards from vision-language model
// feedback, for the two seed methods besides VLM-RB (research/papers.md §2,
// §3, §6.2, §6.3):
//
// ERL-VLM (rating-based reward learning). A Rater gives an absolute rating
// of one frame in n classes (2–5, index 0 = worst): OracleRater from
// privileged task progress with optional seeded label noise, OpenAIRater
// through any OpenAI-compatible chat-completions server with a JSON-schema
// enum answer (optionally two-stage: analysis, then label). Failed queries
// are returned as errors, and RateAll drops and counts them; they are never
// stored as the worst class (the reference code's bug). A Dataset is a ring
// of rated, downscaled frames (capacity 10,000); a Schedule says when and how
// many frames to rate (first at step 10k, then 50 every 5k steps, up to a
// budget). A Model is an ensemble of small CNNs (conv layers via im2col and
// GEMMs on nn's selected BLAS, hand-written backprop, tanh output) trained with the
// ERL-VLM loss: per-batch min-max normalisation, class boundaries from the
// batch's label counts, logits −k(x−R̄_j)(x−R̄_{j+1}), class-weighted MAE on
// the softmax probabilities (or cross-entropy), stratified batches, early
// stop at 97% accuracy.
//
// VLM-RM (embedding reward). R = 1 − ½‖P(x − g)‖² with
// P = α·ddᵀ/‖d‖² + (1−α)I, d = g − b; g and b average the normalised text
// embeddings of goal and baseline prompts, x is the normalised image
// embedding. An Embedder supplies embeddings; HTTPEmbedder talks to an
// OpenAI-style /v1/embeddings endpoint (text as "input", images as a
// chat-style "messages" body with a data-URL image_url part, vLLM's
// multimodal embeddings convention). Both send through internal/vlmclient,
// the HTTP client vlmprio's scorer uses too (retries, Retry-After, optional
// breaker, size caps, keys sent to their own host only, error kinds).
//
// Rewards reach SAC through a RewardTable keyed by replay.Ref: the replay
// buffer itself has no reward setter, so Apply overwrites a sampled Batch's
// Rewards from the table and zeroes the Weights of rows whose reward is not
// set yet (no training on unset rewards). A Relabeler keeps the downscaled
// next-state frame of every slot so the whole buffer can be relabelled
// after each reward-model update (optionally standardising the rewards over
// the buffer: the rating loss is blind to the model's output scale). Slots
// are matched by generation, so wrap-around and overwritten slots are
// handled. Learner, Model and RewardTable encode themselves for checkpoints.
//
// Typical use in a training loop (ERL-VLM; package train's loop is the
// complete one, behind robot-train train --reward erlvlm):
//
//	rater, _ := vlmreward.NewOracleRater(3, 0.2, seed)  // or NewOpenAIRater
//	l, _ := vlmreward.NewLearner(vlmreward.DefaultLearnerConfig(3, env.Description()), rater, buf.Cap())
//	// every env step, after buf.Add and rendering the frame of s_{t+1}:
//	l.Observe(ref, envIdx, episode, img, info.Get("progress"))
//	l.Update(ctx, step)               // rates, fits and relabels when the schedule says so
//	// every SAC update, once l.Trained():
//	sampler.Sample(batch, rng); l.Apply(batch); agent.Update(batch)
//
// VLM-RM: v, _ := NewVLMRMFromPrompts(ctx, emb, goals, baselines, α); per
// step table.Clear(ref) and pending.Add(ref, frame); after each rollout
// chunk pending.Flush(ctx, emb, v, table, batch); table.Apply(batch) before
// every SAC update.
//
// vlmreward imports replay and nn only (tests also use render and tasks to
// rate real task frames).
package vlmreward
