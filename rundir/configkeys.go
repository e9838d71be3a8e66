package rundir

import (
	"encoding"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// Config keys are the dotted YAML names of Config's fields, as written in
// config.yaml and in --config files: "task", "sac.batch_size",
// "reward_model.goal". The functions below read and set a field by its key
// from text, so that a command line can be bound to Config from a table of
// (flag, key) pairs instead of a switch.

// ConfigKeys returns every settable key of Config, sorted.
func ConfigKeys() []string {
	var keys []string
	walkKeys(reflect.TypeOf(Config{}), "", func(key string, _ reflect.Type) { keys = append(keys, key) })
	sort.Strings(keys)
	return keys
}

// ConfigKeyType returns the kind of value key holds: "string", "bool",
// "int", "uint", "float", "[]int" or "[]string". It fails for keys that
// are not fields of Config (or that name a whole section).
func ConfigKeyType(key string) (string, error) {
	f, err := configField(reflect.ValueOf(&Config{}).Elem(), key)
	if err != nil {
		return "", err
	}
	return kindName(f.Type())
}

// GetConfigKey returns the field of c named by key as text, in the form
// SetConfigKey accepts for scalars and []int (comma-separated); a []string
// field is returned with its elements joined by " | ".
func GetConfigKey(c *Config, key string) (string, error) {
	f, err := configField(reflect.ValueOf(c).Elem(), key)
	if err != nil {
		return "", err
	}
	if isText(f.Type()) {
		b, err := f.Interface().(encoding.TextMarshaler).MarshalText()
		if err != nil {
			return "", fmt.Errorf("%s: %w", key, err)
		}
		return string(b), nil
	}
	switch f.Kind() {
	case reflect.String:
		return f.String(), nil
	case reflect.Bool:
		return strconv.FormatBool(f.Bool()), nil
	case reflect.Int, reflect.Int64, reflect.Int32:
		return strconv.FormatInt(f.Int(), 10), nil
	case reflect.Uint, reflect.Uint64, reflect.Uint32:
		return strconv.FormatUint(f.Uint(), 10), nil
	case reflect.Float64, reflect.Float32:
		return strconv.FormatFloat(f.Float(), 'g', -1, 64), nil
	case reflect.Slice:
		s := make([]string, f.Len())
		for i := range s {
			e := f.Index(i)
			if e.Kind() == reflect.String {
				s[i] = e.String()
			} else {
				s[i] = strconv.FormatInt(e.Int(), 10)
			}
		}
		if f.Type().Elem().Kind() == reflect.String {
			return strings.Join(s, " | "), nil
		}
		return strings.Join(s, ","), nil
	}
	return "", fmt.Errorf("config key %s: unsupported type %s", key, f.Type())
}

// SetConfigKey sets the field of c named by key from text. Scalars take
// exactly one text (strconv syntax for numbers and bools); an []int field
// takes one comma-separated list of positive integers ("256,256"); a
// []string field takes its elements, one text each, none of them blank.
// On error c is unchanged and the message names what was wrong.
func SetConfigKey(c *Config, key string, text ...string) error {
	f, err := configField(reflect.ValueOf(c).Elem(), key)
	if err != nil {
		return err
	}
	if f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.String {
		out := make([]string, len(text))
		for i, t := range text {
			if strings.TrimSpace(t) == "" {
				return fmt.Errorf("%s: empty value", key)
			}
			out[i] = t
		}
		f.Set(reflect.ValueOf(out))
		return nil
	}
	if len(text) != 1 {
		return fmt.Errorf("%s takes one value, got %d", key, len(text))
	}
	t := text[0]
	if isText(f.Type()) {
		v := reflect.New(f.Type())
		if err := v.Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(t)); err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		f.Set(v.Elem())
		return nil
	}
	switch f.Kind() {
	case reflect.String:
		f.SetString(t)
	case reflect.Bool:
		v, err := strconv.ParseBool(t)
		if err != nil {
			return fmt.Errorf("%s: want true or false, got %q", key, t)
		}
		f.SetBool(v)
	case reflect.Int, reflect.Int64, reflect.Int32:
		v, err := ParseCount(t) // 30000, 3e4, 30k
		if err != nil || f.OverflowInt(v) {
			return fmt.Errorf("%s: want an integer such as 30000, 3e4 or 30k, got %q", key, t)
		}
		f.SetInt(v)
	case reflect.Uint, reflect.Uint64, reflect.Uint32:
		v, err := ParseCount(t)
		if err != nil || v < 0 || f.OverflowUint(uint64(v)) {
			if u, uerr := strconv.ParseUint(t, 0, f.Type().Bits()); uerr == nil { // above MaxInt64
				f.SetUint(u)
				return nil
			}
			return fmt.Errorf("%s: want a non-negative integer such as 30000, 3e4 or 30k, got %q", key, t)
		}
		f.SetUint(uint64(v))
	case reflect.Float64, reflect.Float32:
		v, err := strconv.ParseFloat(t, 64)
		if err != nil {
			return fmt.Errorf("%s: want a number, got %q", key, t)
		}
		f.SetFloat(v)
	case reflect.Slice: // []int
		var out []int
		for _, p := range strings.Split(t, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(p))
			if err != nil || n <= 0 {
				return fmt.Errorf("want comma-separated positive widths such as 256,256, got %q", t)
			}
			out = append(out, n)
		}
		f.Set(reflect.ValueOf(out))
	default:
		return fmt.Errorf("config key %s: unsupported type %s", key, f.Type())
	}
	return nil
}

