package runlock

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// FileName is the lock file inside a run directory.
const FileName = ".lock"

// maxHolderBytes bounds how much of a lock file is read to name its holder.
const maxHolderBytes = 4 << 10

// Holder describes the process that holds (or last held) a lock.
type Holder struct {
	PID     int       `json:"pid"`
	Start   time.Time `json:"start"`
	Host    string    `json:"host,omitempty"`
	Command string    `json:"command,omitempty"`
}

func (h Holder) String() string {
	if h.PID == 0 {
		return "another process (it has not written its pid yet)"
	}
	s := fmt.Sprintf("pid %d", h.PID)
	if h.Host != "" {
		s += " on " + h.Host
	}
	if !h.Start.IsZero() {
		s += ", started " + h.Start.Local().Format(time.DateTime)
	}
	if h.Command != "" {
		s += ": " + h.Command
	}
	return s
}

// HeldError reports a run directory locked by another process.
type HeldError struct {
	Dir    string
	Holder Holder
}

func (e *HeldError) Error() string {
	return fmt.Sprintf("run directory %s is in use by %s; wait for it to finish or stop it (a lock held by a process that has died is taken over automatically)", e.Dir, e.Holder)
}

// ErrHeld is matched by every *HeldError (errors.Is).
var ErrHeld = errors.New("runlock: run directory in use")

// Is makes errors.Is(err, ErrHeld) true for a *HeldError.
func (e *HeldError) Is(target error) bool { return target == ErrHeld }

// Lock is a held run-directory lock.
type Lock struct {
	f    *os.File
	path string
	// inherited: the open file description came from the parent process
	// (EnvFD), which holds it too; Release closes this process's
	// descriptor and leaves the lock to the parent.
	inherited bool
	// Stale is the previous holder when the lock file named a process
	// that is no longer running (the lock was taken over), else nil.
	Stale *Holder
}

// Acquire creates dir if needed and takes its lock without waiting. When
// another live process holds it, the error is a *HeldError naming that
// process. command describes this process for the record (for example
// "robot-train train --out runs/x"); it is truncated to 200 bytes.
func Acquire(dir, command string) (*Lock, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create run directory: %w", err)
	}
	path := filepath.Join(dir, FileName)
	if l := inherit(dir, path); l != nil {
		l.record(command)
		return l, nil
	}
	f, err := openLockFile(path, true)
	if err != nil {
		return nil, fmt.Errorf("lock run directory: %w", err)
	}
	held, err := tryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock run directory %s: %w", dir, err)
	}
	prev, _ := readHolder(f)
	if held {
		// the holder writes its record right after locking: give it a
		// moment so the refusal can name it
		for i := 0; i < 50 && prev.PID == 0; i++ {
			time.Sleep(2 * time.Millisecond)
			prev, _ = readHolder(f)
		}
		f.Close()
		return nil, &HeldError{Dir: dir, Holder: prev}
	}
	l := &Lock{f: f, path: path}
	if prev.PID != 0 && prev.PID != os.Getpid() {
		p := prev
		l.Stale = &p
	}
	l.record(command)
	return l, nil
}

// record writes this process as the holder into the lock file.
func (l *Lock) record(command string) {
	host, _ := os.Hostname()
	if len(command) > 200 {
		command = command[:200] + "…"
	}
	me := Holder{PID: os.Getpid(), Start: time.Now().UTC().Truncate(time.Second), Host: host, Command: command}
	b, _ := json.Marshal(me)
	// rewrite in place: the file, not its name, carries the lock
	if err := l.f.Truncate(0); err == nil {
		_, err = l.f.WriteAt(append(b, '\n'), 0)
		if err == nil {
			_ = l.f.Sync()
		}
	}
}

// EnvFD is the environment variable through which a process hands a held
// lock to a child it starts to work in the same directory (the study
// runner and its training): "FD:DIR", FD the child's descriptor of the
// lock file. Acquire in the child adopts that lock for DIR instead of
// refusing it, so the directory stays locked by the parent before and
// after the child, and by the child alone if the parent dies first.
const EnvFD = "VLMRB_RUNLOCK_FD"

// File is the open lock file, for a child process to inherit (see
// EnvFD); the caller must not close it.
func (l *Lock) File() *os.File { return l.f }

