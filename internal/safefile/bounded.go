package safefile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
)

// ErrOutside is wrapped by Within's error for a path that leaves its root.
var ErrOutside = errors.New("outside the allowed directory")

// chunk is how much ReadFileContext reads between looks at its context.
const chunk = 1 << 20

// ReadFileContext is ReadFile that also stops, with ctx's error, when ctx
// is done: the context is looked at before the open and after every MiB
// read. The byte limit counts what is read, never what Stat claims, so a
// file that reports size 0 (a device reached some other way, a file in
// /proc) is still cut off at limit+1 bytes.
func ReadFileContext(ctx context.Context, path string, limit int64) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() > limit {
		return nil, tooLarge(path, st.Size(), limit)
	}
	buf := make([]byte, 0, min(st.Size(), limit)+512)
	r := &Reader{R: f, Limit: limit, Ctx: ctx, Name: path}
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):min(cap(buf), len(buf)+chunk)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// Reader counts the bytes read through it and fails, with an error
// wrapping ErrTooLarge that names Name, once more than Limit have come;
// with Ctx set it fails with the context's error once that is done. It is
// the bounded reader for streams (archive entries, decompressors) whose
// size no Stat can tell.
type Reader struct {
	R     io.Reader
	Limit int64
	Ctx   context.Context // nil: never cancelled
	Name  string          // for errors
	N     int64           // bytes read so far
}

// Read implements io.Reader.
func (r *Reader) Read(p []byte) (int, error) {
	if r.Ctx != nil {
		if err := r.Ctx.Err(); err != nil {
			return 0, fmt.Errorf("read %s: %w", r.Name, err)
		}
	}
	if r.N > r.Limit {
		return 0, tooLarge(r.Name, r.N, r.Limit)
	}
	if room := r.Limit + 1 - r.N; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := r.R.Read(p)
	r.N += int64(n)
	if r.N > r.Limit {
		return n, tooLarge(r.Name, r.N, r.Limit)
	}
	return n, err
}

// Within checks that path, with every symbolic link in it resolved,
// lies inside root (also resolved): a model's include or mesh may not
// reach out of the model's folder through "..", an absolute name or a
// link. The error wraps ErrOutside and names both. A path that does not
// exist yet is judged by its lexical form.
func Within(root, path string) error {
	r, err := filepath.EvalSymlinks(root)
	if err != nil {
		r = root
	}
	r, _ = filepath.Abs(r)
	p, err := filepath.EvalSymlinks(path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		p = path
	}
	p, _ = filepath.Abs(p)
	rel, err := filepath.Rel(r, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return fmt.Errorf("%s resolves to %s, which is not inside %s (%w): copy the file into that folder", path, p, r, ErrOutside)
	}
	return nil
}
