package rundir

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestValidatedRefusesAndCopies: an invalid config gets no proof; a valid
// one's proof is a deep copy, so changing the config afterwards (its
// fields or the slices it shares) or the copy Config returns leaves the
// proof as validated.
func TestValidatedRefusesAndCopies(t *testing.T) {
	bad := DefaultConfig()
	bad.Steps = -1
	v, err := bad.Validated()
	var ce *ConfigError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "steps must be > 0") || !v.IsZero() {
		t.Fatalf("Validated(steps -1) = %v, %v; want a ConfigError naming steps and the zero Valid", v, err)
	}
	if got := (Valid{}).Config(); !reflect.DeepEqual(got, Config{}) {
		t.Errorf("zero Valid's Config = %+v, want the zero Config", got)
	}

	c := DefaultConfig()
	c.Out = "run"
	c.RM.Goal, c.RM.Baseline = []string{"cube on target"}, []string{"a table"}
	v, err = c.Validated()
	if err != nil || v.IsZero() {
		t.Fatalf("Validated(defaults) = %v, %v", v, err)
	}
	want := v.Config()
	c.Steps, c.SAC.Hidden[0], c.RM.Goal[0] = -5, -1, "changed"
	c.DQN.Hidden[0], c.DQN.Categorical = -1, []int{3}
	got := v.Config()
	got.SAC.Hidden[0], got.RM.Baseline[0] = -2, "changed too"
	if again := v.Config(); !reflect.DeepEqual(again, want) {
		t.Errorf("the proof changed after its config and a copy were changed:\n got %+v\nwant %+v", again, want)
	}
	if want.Steps != DefaultConfig().Steps || want.SAC.Hidden[0] != DefaultConfig().SAC.Hidden[0] || want.RM.Goal[0] != "cube on target" {
		t.Errorf("the proof does not hold the validated values: %+v", want)
	}
}

// TestCloneCoversEveryReference lists the fields of Config (at any depth)
// whose values share memory when the struct is copied: each must be
// copied by clone (slices) or be immutable (funcs). A new one fails here
// until clone handles it and this list names it.
func TestCloneCoversEveryReference(t *testing.T) {
	known := map[string]bool{
		"SAC.Config.Hidden":      true, // cloned
		"DQN.Config.Hidden":      true, // cloned
		"DQN.Config.Categorical": true, // cloned
		"RM.Goal":                true, // cloned
		"RM.Baseline":            true, // cloned
		"VLM.Scoring.Priority":   true, // a func: called, never changed
	}
	var found []string
	var walk func(reflect.Type, string)
	walk = func(tp reflect.Type, path string) {
		switch tp.Kind() {
		case reflect.Struct:
			for i := range tp.NumField() {
				f := tp.Field(i)
				p := f.Name
				if path != "" {
					p = path + "." + f.Name
				}
				walk(f.Type, p)
			}
		case reflect.Array:
			walk(tp.Elem(), path+"[]")
		case reflect.Slice, reflect.Map, reflect.Pointer, reflect.Interface, reflect.Chan, reflect.Func, reflect.UnsafePointer:
			found = append(found, path)
		}
	}
	walk(reflect.TypeOf(Config{}), "")
	for _, f := range found {
		if !known[f] {
			t.Errorf("Config.%s shares memory when copied: deep-copy it in clone (valid.go) and name it here", f)
		}
		delete(known, f)
	}
	for f := range known {
		t.Errorf("Config.%s is no longer a reference field: remove it from this list (and from clone)", f)
	}
}
