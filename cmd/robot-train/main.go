package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/vlmrb/vlmrb/train/study"
)

// stopGrace is how long signals after the first are ignored while the
// process stops cleanly (a training writes its stop checkpoint). After it,
// another signal ends the process at once, exit 130.
const stopGrace = 60 * time.Second

func main() {
	orphan := study.WatchOrphan(os.Args[1:])
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 8)
	// SIGHUP (the terminal closed) stops like Ctrl-C: a training
	// checkpoints instead of losing what it did since its last one
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go stopOnSignals(sigs, cancel, os.Stderr, stopGrace, func() { os.Exit(exitInterrupted) }, time.Now)
	stdout := &checkedWriter{w: os.Stdout}
	code := run(ctx, os.Args[1:], stdout, os.Stderr)
	if err := stdout.Err(); err != nil && code == exitOK {
		// a result that did not land is a failure (`score --json >/dev/full`)
		_, _ = fmt.Fprintf(os.Stderr, "robot-train: writing standard output failed: %v; the output is incomplete\n", err)
		code = exitFailure
	}
	orphan.RecordOrphan(code)
	os.Exit(code)
}

// stopOnSignals cancels the run on the first signal. Further signals
// within grace of the first are ignored (a second Ctrl-C, the same SIGINT
// from the terminal and from a study runner, SIGHUP after SIGINT): the
// stop in progress writes a checkpoint, and killing it would lose that.
// A signal after grace calls kill (the stop is stuck: end it now).
func stopOnSignals(sigs <-chan os.Signal, cancel func(), stderr io.Writer, grace time.Duration, kill func(), now func() time.Time) {
	first := <-sigs
	// the clock is read before cancel: whoever waits on the cancel may
	// already be the next signal's sender
	at := now()
	cancel()
	for s := range sigs {
		if d := now().Sub(at); d >= grace {
			_, _ = fmt.Fprintf(stderr, "robot-train: %v again, %s after the first stop request: stopping now without a checkpoint\n", s, d.Round(time.Second))
			kill()
			return
		}
		_, _ = fmt.Fprintf(stderr, "robot-train: %v ignored: already stopping after %v (writing a checkpoint); a signal after %s stops at once\n", s, first, grace)
	}
}

// checkedWriter remembers the first write error, so main can turn a
// result that was lost into a non-zero exit.
type checkedWriter struct {
	w   io.Writer
	mu  sync.Mutex
	err error
}

func (c *checkedWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	if err != nil {
		c.mu.Lock()
		if c.err == nil {
			c.err = err
		}
		c.mu.Unlock()
	}
	return n, err
}

// Unwrap returns the writer it checks, so rundir.IsTerminal sees the
// terminal behind it (without it the progress bar never draws).
func (c *checkedWriter) Unwrap() io.Writer { return c.w }

// Err is the first write error, if any.
func (c *checkedWriter) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}
