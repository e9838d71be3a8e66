package train

import "github.com/vlmrb/vlmrb/vlmprio"

// ApplyChoices are the values of vlm.apply: which transitions receive a
// clip's score.
var ApplyChoices = []string{"stride", "whole"}

// applyRule maps vlm.apply to the Clipper's rule: stride gives a clip's
// score to the stride transitions it starts with (the paper's τ_i scores
// transition i), whole to every transition whose frame is in the clip,
// overlapping scores combined by their maximum.
func (v VLMConfig) applyRule() vlmprio.ApplyRule {
	if v.Apply == "whole" {
		return vlmprio.ApplyWhole
	}
	return vlmprio.ApplyStride
}