// ChildEnv is the EnvFD entry that hands l to a child in which the lock
// file is descriptor fd (3 for the first of exec.Cmd.ExtraFiles).
func (l *Lock) ChildEnv(fd int) string {
	dir, _ := filepath.Abs(filepath.Dir(l.path))
	return fmt.Sprintf("%s=%d:%s", EnvFD, fd, dir)
}

// handedDown reports whether EnvFD hands this process a lock for dir,
// and on which descriptor.
func handedDown(dir string) bool { _, ok := handedFD(dir); return ok }

func handedFD(dir string) (int, bool) {
	fdText, want, ok := strings.Cut(os.Getenv(EnvFD), ":")
	if !ok {
		return 0, false
	}
	fd, err := strconv.Atoi(fdText)
	if err != nil || fd < 3 {
		return 0, false
	}
	a, err1 := filepath.Abs(want)
	b, err2 := filepath.Abs(dir)
	return fd, err1 == nil && err2 == nil && a == b
}

// keepOpen holds inherited lock files released by this process (an
// *os.File's finalizer would close the descriptor).
var keepOpen []*os.File

// inherit adopts the lock the parent handed down for dir, if any.
func inherit(dir, path string) *Lock {
	fd, ok := handedFD(dir)
	if !ok {
		return nil
	}
	f := os.NewFile(uintptr(fd), path)
	if f == nil {
		return nil
	}
	st1, err1 := f.Stat()
	st2, err2 := os.Lstat(path)
	if err1 != nil || err2 != nil || !os.SameFile(st1, st2) {
		return nil
	}
	// the same open file description: flock succeeds on a lock it holds
	if held, err := tryLock(f); err != nil || held {
		return nil
	}
	_ = os.Unsetenv(EnvFD) // not for grandchildren
	return &Lock{f: f, path: path, inherited: true}
}

// Release drops the lock. The file stays (see the package doc).
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	// an empty file after a clean exit; a pid left in it means its
	// holder died without releasing (see Lock.Stale)
	if l.inherited {
		// the parent holds the same lock and releases it; this process
		// keeps its descriptor open until it exits, so that when the
		// parent is gone the run stays locked until this process has
		// finished writing there (its attempt record included)
		keepOpen = append(keepOpen, l.f)
		l.f = nil
		return nil
	}
	_ = l.f.Truncate(0)
	err := unlock(l.f)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	return err
}

// Path is the lock file.
func (l *Lock) Path() string { return l.path }

// ReadHolder returns the holder recorded in dir's lock file (the current
// holder when the lock is held, else the last one).
func ReadHolder(dir string) (Holder, error) {
	f, err := openLockFile(filepath.Join(dir, FileName), false)
	if err != nil {
		return Holder{}, err
	}
	defer f.Close()
	return readHolder(f)
}

func readHolder(f *os.File) (Holder, error) {
	b, err := io.ReadAll(io.NewSectionReader(f, 0, maxHolderBytes))
	if err != nil {
		return Holder{}, err
	}
	return ParseHolder(b)
}

// ParseHolder decodes a lock file's content. Malformed content gives the
// zero Holder and an error, never a panic.
func ParseHolder(b []byte) (Holder, error) {
	var h Holder
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return h, nil
	}
	if err := json.Unmarshal(b, &h); err != nil {
		return Holder{}, fmt.Errorf("lock file: %w", err)
	}
	if h.PID < 0 {
		h.PID = 0
	}
	h.Command = strings.ToValidUTF8(h.Command, "?")
	if len(h.Command) > 200 {
		h.Command = h.Command[:200]
	}
	return h, nil
}

// openLockFile opens a lock file without following a symbolic link and
// without blocking on a FIFO; anything but a regular file is an error
// naming it.
func openLockFile(path string, create bool) (*os.File, error) {
	flag := os.O_RDONLY
	if create {
		flag = os.O_RDWR | os.O_CREATE
	}
	f, err := os.OpenFile(path, flag|oNofollow|oNonblock, 0o644)
	if err != nil {
		if st, lerr := os.Lstat(path); lerr == nil && !st.Mode().IsRegular() {
			return nil, fmt.Errorf("%s is not a regular file (%v); remove it", path, st.Mode().Type())
		}
		return nil, err
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		_ = f.Close()
		if err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%s is not a regular file (%v); remove it", path, st.Mode().Type())
	}
	return f, nil
}
