package study

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/vlmrb/vlmrb/internal/atomicfile"
	"github.com/vlmrb/vlmrb/internal/safefile"
	"github.com/vlmrb/vlmrb/rundir"
)

// RunsArchive holds a study's per-run records in one file, DIR/runs.tar.gz,
// so that a results tree keeps a handful of files per study (the study
// file, its frozen defaults, the reports and curves) instead of five or six
// per run. It holds every file of DIR/runs that is the run's record —
// config.yaml, metrics.jsonl, study-config.yaml, study-attempts.jsonl,
// study-done.json, study.log, platform.json — and none of what is
// regenerated or live (checkpoints/, curves/, videos/, tb/, metrics.csv,
// study-running.json, .lock). Analyze reads the archive when DIR/runs holds
// no records (see archivedOnly); Runner.Run extracts it into DIR/runs before it starts or resumes
// anything, and `robot-train study archive DIR` writes it again.
const RunsArchive = "runs.tar.gz"

// Bounds on what an archive may unpack to (the largest committed study,
// 900 runs, unpacks to 4.7 MB; its largest file is 48 KB): more is a
// damaged or foreign file, not a study. The bytes are counted as they are
// decompressed, not taken from the entries' headers, and ReadRunsArchive,
// which holds the files in memory, stops at maxArchivedTotal; Extract and
// Verify stream one entry at a time.
const (
	maxArchivedFile    = 64 << 20
	maxArchivedTotal   = 256 << 20
	maxArchivedEntries = 100000
)

// skipInRuns reports whether the file or directory name inside DIR/runs is
// left out of the archive.
func skipInRuns(name string, dir bool) bool {
	if dir {
		switch name {
		case "checkpoints", "curves", "videos", "tb":
			return true
		}
		return false
	}
	switch name {
	case "metrics.csv", runningFile, ".lock":
		return true
	}
	return false
}

