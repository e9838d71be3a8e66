// Package runlock holds an exclusive advisory lock on a run directory for
// the life of a process, so two trainings (or a training and a resume) can
// never write the same run at once.
//
// The lock is flock(2) on RUN_DIR/.lock: the kernel drops it when the
// holding process exits for any reason (SIGKILL and power loss included),
// so a lock file left by a dead process is simply taken over. While held,
// the file records the holder's pid, start time, host and command line, so
// a refusal can name the holder. The lock file is never removed (removing a
// flock'ed file would let a third process lock a fresh inode while the
// second still holds the old one). On systems without flock, Acquire
// records the holder but does not exclude.
//
// A holder can hand its lock to a child process that works in the same
// directory (the study runner to its training): the child inherits the
// open lock file (Lock.File, Lock.ChildEnv, EnvFD) and its Acquire adopts
// it instead of refusing, so the directory is locked without a gap from
// before the child starts until the parent has recorded its outcome, and
// by the child alone if the parent dies first. The child's Release leaves
// the lock to the parent and keeps its descriptor until it exits.
//
// A lock file that is a symbolic link, FIFO or anything but a regular file
// is refused by name (opened with O_NOFOLLOW|O_NONBLOCK).
//
// A Lock is not safe for concurrent use; Release it once.
package runlock
