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
