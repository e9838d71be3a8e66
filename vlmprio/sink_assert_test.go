package vlmprio

import "github.com/vlmrb/vlmrb/replay"

// replay's VLM-RB sampler takes a whole clip's scores under one lock.
var _ BatchScoreSink = (*replay.VLMRB)(nil)
