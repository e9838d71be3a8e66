package pkgdoc

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// moduleRoot walks up from the test's directory to the folder with go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test directory")
		}
		dir = parent
	}
}

// TestEveryPackageHasDocGo fails when a directory with non-test Go files has
// no doc.go, or its doc.go has no package comment.
func TestEveryPackageHasDocGo(t *testing.T) {
	root := moduleRoot(t)
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor" || name == "bench") {
			return filepath.SkipDir
		}
		entries, err := os.ReadDir(path)
		if err != nil {
			return err
		}
		hasGo := false
		for _, e := range entries {
			n := e.Name()
			if strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
				hasGo = true
				break
			}
		}
		if !hasGo {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		doc := filepath.Join(path, "doc.go")
		f, err := parser.ParseFile(token.NewFileSet(), doc, nil, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			t.Errorf("package %s: no readable doc.go (%v); add one with a package comment saying what the package owns", rel, err)
			return nil
		}
		if f.Doc == nil || strings.TrimSpace(f.Doc.Text()) == "" {
			t.Errorf("package %s: doc.go has no package comment", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
