package rundir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRecordPlatformDamaged: a damaged record is an error that says what to
// do, not a panic, and the file is left as it was.
func TestRecordPlatformDamaged(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, PlatformFile)
	if err := os.WriteFile(path, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := recordPlatform(dir, "auto", 0)
	if err == nil {
		t.Fatal("a damaged platform.json was overwritten silently")
	}
	if !strings.Contains(err.Error(), "move it away") {
		t.Errorf("error %q does not say what to do", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "{" {
		t.Errorf("damaged record rewritten to %q", b)
	}
}
