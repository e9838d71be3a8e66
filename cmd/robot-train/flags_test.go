package main

import (
	"bytes"
	"flag"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vlmrb/vlmrb/rundir"
)

// TestFlagTableKeys: every row of the table names a real config key (or
// none, for run options), names are unique, and every row has help.
func TestFlagTableKeys(t *testing.T) {
	t.Parallel()
	keys := rundir.ConfigKeys()
	seen := map[string]bool{}
	for _, d := range trainFlags {
		if seen[d.name] {
			t.Errorf("--%s: twice in the table", d.name)
		}
		seen[d.name] = true
		if d.help == "" {
			t.Errorf("--%s: no help", d.name)
		}
		for _, k := range []string{d.key, d.dqnKey} {
			if k != "" && !slices.Contains(keys, k) {
				t.Errorf("--%s: %q is not a key of rundir.Config (keys: %v)", d.name, k, keys)
			}
		}
		if d.key == "" && (d.dqnKey != "" || d.noDefault) {
			t.Errorf("--%s: an option row with config-only fields", d.name)
		}
	}
}

// flagSample is a valid non-default command-line value for a key kind.
func flagSample(kind, key string) []string {
	switch kind {
	case "int":
		return []string{"7"}
	case "uint":
		return []string{"9"}
	case "float":
		return []string{"0.25"}
	case "bool":
		return []string{"true"}
	case "[]int":
		return []string{"8,4"}
	case "[]string":
		return []string{"pick the cube", "a table"}
	}
	if strings.Contains(key, "url") {
		return []string{"http://vlm.example:8000/v1"}
	}
	return []string{"x-test"}
}

// TestFlagTableRoundTrip sets every config flag from the command line and
// checks the value arrives in its key, survives config.yaml (save, load),
// and that --resume accepts exactly the rows marked resume-safe.
func TestFlagTableRoundTrip(t *testing.T) {
	t.Parallel()
	def := rundir.DefaultConfig()
	for _, d := range trainFlags {
		if d.key == "" {
			continue
		}
		t.Run(d.name, func(t *testing.T) {
			kind, err := rundir.ConfigKeyType(d.key)
			if err != nil {
				t.Fatal(err)
			}
			fs := flag.NewFlagSet("train", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			b, err := bindFlags(fs, trainFlags, &def)
			if err != nil {
				t.Fatal(err)
			}
			vals := flagSample(kind, d.key)
			var args []string
			for _, v := range vals {
				args = append(args, "--"+d.name, v)
			}
			if err := fs.Parse(args); err != nil {
				t.Fatal(err)
			}
			cfg := rundir.DefaultConfig()
			if err := b.apply(&cfg, setFlags(fs)); err != nil {
				t.Fatal(err)
			}
			want := strings.Join(vals, " | ")
			if got, _ := rundir.GetConfigKey(&cfg, d.key); got != want {
				t.Fatalf("--%s %v: %s = %q, want %q", d.name, vals, d.key, got, want)
			}
			if d.dqnKey != "" {
				if err := b.applyDQN(&cfg, setFlags(fs)); err != nil {
					t.Fatal(err)
				}
				if got, _ := rundir.GetConfigKey(&cfg, d.dqnKey); got != want {
					t.Fatalf("--%s on dqn: %s = %q, want %q", d.name, d.dqnKey, got, want)
				}
			}
			path := filepath.Join(t.TempDir(), "config.yaml")
			if err := rundir.SaveConfig(path, &cfg); err != nil {
				t.Fatal(err)
			}
			back := rundir.DefaultConfig()
			if err := rundir.LoadConfigFile(path, &back); err != nil {
				t.Fatal(err)
			}
			if got, _ := rundir.GetConfigKey(&back, d.key); got != want {
				t.Fatalf("%s after config.yaml: %q, want %q", d.key, got, want)
			}
		})
	}
}

// TestFlagDefaultsAreConfigDefaults: -h shows DefaultConfig's values, so
// a flag left alone and the config default never disagree.
func TestFlagDefaultsAreConfigDefaults(t *testing.T) {
	t.Parallel()
	def := rundir.DefaultConfig()
	fs := flag.NewFlagSet("train", flag.ContinueOnError)
	if _, err := bindFlags(fs, trainFlags, &def); err != nil {
		t.Fatal(err)
	}
	for _, d := range trainFlags {
		f := fs.Lookup(d.name)
		if f == nil {
			t.Fatalf("--%s not registered", d.name)
		}
		if d.key == "" || d.noDefault {
			continue
		}
		want, _ := rundir.GetConfigKey(&def, d.key)
		if f.DefValue != want {
			t.Errorf("--%s default %q, config %s default %q", d.name, f.DefValue, d.key, want)
		}
	}
}

// TestResumeSafeFromTable: with --resume, every row marked resume-safe is
// accepted and every other flag is refused by name; the refusal lists the
// allowed flags from the table.
func TestResumeSafeFromTable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir() // no run: accepted flags fail later, on "no config.yaml"
	for _, d := range trainFlags {
		if d.name == "resume" || d.name == "config" {
			continue
		}
		args := []string{"train", "--resume", dir}
		switch {
		case d.kind == "bool":
			args = append(args, "--"+d.name)
		case d.key == "":
			args = append(args, "--"+d.name, filepath.Join(dir, "x"))
		default:
			kind, _ := rundir.ConfigKeyType(d.key)
			args = append(args, "--"+d.name, flagSample(kind, d.key)[0])
		}
		code, _, stderr := runCLI(t, args...)
		refused := strings.Contains(stderr, "--"+d.name+" cannot change on resume")
		if d.resume == refused {
			t.Errorf("--%s (resume-safe %v): exit %d, stderr %q", d.name, d.resume, code, stderr)
		}
		if refused {
			for _, n := range resumeSafeFlags() {
				if n != "resume" && !strings.Contains(stderr, "--"+n) {
					t.Errorf("refusal does not list the allowed --%s: %s", n, stderr)
				}
			}
		}
	}
}

