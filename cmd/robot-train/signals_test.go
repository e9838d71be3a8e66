//go:build linux

package main

import (
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The first signal cancels; later ones within the grace period are
// reported and ignored; one after it calls kill.
func TestStopOnSignals(t *testing.T) {
	sigs := make(chan os.Signal, 4)
	cancelled, killed := make(chan struct{}), make(chan struct{})
	errb := &syncBuffer{}
	done := make(chan struct{})
	var mu sync.Mutex
	clock := time.Unix(0, 0)
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	advance := func(d time.Duration) { mu.Lock(); clock = clock.Add(d); mu.Unlock() }
	go func() {
		stopOnSignals(sigs, func() { close(cancelled) }, errb, time.Minute, func() { close(killed) }, now)
		close(done)
	}()
	sigs <- syscall.SIGINT
	<-cancelled
	sigs <- syscall.SIGINT
	advance(59 * time.Second)
	sigs <- syscall.SIGHUP
	for strings.Count(errb.String(), "ignored") < 2 {
		select {
		case <-killed:
			t.Fatal("a signal within the grace period killed the process")
		default:
			time.Sleep(time.Millisecond)
		}
	}
	advance(2 * time.Second)
	sigs <- syscall.SIGINT
	<-killed
	<-done
	if n := strings.Count(errb.String(), "ignored"); n != 2 {
		t.Errorf("%d signals reported as ignored, want 2:\n%s", n, errb.String())
	}
	if !strings.Contains(errb.String(), "stopping now") {
		t.Errorf("the late signal was not reported:\n%s", errb.String())
	}
}
