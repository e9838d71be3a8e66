package rundir

// Metric keys mean what Stable-Baselines3 and CleanRL mean by them, so
// that TensorBoard overlays compare like with like. Keys renamed to get
// there are also written under their old names for one release
// (CHANGELOG.md says which, and when they go).
//
// losses/alpha has no alias: it was the α loss and is now the α value,
// as in CleanRL; the loss is losses/alpha_loss.
var renamedKeys = map[string]string{ // new key → old key
	"losses/qf1_loss":   "losses/qf1",
	"losses/qf2_loss":   "losses/qf2",
	"losses/actor_loss": "losses/actor",
	"eval/mean_reward":  "eval/mean_return",
}

// RenamedKeys returns the keys renamed in this release, new → old; the
// old ones are still written alongside the new ones until the next.
func RenamedKeys() map[string]string {
	out := make(map[string]string, len(renamedKeys))
	for k, v := range renamedKeys {
		out[k] = v
	}
	return out
}

// WithAliases returns v with each renamed key's value also under its old
// name (v itself is not changed: the console table shows new keys only).
func WithAliases(v map[string]float64) map[string]float64 {
	out := make(map[string]float64, len(v)+len(renamedKeys))
	for k, x := range v {
		out[k] = x
	}
	for nk, ok := range renamedKeys {
		if x, has := v[nk]; has {
			out[ok] = x
		}
	}
	return out
}