// TestBadFlagValues: the typed flags reject bad text at parse time, with
// the messages users saw before the table.
func TestBadFlagValues(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"train", "--hidden", "0,4"}, "positive widths"},
		{[]string{"train", "--goal", " "}, "empty prompt"},
		{[]string{"train", "--steps", "many"}, `invalid value "many" for flag -steps`},
		{[]string{"train", "--seed", "-1"}, "-seed"},
	} {
		code, _, stderr := runCLI(t, tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q lacks %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestTrainHelpFromTable: -h lists every flag of the table with its help.
func TestTrainHelpFromTable(t *testing.T) {
	t.Parallel()
	code, _, stderr := runCLI(t, "train", "-h")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	var b bytes.Buffer
	b.WriteString(stderr)
	for _, d := range trainFlags {
		if !strings.Contains(b.String(), "-"+d.name) {
			t.Errorf("train -h lacks --%s", d.name)
		}
	}
}

// Every command's flag table binds: option kinds and defaults parse,
// config rows name real keys, names are unique, and every row has help.
func TestCommandFlagTables(t *testing.T) {
	def := rundir.DefaultConfig()
	tables := map[string][]flagDef{
		"train": trainFlags, "score": scoreFlags, "render": renderFlags, "view": viewFlags, "eval": evalFlags,
		"bench": benchFlags, "study run": studyRunFlags, "study report": studyReportFlags, "export": exportFlags,
		"record": recordFlags,
	}
	for name, table := range tables {
		seen := map[string]bool{}
		for _, d := range table {
			if seen[d.name] || d.help == "" {
				t.Errorf("%s: flag --%s repeated or without help", name, d.name)
			}
			seen[d.name] = true
		}
		fs := flag.NewFlagSet(name, flag.ContinueOnError)
		if _, err := bindFlags(fs, table, &def); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	// a default that does not parse as its kind is an error, not a zero
	fs := flag.NewFlagSet("bad", flag.ContinueOnError)
	if _, err := bindFlags(fs, []flagDef{{name: "n", kind: "int", def: "many", help: "h"}}, &def); err == nil {
		t.Error("an int flag with default \"many\" was accepted")
	}
}
