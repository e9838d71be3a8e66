//go:build unix

package study

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vlmrb/vlmrb/internal/safefile"
)

// gzTar builds a runs.tar.gz from headers, each entry's body being size
// zero bytes (the header's Size).
func gzTar(t testing.TB, hdrs []tar.Header, truncate bool) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	tw := tar.NewWriter(zw)
	for i := range hdrs {
		if err := tw.WriteHeader(&hdrs[i]); err != nil {
			t.Fatal(err)
		}
		if truncate {
			break
		}
		if _, err := tw.Write(make([]byte, hdrs[i].Size)); err != nil {
			t.Fatal(err)
		}
	}
	if !truncate {
		_ = tw.Close()
	} else {
		_ = tw.Flush()
	}
	_ = zw.Close()
	return buf.Bytes()
}

// TestRunsArchiveBounds: an entry that declares more than one run file
// may hold is refused from its header, before anything is decompressed;
// one just over the cap as actually read is refused too; an archive that
// is a FIFO or a device is refused without blocking.
func TestRunsArchiveBounds(t *testing.T) {
	dir := t.TempDir()
	huge := gzTar(t, []tar.Header{{Name: "runs/t/a/s1/metrics.jsonl", Typeflag: tar.TypeReg, Mode: 0o644, Size: 256 << 20}}, true)
	if err := os.WriteFile(filepath.Join(dir, RunsArchive), huge, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadRunsArchive(dir); err == nil || !strings.Contains(err.Error(), "declares 268435456 bytes") {
		t.Errorf("an entry declaring 256 MiB: %v", err)
	}
	if _, err := ExtractRunsArchive(dir); err == nil {
		t.Error("extracting an entry declaring 256 MiB: no error")
	}
	if _, err := os.Stat(filepath.Join(dir, "runs")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused archive left runs/ behind: %v", err)
	}
	// many entries each within the cap, summing past the total
	var hdrs []tar.Header
	for i := 0; i*maxArchivedFile <= maxArchivedTotal; i++ {
		hdrs = append(hdrs, tar.Header{Name: "runs/t/a/s1/f" + string(rune('a'+i)), Typeflag: tar.TypeReg, Mode: 0o644, Size: maxArchivedFile})
	}
	if err := os.WriteFile(filepath.Join(dir, RunsArchive), gzTar(t, hdrs, false), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := ReadRunsArchive(dir); !errors.Is(err, safefile.ErrTooLarge) && (err == nil || !strings.Contains(err.Error(), "over the limit")) {
		t.Errorf("%d entries of %d MiB: %v, want the total refused", len(hdrs), maxArchivedFile>>20, err)
	}
	t.Logf("total bound reached and refused in %v", time.Since(start))
	fifoDir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(fifoDir, RunsArchive), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadRunsArchive(fifoDir); !errors.Is(err, safefile.ErrNotRegular) {
		t.Errorf("a FIFO archive: %v, want ErrNotRegular", err)
	}
}

// FuzzRunsArchive: any bytes as runs.tar.gz are read or refused with an
// error, never a panic; what is read is only regular files under runs/.
func FuzzRunsArchive(f *testing.F) {
	f.Add(gzTar(f, []tar.Header{{Name: "runs/t/a/s1/metrics.jsonl", Typeflag: tar.TypeReg, Mode: 0o644, Size: 10}}, false))
	f.Add(gzTar(f, []tar.Header{{Name: "runs/../x", Typeflag: tar.TypeReg, Mode: 0o644, Size: 1}}, false))
	f.Add([]byte("not gzip"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, RunsArchive), data, 0o644); err != nil {
			t.Fatal(err)
		}
		files, err := ReadRunsArchive(dir)
		if err != nil {
			return
		}
		for name := range files {
			if !strings.HasPrefix(name, "runs/") || strings.Contains(name, "..") {
				t.Fatalf("accepted entry %q", name)
			}
		}
	})
}
