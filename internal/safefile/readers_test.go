package safefile

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// userFileReaders are the packages that read files a user, a dataset, a
// model or an archive supplies. Each must import internal/safefile.
var userFileReaders = []string{
	"hw",          // folder recordings
	"lerobot",     // meta/info.json, parquet data
	"onnx",        // ONNX models
	"sim/mjcf",    // MJCF models, includes, meshes
	"train",       // configs, checkpoints, metrics, platform records
	"train/study", // study files, runs.tar.gz
}

// allowed are direct os.Open/os.ReadFile calls that read no user input,
// as "package/file.go:function", each with its reason.
var allowed = map[string]string{
	"internal/atomicfile/atomicfile.go:SyncDir": "opens a directory this process writes into, for fsync",
	"internal/platform/platform.go:CPUModel":    "reads /proc/cpuinfo",
	"vlmprio/clipformat.go:EncodeMP4":           "reads the file ffmpeg just wrote into a private temporary directory",
	"lerobot/writer.go:syncDir":                 "opens a directory this process writes into, for fsync",
}

// TestNoDirectReads fails when a non-test file of the module (bench
// tools, safefile itself and nested modules aside) calls os.Open or
// os.ReadFile outside the allowed list, and when a package that reads
// user files does not import internal/safefile: every reader goes through
// the one bounded, non-blocking reader, so a new input format cannot bring
// back unbounded reads of /dev/zero or reads that block on a FIFO.
func TestNoDirectReads(t *testing.T) {
	root := moduleRoot(t)
	imports := map[string]bool{} // package dir -> imports safefile
	var bad []string
	used := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			name := d.Name()
			if p != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor" || rel == "bench" || rel == "internal/safefile") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil && p != root {
				return filepath.SkipDir // its own module
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(rel))
		for _, im := range f.Imports {
			if strings.HasSuffix(strings.Trim(im.Path.Value, `"`), "/internal/safefile") {
				imports[pkg] = true
			}
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok {
				continue
			}
			ast.Inspect(fn, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if x, ok := sel.X.(*ast.Ident); !ok || x.Name != "os" || (sel.Sel.Name != "Open" && sel.Sel.Name != "ReadFile") {
					return true
				}
				key := rel + ":" + fn.Name.Name
				if _, ok := allowed[key]; ok {
					used[key] = true
				} else {
					bad = append(bad, fset.Position(call.Pos()).String()[len(root)+1:]+" ("+key+"): os."+sel.Sel.Name)
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Errorf("%s: read through internal/safefile (Open, ReadFile, ReadFileContext, Reader), or add the call to allowed with its reason", b)
	}
	for key := range allowed {
		if !used[key] {
			t.Errorf("allowed lists %s, which makes no such call any more: remove it", key)
		}
	}
	for _, pkg := range userFileReaders {
		if !imports[pkg] {
			t.Errorf("package %s reads user files but does not import internal/safefile", pkg)
		}
	}
}

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
