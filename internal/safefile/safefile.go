package safefile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrNotRegular is wrapped by every error about a path that is not a
// regular file (or a symbolic link where none is allowed).
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is wrapped by ReadFile's error for a file over its limit.
var ErrTooLarge = errors.New("file too large")

// Kind names a file mode for an error message ("a symbolic link", "a
// FIFO", …).
func Kind(m fs.FileMode) string { return kind(m) }

func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m.IsRegular():
		return "a regular file"
	}
	return "a special file"
}

func notRegular(path string, m fs.FileMode) error {
	return fmt.Errorf("%s is %s, %w: replace it with the file itself", path, kind(m), ErrNotRegular)
}

// Open opens path for reading. It follows a symbolic link only to a
// regular file: anything else is an error wrapping ErrNotRegular that
// names path, returned without blocking (a FIFO is opened non-blocking
// and refused).
func Open(path string) (*os.File, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, notRegular(path, st.Mode())
	}
	f, err := os.OpenFile(path, os.O_RDONLY|oNonblock|oNoctty, 0)
	if err != nil {
		return nil, err
	}
	// the name may have been swapped between the stat and the open
	if st, err = f.Stat(); err != nil || !st.Mode().IsRegular() {
		_ = f.Close()
		if err != nil {
			return nil, err
		}
		return nil, notRegular(path, st.Mode())
	}
	return f, nil
}

// ReadFile reads path, a regular file (see Open) of at most limit bytes.
// A larger file is an error wrapping ErrTooLarge, returned before
// anything is allocated; a file that grows while being read is cut off
// at limit+1 bytes and refused the same way.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAll(f, path, limit)
}

func readAll(f *os.File, path string, limit int64) ([]byte, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() > limit {
		return nil, tooLarge(path, st.Size(), limit)
	}
	var buf bytes.Buffer
	buf.Grow(int(st.Size()) + 512)
	if _, err := buf.ReadFrom(io.LimitReader(f, limit+1)); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(buf.Len()) > limit {
		return nil, tooLarge(path, int64(buf.Len()), limit)
	}
	return buf.Bytes(), nil
}

func tooLarge(path string, n, limit int64) error {
	return fmt.Errorf("%s holds %d bytes or more, over the limit of %d for this file: %w", path, n, limit, ErrTooLarge)
}

// OpenAppend opens path for appending, creating it with perm if needed.
// It never follows a symbolic link: a link, or anything but a regular
// file, at path is an error wrapping ErrNotRegular that names it.
func OpenAppend(path string, perm fs.FileMode) (*os.File, error) {
	if st, err := os.Lstat(path); err == nil && !st.Mode().IsRegular() {
		return nil, notRegular(path, st.Mode())
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|oNofollow|oNonblock|oNoctty, perm)
	if err != nil {
		if isLoop(err) {
			return nil, notRegular(path, fs.ModeSymlink)
		}
		return nil, err
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		_ = f.Close()
		if err != nil {
			return nil, err
		}
		return nil, notRegular(path, st.Mode())
	}
	return f, nil
}

// CheckDir checks that no component of dir below root is a symbolic link
// or anything but a directory; components that do not exist yet are
// fine (the caller creates them). root itself may be a link (the user
// chose it). dir must be root or lie under it.
func CheckDir(root, dir string) error {
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("%s is not under %s", dir, root)
	}
	if rel == "." {
		return nil
	}
	p := root
	for _, c := range strings.Split(rel, string(filepath.Separator)) {
		p = filepath.Join(p, c)
		st, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if !st.IsDir() {
			return fmt.Errorf("%s is %s where a directory is expected; remove or rename it (nothing is followed through links under %s)", p, kind(st.Mode()), root)
		}
	}
	return nil
}

// ClearDir removes every entry of dir except those keep reports true
// for. dir itself must be a directory, not a link to one (an error naming
// it otherwise); entries that are links are removed, never followed.
func ClearDir(dir string, keep func(name string) bool) error {
	st, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is %s where a directory is expected; nothing in it was removed", dir, kind(st.Mode()))
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if keep != nil && keep(e.Name()) {
			continue
		}
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}
