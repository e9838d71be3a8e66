package rundir

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/vlmrb/vlmrb/internal/suggest"
	"go.yaml.in/yaml/v3"
)

// yamlProblem rewrites a YAML decoding error of a config for its reader:
// an unknown key is named by its dotted path with the closest known keys
// (not "field gama not found in type rundir.SACConfig"), and Go type names
// become what the key wants ("a number", not float64).
func yamlProblem(src []byte, err error) string {
	msg := err.Error()
	if strings.Contains(msg, "not found in type") {
		var doc yaml.Node
		if yaml.Unmarshal(src, &doc) == nil && len(doc.Content) == 1 {
			keys := ConfigKeys()
			if line, key, ok := firstUnknownKey(doc.Content[0], "", keys); ok {
				return fmt.Sprintf("line %d: unknown key %s%s", line, key,
					suggest.DidYouMean("", suggest.Closest(key, keys)))
			}
		}
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	return goTypeName.ReplaceAllStringFunc(msg, func(m string) string {
		t := strings.TrimPrefix(m, "into ")
		switch {
		case strings.HasPrefix(t, "int") || strings.HasPrefix(t, "uint"):
			return "into an integer"
		case strings.HasPrefix(t, "float"):
			return "into a number"
		case t == "bool":
			return "into true or false"
		case t == "string":
			return "into a text value"
		case strings.HasPrefix(t, "[]"):
			return "into a list"
		}
		return "into a section of keys"
	})
}

var goTypeName = regexp.MustCompile(`into (\[\])?[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)?`)

// firstUnknownKey walks a YAML mapping and returns the first key path
// that is neither a config key nor a section of them, with its line.
func firstUnknownKey(n *yaml.Node, prefix string, keys []string) (int, string, bool) {
	if n.Kind != yaml.MappingNode {
		return 0, "", false
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		path := k.Value
		if prefix != "" {
			path = prefix + "." + k.Value
		}
		if slices.Contains(keys, path) {
			continue
		}
		section := slices.ContainsFunc(keys, func(s string) bool { return strings.HasPrefix(s, path+".") })
		if !section {
			return k.Line, path, true
		}
		if line, key, ok := firstUnknownKey(v, path, keys); ok {
			return line, key, true
		}
	}
	return 0, "", false
}
