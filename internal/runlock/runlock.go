package runlock

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
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
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
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
	host, _ := os.Hostname()
	if len(command) > 200 {
		command = command[:200] + "…"
	}
	me := Holder{PID: os.Getpid(), Start: time.Now().UTC().Truncate(time.Second), Host: host, Command: command}
	b, _ := json.Marshal(me)
	// rewrite in place: the file, not its name, carries the lock
	if err := f.Truncate(0); err == nil {
		_, err = f.WriteAt(append(b, '\n'), 0)
		if err == nil {
			_ = f.Sync()
		}
	}
	return l, nil
}

// Release drops the lock. The file stays (see the package doc).
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	// an empty file after a clean exit; a pid left in it means its
	// holder died without releasing (see Lock.Stale)
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
	f, err := os.Open(filepath.Join(dir, FileName))
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
