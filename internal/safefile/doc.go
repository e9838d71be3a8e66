// Package safefile opens, reads, appends to and clears files in run and
// study directories without being led astray by what a hostile or
// careless user put there.
//
// Reads (Open, ReadFile) follow a symbolic link only to a regular file: a
// FIFO, device, socket or directory where a file is expected is an error
// that names the path, returned before anything blocks or is read, and
// ReadFile refuses a file larger than its caller's limit before it
// allocates. ReadFileContext also stops when its context is done; Reader
// counts the bytes of a stream (an archive entry, a decompressor) and
// fails past its limit, whatever a header claimed; Within keeps a path,
// links resolved, inside a root (an MJCF include inside its model's
// folder). TestNoDirectReads keeps every reader of the module on this
// package. Writes and deletions (OpenAppend, CheckDir, ClearDir) never
// follow a symbolic link: one where a file or directory is expected is an
// error naming it, so a link planted in a run directory cannot make the
// caller append to, truncate or delete its target.
//
// The checks are made on the file descriptor that is then used (fstat
// after open) where that is possible; the directory checks of CheckDir
// can race with a concurrent rename, which only a process that already
// owns the directory can make.
package safefile
