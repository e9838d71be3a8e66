package vlmclient

import (
	"encoding/json"
	"strconv"
	"strings"
)

// ReasoningModel reports model names (the o1, o3, o4 and gpt-5 families)
// that accept only the default temperature and spend completion tokens on
// reasoning (they want max_completion_tokens, not max_tokens).
func ReasoningModel(model string) bool {
	for _, p := range []string{"o1", "o3", "o4", "gpt-5"} {
		if strings.HasPrefix(model, p) {
			return true
		}
	}
	return false
}

// modelOf reads the "model" field of a JSON request body ("" if none).
func modelOf(body []byte) string {
	var m struct {
		Model string `json:"model"`
	}
	_ = json.Unmarshal(body, &m)
	return m.Model
}

// withTemperature adds "temperature": t to a JSON object that has none.
// Request structs often drop a zero temperature (omitempty), which would
// leave the server's default (0.8–1.0). added is false when the body
// already names one or is not an object.
func withTemperature(body []byte, t float64) (out []byte, added bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil || m == nil {
		return body, false
	}
	if _, ok := m["temperature"]; ok {
		return body, false
	}
	m["temperature"] = json.RawMessage(strconv.FormatFloat(t, 'g', -1, 64))
	b, err := json.Marshal(m)
	if err != nil {
		return body, false
	}
	return b, true
}

// withoutTemperature removes "temperature" from a JSON object.
func withoutTemperature(body []byte) ([]byte, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil || m == nil {
		return body, false
	}
	if _, ok := m["temperature"]; !ok {
		return body, false
	}
	delete(m, "temperature")
	b, err := json.Marshal(m)
	if err != nil {
		return body, false
	}
	return b, true
}
