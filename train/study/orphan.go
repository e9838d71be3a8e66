package study

import (
	"os"
	"path/filepath"
	"time"

	"github.com/vlmrb/vlmrb/internal/cputime"
)

// EnvAttempts is set in a training child's environment to its run's
// attempt log. The study process records each attempt when its child
// exits; when the study process died first (killed, its host's session
// closed), nobody is left to do that, so the child records its own
// attempt on exit: RecordOrphan.
const EnvAttempts = "VLMRB_STUDY_ATTEMPTS"

// Orphan notes this process's start and parent, for RecordOrphan; call it
// first thing in main. It is a no-op outside a study's child.
type Orphan struct {
	path  string
	ppid  int
	start time.Time
	args  []string
}

// WatchOrphan returns the record to finish with RecordOrphan, or nil when
// this process is not a study's training child.
func WatchOrphan(args []string) *Orphan {
	p := os.Getenv(EnvAttempts)
	if p == "" {
		return nil
	}
	_ = os.Unsetenv(EnvAttempts)
	return &Orphan{path: p, ppid: os.Getppid(), start: time.Now().UTC(), args: args}
}

// RecordOrphan appends this process's attempt (its own CPU time, exit
// code, Orphaned set) to the run's attempt log when its study process is
// gone (the parent changed), and does nothing while the study process
// lives (it records the attempt itself when it reaps this one). A nil o
// is a no-op. The run's lock is still held by this process here, so the
// append cannot interleave with another study's.
func (o *Orphan) RecordOrphan(exitCode int) {
	if o == nil || os.Getppid() == o.ppid {
		return
	}
	host, _ := os.Hostname()
	a := Attempt{Start: o.start, WallS: time.Since(o.start).Seconds(), CPUS: cputime.Process().Seconds(),
		ExitCode: exitCode, Host: host, PID: os.Getpid(), Orphaned: true}
	for _, s := range o.args {
		if s == "--resume" {
			a.Resumed = true
		}
	}
	_ = appendAttempt(filepath.Dir(o.path), a)
}
