package vlmprio

import (
	"encoding/json"
	"math"
	"testing"

	openai "github.com/sashabaranov/go-openai"
)

// FuzzYesNoScore feeds arbitrary logprobs JSON to the score extraction: it
// must never panic and any score it returns lies in [0,1].
func FuzzYesNoScore(f *testing.F) {
	f.Add(`{"content":[{"token":"Yes","logprob":-0.1,"top_logprobs":[{"token":"Yes","logprob":-0.1},{"token":"No","logprob":-2.4}]}]}`)
	f.Add(`{"content":[{"token":"No","logprob":-1e308,"top_logprobs":[{"token":" yes","logprob":-9999}]}]}`)
	f.Add(`{"content":[{"token":"▁YES","logprob":0,"top_logprobs":null}]}`)
	f.Fuzz(func(t *testing.T, raw string) {
		var lp openai.LogProbs
		if json.Unmarshal([]byte(raw), &lp) != nil {
			return
		}
		v, ok := YesNoScore(lp.Content)
		if ok && (math.IsNaN(v) || v < 0 || v > 1) {
			t.Fatalf("score %v from %s", v, raw)
		}
	})
}

// FuzzJSONAnswer: JSON answers never panic and give scores in [0,1].
func FuzzJSONAnswer(f *testing.F) {
	f.Add(`{"answer":"yes"}`)
	f.Add("```json\n{\"score\": 7}\n```")
	f.Add(`{"score": 11}`)
	f.Fuzz(func(t *testing.T, content string) {
		for _, m := range []AnswerMode{AnswerJSONEnum, AnswerJSONInt} {
			v, _, err := parseJSONAnswer(content, m)
			if err == nil && (math.IsNaN(v) || v < 0 || v > 1) {
				t.Fatalf("%s: score %v from %q", m, v, content)
			}
		}
	})
}

// Positive "log-probabilities" are not probabilities: they never score.
func TestYesNoScoreIgnoresPositiveLogprobs(t *testing.T) {
	lp := []openai.LogProb{{Token: "Yes", LogProb: 5, TopLogProbs: []openai.TopLogProbs{{Token: "Yes", LogProb: 5}, {Token: "No", LogProb: 700}}}}
	if s, ok := YesNoScore(lp); ok {
		t.Fatalf("scored %g from positive logprobs", s)
	}
	lp[0].TopLogProbs[1].LogProb = math.Log(0.25)
	lp[0].TopLogProbs[0].LogProb, lp[0].LogProb = math.Log(0.75), math.Log(0.75)
	if s, ok := YesNoScore(lp); !ok || math.Abs(s-0.75) > 1e-12 {
		t.Fatalf("P(yes)=0.75, P(no)=0.25 scored %g, %v", s, ok)
	}
}