// configField finds the settable leaf field of v (a Config) named by key.
func configField(v reflect.Value, key string) (reflect.Value, error) {
	parts := strings.Split(key, ".")
	for i, p := range parts {
		if v.Kind() != reflect.Struct {
			return reflect.Value{}, fmt.Errorf("unknown config key %q", key)
		}
		f, ok := fieldByYAML(v, p)
		if !ok {
			return reflect.Value{}, fmt.Errorf("unknown config key %q", key)
		}
		v = f
		if i == len(parts)-1 && v.Kind() == reflect.Struct {
			return reflect.Value{}, fmt.Errorf("config key %q is a section, not a value", key)
		}
	}
	if _, err := kindName(v.Type()); err != nil {
		return reflect.Value{}, fmt.Errorf("config key %q: %w", key, err)
	}
	return v, nil
}

// fieldByYAML returns the exported field of struct v whose yaml name is
// name, looking into inlined structs (yaml:",inline") as yaml.v3 does;
// v's own fields come first.
func fieldByYAML(v reflect.Value, name string) (reflect.Value, bool) {
	t := v.Type()
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.IsExported() && !inline(sf) && yamlName(sf) == name {
			return v.Field(i), true
		}
	}
	for i := range t.NumField() {
		if sf := t.Field(i); sf.IsExported() && inline(sf) {
			if f, ok := fieldByYAML(v.Field(i), name); ok {
				return f, true
			}
		}
	}
	return reflect.Value{}, false
}

// inline reports a struct field whose keys yaml.v3 merges into its parent.
func inline(sf reflect.StructField) bool {
	_, opts, _ := strings.Cut(sf.Tag.Get("yaml"), ",")
	return sf.Type.Kind() == reflect.Struct && strings.Contains(","+opts+",", ",inline,")
}

// yamlName is the key yaml.v3 uses for sf ("-" for skipped fields).
func yamlName(sf reflect.StructField) string {
	name, _, _ := strings.Cut(sf.Tag.Get("yaml"), ",")
	if name == "" {
		name = strings.ToLower(sf.Name)
	}
	return name
}

// walkKeys calls f for every leaf key below t.
func walkKeys(t reflect.Type, prefix string, f func(key string, t reflect.Type)) {
	for i := range t.NumField() {
		sf := t.Field(i)
		name := yamlName(sf)
		if !sf.IsExported() || name == "-" {
			continue
		}
		if inline(sf) {
			walkKeys(sf.Type, prefix, f)
			continue
		}
		if prefix != "" {
			name = prefix + "." + name
		}
		if sf.Type.Kind() == reflect.Struct {
			walkKeys(sf.Type, name, f)
			continue
		}
		if _, err := kindName(sf.Type); err == nil {
			f(name, sf.Type)
		}
	}
}

// isText reports an enumerated type that reads and writes itself as text
// (vlm.apply, buffer.score_map): a "string" key.
func isText(t reflect.Type) bool {
	return t.Implements(textMarshaler) && reflect.PointerTo(t).Implements(textUnmarshaler)
}

var (
	textMarshaler   = reflect.TypeFor[encoding.TextMarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

func kindName(t reflect.Type) (string, error) {
	if isText(t) {
		return "string", nil
	}
	switch t.Kind() {
	case reflect.String:
		return "string", nil
	case reflect.Bool:
		return "bool", nil
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "int", nil
	case reflect.Uint, reflect.Uint64, reflect.Uint32:
		return "uint", nil
	case reflect.Float64, reflect.Float32:
		return "float", nil
	case reflect.Slice:
		switch t.Elem().Kind() {
		case reflect.Int:
			return "[]int", nil
		case reflect.String:
			return "[]string", nil
		}
	}
	return "", fmt.Errorf("unsupported type %s", t)
}
