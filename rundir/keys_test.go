package rundir

import "testing"

// TestEmbedKeyPerHost: the VLM key goes to the embedding server only when
// it is the VLM's host (or there is no VLM server); EMBED_API_KEY wins.
func TestEmbedKeyPerHost(t *testing.T) {
	for _, tc := range []struct {
		name, vlm, embed, env, want string
		withheld                    bool
	}{
		{"same host", "http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1", "", "vlm-key", false},
		{"other host", "https://api.openai.com/v1", "http://10.0.0.5:8000/v1", "", "", true},
		{"other port", "http://127.0.0.1:8000/v1", "http://127.0.0.1:8001/v1", "", "", true},
		{"no VLM server", "", "http://10.0.0.5:8000/v1", "", "vlm-key", false},
		{"explicit key", "https://api.openai.com/v1", "http://10.0.0.5:8000/v1", "emb-key", "emb-key", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(EmbedKeyEnv, tc.env)
			c := DefaultConfig()
			c.VLM.BaseURL, c.VLM.APIKey, c.RM.EmbedBaseURL = tc.vlm, "vlm-key", tc.embed
			got, withheld := EmbedKey(&c)
			if got != tc.want || withheld != tc.withheld {
				t.Fatalf("EmbedKey = %q, %v; want %q, %v", got, withheld, tc.want, tc.withheld)
			}
		})
	}
}
