package rundir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzVerifyCheckpoint: a crafted manifest (huge sizes, names with path
// separators or "..", thousands of files, a wrong version) is refused or
// verified against the files beside it, never panics, never reads more
// than a listed file holds and never reaches outside the checkpoint.
func FuzzVerifyCheckpoint(f *testing.F) {
	f.Add([]byte(`{"version":1,"step":10,"files":[{"name":"agent.bin","size":4,"sha256":"88d4266fd4e6338d13b845fcf289579d209c897823b9217da3e161936f031589"}]}`))
	f.Add([]byte(`{"version":1,"files":[{"name":"agent.bin","size":9223372036854775807,"sha256":""}]}`))
	f.Add([]byte(`{"version":1,"files":[{"name":"../outside","size":4,"sha256":""}]}`))
	f.Add([]byte(`{"version":1,"files":[{"name":"agent.bin","size":-1,"sha256":""}]}`))
	f.Add([]byte(`{"version":2}`))
	f.Add([]byte(`{"version":1,"files":[` + strings.Repeat(`{"name":"a","size":0,"sha256":""},`, 100) + `{"name":"a"}]}`))
	f.Fuzz(func(t *testing.T, manifest []byte) {
		root := t.TempDir()
		dir := filepath.Join(root, "step-000000000010")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "agent.bin"), []byte("abcd"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "manifest.json"), manifest, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := VerifyCheckpoint(dir)
		if err != nil {
			return
		}
		for _, mf := range m.Files {
			if mf.Name != filepath.Base(mf.Name) || mf.Name == ".." || mf.Size < 0 || mf.Size > MaxPartBytes {
				t.Fatalf("verified a manifest entry %+v", mf)
			}
		}
		if _, err := ReadPart(dir, m, "agent.bin", MaxAgentBytes); err != nil && len(m.Files) > 0 && m.Files[0].Name == "agent.bin" && m.Files[0].Size == 4 {
			t.Fatalf("verified agent.bin does not read back: %v", err)
		}
	})
}
