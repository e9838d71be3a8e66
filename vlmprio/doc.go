// Package vlmprio turns camera clips into replay priorities: the VLM-RB layer.
//
// A Clipper keeps, per environment, a ring of the last L frames of the
// current episode and emits a Clip every S steps (stride). A clip never
// crosses an episode end and never mixes environments. Each clip carries the
// replay.Refs (slot + generation) of the transitions its score applies to; the
// rule is explicit (ApplyRule) and tail-of-episode handling is configurable
// (TailPolicy) and counted.
//
// A Scorer maps a clip to a score in [0,1]. Three are provided: OpenAIScorer
// asks any OpenAI-compatible VLM server a yes/no question and reads
// P(yes)/(P(yes)+P(no)) from top_logprobs (with a JSON-schema fallback);
// OracleScorer reads privileged task progress carried by simulated clips;
// PixelScorer segments object, goal and gripper by colour (PixelSpec) and
// scores approach, contact, lift and progress toward the goal from frames
// alone; an element hidden in part of a clip lowers Score.Confidence instead
// of failing. All scorers are safe for concurrent use.
//
// A clip reaches a VLM in one of three formats (ClipFormats, Encoding.Layout):
// images (every frame its own image part: the L-frame clip VLM-RB scores),
// video (one MP4 video_url part for vLLM/SGLang video models; ffmpeg
// encodes it) or sheet (frames tiled into one JPEG, the cheap deviation).
// EstimateTokens gives the media token cost of each.
//
// A Prioritizer is a bounded queue and a pool of workers between the Clipper
// and a Scorer. Submit never blocks: when the queue is full a clip is dropped
// (counted) and its transitions keep the sampler's default priority. Scores
// are written back through a ScoreSink (replay's VLM-RB sampler), which drops
// writes whose slot generation no longer matches. With PrioritizerConfig.Lag
// the workers still score concurrently but each score is written back inside
// the Lag-th Tick after its clip, in submission order (Tick waits for it if
// needed), and clips are dropped only by count: a loop that Ticks once per
// step gets the same write-backs on every run.
//
// Wiring (see Example):
//
//	clipper := vlmprio.NewClipper(vlmprio.ClipperConfig{Task: desc, Family: family})
//	prio := vlmprio.NewPrioritizer(scorer, vlmrbSampler, vlmprio.PrioritizerConfig{})
//	prio.Start(ctx); defer prio.Close()
//	// every env step, after buf.Add returned ref:
//	for _, c := range clipper.Push(env, vlmprio.Step{Episode: ep, Frame: f, Ref: ref, Done: done}) {
//		prio.Submit(c)
//	}
//
// A Pipeline is that wiring for a training loop with any learner: one
// frame.Source per environment, the Clipper and the Prioritizer, with one
// rule for which frame goes with a transition (Pipeline's doc): the clip
// that scores transition i is (o_i … o_{i+L−1}), o_t the observation the
// action a_t is taken in, each state rendered once; a terminated episode's
// final observation o_T closes its last clips. presets.go holds the pixel
// scorer's colour keys for lit scenes and for grid tiles.
//
// The Prioritizer writes raw scores in [0,1] by default; replay's VLM-RB
// sampler maps them to priorities (threshold at 0.5 by default), so leave
// PrioritizerConfig.Priority nil unless the sink expects priorities.
//
// OpenAIScorer's HTTP side (retries with backoff and Retry-After, the
// circuit breaker, the response cache, temperature handling, size caps,
// host-bound keys, error kinds) is internal/vlmclient's, shared with
// vlmreward; openai.go holds only the request it builds and how it reads
// the answer.
//
// vlmprio imports frame and replay only; it never imports sac, tasks or
// render. Nothing here logs an API key or writes one to disk.
package vlmprio