// archivable lists the files of DIR/runs that belong in the archive, as
// slash paths relative to DIR ("runs/TASK/ARM/sSEED/FILE"), sorted.
func archivable(dir string) ([]string, error) {
	root := filepath.Join(dir, "runs")
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != root && skipInRuns(d.Name(), d.IsDir()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				return err
			}
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// WriteRunsArchive writes DIR/runs.tar.gz from DIR/runs (atomically) and
// returns the number of files in it. The archive is deterministic: entries
// in lexical order, mode 0644, no owner, zero times, so the same records
// always give the same bytes.
func WriteRunsArchive(dir string) (int, error) {
	files, err := archivable(dir)
	if err != nil {
		return 0, fmt.Errorf("study archive: %w", err)
	}
	if len(files) == 0 {
		return 0, fmt.Errorf("study archive: %s holds no run records", filepath.Join(dir, "runs"))
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	tw := tar.NewWriter(zw)
	for _, f := range files {
		b, err := safefile.ReadFile(filepath.Join(dir, filepath.FromSlash(f)), maxArchivedFile)
		if err != nil {
			return 0, fmt.Errorf("study archive: %w", err)
		}
		hdr := &tar.Header{Name: f, Mode: 0o644, Size: int64(len(b)), Typeflag: tar.TypeReg, Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			return 0, fmt.Errorf("study archive: %w", err)
		}
		if _, err := tw.Write(b); err != nil {
			return 0, fmt.Errorf("study archive: %w", err)
		}
	}
	if err := tw.Close(); err != nil {
		return 0, fmt.Errorf("study archive: %w", err)
	}
	if err := zw.Close(); err != nil {
		return 0, fmt.Errorf("study archive: %w", err)
	}
	if err := atomicfile.WriteBytes(filepath.Join(dir, RunsArchive), buf.Bytes()); err != nil {
		return 0, fmt.Errorf("study archive: %w", err)
	}
	return len(files), nil
}

// ReadRunsArchive loads DIR/runs.tar.gz: file contents by slash path
// relative to DIR ("runs/TASK/ARM/sSEED/metrics.jsonl"). Entries must be
// regular files under runs/ with clean relative names; each is at most
// maxArchivedFile bytes and all together at most maxArchivedTotal, counted
// as they are decompressed.
func ReadRunsArchive(dir string) (map[string][]byte, error) {
	files := map[string][]byte{}
	err := WalkRunsArchive(dir, func(p string, size int64, r io.Reader) error {
		b := make([]byte, 0, min(size, maxArchivedFile)+1)
		buf := bytes.NewBuffer(b)
		if _, err := buf.ReadFrom(r); err != nil {
			return err
		}
		files[p] = buf.Bytes()
		return nil
	})
	if err != nil {
		return nil, err
	}
	return files, nil
}

// WalkRunsArchive streams DIR/runs.tar.gz, calling fn with each entry's
// slash path relative to DIR, its declared size and a reader of its
// contents. Entries must be regular files under runs/ with clean relative
// names. The archive is opened through internal/safefile (a FIFO or
// device is refused without blocking), and the decompressed bytes are
// counted as they are read: over maxArchivedFile in one entry, or
// maxArchivedTotal in all (what fn leaves unread counts too), is an error
// naming the entry, whatever the headers claim.
func WalkRunsArchive(dir string, fn func(name string, size int64, r io.Reader) error) error {
	name := filepath.Join(dir, RunsArchive)
	f, err := safefile.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	bad := func(format string, a ...any) error {
		return fmt.Errorf("study: %s: %s (restore it from version control, or rewrite it with robot-train study archive %s)", name, fmt.Sprintf(format, a...), dir)
	}
	zr, err := gzip.NewReader(f)
	if err != nil {
		return bad("%v", err)
	}
	total := &safefile.Reader{R: zr, Limit: maxArchivedTotal, Name: name + " (uncompressed)"}
	tr := tar.NewReader(total)
	for n := 0; ; n++ {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return bad("%v", err)
		}
		if n >= maxArchivedEntries {
			return bad("more than %d entries", maxArchivedEntries)
		}
		p := hdr.Name
		if hdr.Typeflag != tar.TypeReg || path.Clean(p) != p || !strings.HasPrefix(p, "runs/") || strings.Contains(p, "..") {
			return bad("entry %q is not a run record (want regular files under runs/)", p)
		}
		if hdr.Size > maxArchivedFile {
			return bad("entry %q declares %d bytes, over the %d allowed for one run file", p, hdr.Size, maxArchivedFile)
		}
		r := &safefile.Reader{R: tr, Limit: maxArchivedFile, Name: p}
		if err := fn(p, hdr.Size, r); err != nil {
			return bad("entry %q: %v", p, err)
		}
	}
}

// VerifyRunsArchive checks that DIR/runs.tar.gz holds exactly the
// archivable files of DIR/runs, byte for byte (one entry at a time).
func VerifyRunsArchive(dir string) error {
	want, err := archivable(dir)
	if err != nil {
		return fmt.Errorf("study archive: %w", err)
	}
	wanted := make(map[string]bool, len(want))
	for _, f := range want {
		wanted[f] = true
	}
	seen := 0
	err = WalkRunsArchive(dir, func(f string, _ int64, r io.Reader) error {
		if !wanted[f] {
			return fmt.Errorf("%s is not a record in %s", f, filepath.Join(dir, "runs"))
		}
		seen++
		b, err := safefile.ReadFile(filepath.Join(dir, filepath.FromSlash(f)), maxArchivedFile)
		if err != nil {
			return err
		}
		got, err := io.ReadAll(r)
		if err != nil {
			return err
		}
		if !bytes.Equal(got, b) {
			return fmt.Errorf("%s differs from %s", f, RunsArchive)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("study archive: %w", err)
	}
	if seen != len(want) {
		return fmt.Errorf("study archive: %s holds %d files, %s %d", RunsArchive, seen, filepath.Join(dir, "runs"), len(want))
	}
	return nil
}

// RemoveArchivedRuns verifies DIR's archive and then deletes the archived
// files from DIR/runs, and the directories left empty; what the archive
// leaves out (checkpoints of unfinished runs) stays.
func RemoveArchivedRuns(dir string) error {
	if err := VerifyRunsArchive(dir); err != nil {
		return err
	}
	files, err := archivable(dir)
	if err != nil {
		return err
	}
	for _, f := range files {
		if err := os.Remove(filepath.Join(dir, filepath.FromSlash(f))); err != nil {
			return fmt.Errorf("study archive: %w", err)
		}
	}
	// deepest first, so a parent is empty once its children are gone
	var dirs []string
	_ = filepath.WalkDir(filepath.Join(dir, "runs"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs = append(dirs, p)
		}
		return nil
	})
	for i := len(dirs) - 1; i >= 0; i-- {
		_ = os.Remove(dirs[i]) // fails, as it should, on a directory that is not empty
	}
	return nil
}

// ExtractRunsArchive writes the files of DIR/runs.tar.gz into DIR/runs,
// one entry at a time. A file already there with other contents is an
// error (nothing is overwritten); one with the same contents is left as
// it is.
func ExtractRunsArchive(dir string) (int, error) {
	n := 0
	err := WalkRunsArchive(dir, func(f string, size int64, r io.Reader) error {
		body, err := io.ReadAll(r)
		if err != nil {
			return err
		}
		p := filepath.Join(dir, filepath.FromSlash(f))
		if old, err := safefile.ReadFile(p, maxArchivedFile); err == nil {
			if !bytes.Equal(old, body) {
				return fmt.Errorf("%s differs from its copy in %s; move one of them away", p, RunsArchive)
			}
			n++
			return nil
		}
		if err := safefile.CheckDir(dir, filepath.Dir(p)); err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := atomicfile.WriteBytes(p, body); err != nil {
			return err
		}
		n++
		return nil
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}

// archivedOnly reports whether DIR keeps its run records only in the
// archive: it has one, and DIR/runs holds no record (it may be absent, or
// hold only what the archive leaves out, such as the checkpoints of
// unfinished runs). Once the records are back in DIR/runs they are the
// live ones, and the archive is stale until written again.
func archivedOnly(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, RunsArchive)); err != nil {
		return false
	}
	files, err := archivable(dir)
	return len(files) == 0 && (err == nil || errors.Is(err, fs.ErrNotExist))
}

// unpackForRun is Runner.Run's hook: a study whose runs are archived gets
// them back in DIR/runs before anything starts or resumes (a dry run,
// which writes nothing, is refused instead).
func (r *Runner) unpackForRun() error {
	if !archivedOnly(r.Dir) {
		return nil
	}
	if r.DryRun {
		return fmt.Errorf("study: %s keeps its runs in %s; a dry run does not unpack it (study run without --dry-run does)", r.Dir, RunsArchive)
	}
	n, err := ExtractRunsArchive(r.Dir)
	if err != nil {
		return err
	}
	r.logf("unpacked %d run files from %s into %s (write it again with robot-train study archive %s)", n, RunsArchive, filepath.Join(r.Dir, "runs"), r.Dir)
	return nil
}

// runRecords reads what Analyze needs of each run: from the run
// directories, or from the study's archive when DIR/runs is absent.
type runRecords interface {
	state(runDir string) State
	attempts(runDir string) []Attempt
	metrics(runDir string) ([]rundir.Row, error)
}

func openRunRecords(studyDir string) (runRecords, error) {
	if !archivedOnly(studyDir) {
		return dirRecords{}, nil
	}
	// keep only what Analyze reads (the other records are skipped, their
	// bytes still counted against the archive's total)
	files := map[string][]byte{}
	err := WalkRunsArchive(studyDir, func(p string, size int64, r io.Reader) error {
		switch path.Base(p) {
		case doneFile, attemptsFile, "metrics.jsonl":
		default:
			return nil
		}
		buf := bytes.NewBuffer(make([]byte, 0, min(size, maxArchivedFile)+1))
		if _, err := buf.ReadFrom(r); err != nil {
			return err
		}
		files[p] = buf.Bytes()
		return nil
	})
	if err != nil {
		return nil, err
	}
	return archiveRecords{root: studyDir, files: files}, nil
}

type dirRecords struct{}

func (dirRecords) state(d string) State        { return RunState(d) }
func (dirRecords) attempts(d string) []Attempt { return Attempts(d) }
func (dirRecords) metrics(d string) ([]rundir.Row, error) {
	return rundir.ReadMetricsJSONL(filepath.Join(d, "metrics.jsonl"))
}

type archiveRecords struct {
	root  string
	files map[string][]byte
}

func (a archiveRecords) file(runDir, name string) ([]byte, bool) {
	rel, err := filepath.Rel(a.root, runDir)
	if err != nil {
		return nil, false
	}
	b, ok := a.files[path.Join(filepath.ToSlash(rel), name)]
	return b, ok
}

// state is RunState's answer for an archived run: done with a done mark;
// otherwise partial when a checkpoint was kept beside the archive.
func (a archiveRecords) state(runDir string) State {
	if _, ok := a.file(runDir, doneFile); ok {
		return Done
	}
	if _, _, err := rundir.LatestCheckpoint(runDir); err == nil {
		return Partial
	}
	return Missing
}

func (a archiveRecords) attempts(runDir string) []Attempt {
	b, _ := a.file(runDir, attemptsFile)
	return parseAttempts(b)
}

func (a archiveRecords) metrics(runDir string) ([]rundir.Row, error) {
	b, ok := a.file(runDir, "metrics.jsonl")
	if !ok {
		return nil, fmt.Errorf("%s has no metrics.jsonl for %s", RunsArchive, runDir)
	}
	return rundir.ParseMetricsJSONL(b)
}
