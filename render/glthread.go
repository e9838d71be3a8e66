//go:build cgo && !nogl

package render

import (
	"fmt"
	"runtime"
)

// glThread runs functions on one locked OS thread, where a GL context is
// current for the thread's whole life (GL calls from any other thread
// silently do nothing).
type glThread struct {
	req  chan func()
	done chan struct{}
}

// startGLThread starts the thread and runs setup on it; if setup fails the
// thread exits (and, being locked, is discarded by the runtime).
func startGLThread(setup func() error) (*glThread, error) {
	t := &glThread{req: make(chan func()), done: make(chan struct{})}
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if err := protect(setup); err != nil {
			errc <- err
			return
		}
		errc <- nil
		for f := range t.req {
			f()
			t.done <- struct{}{}
		}
	}()
	if err := <-errc; err != nil {
		return nil, err
	}
	return t, nil
}

// call runs f on the GL thread and waits. Callers serialise calls.
func (t *glThread) call(f func() error) error {
	var err error
	t.req <- func() { err = protect(f) }
	<-t.done
	return err
}

// stop ends the thread after running last on it.
func (t *glThread) stop(last func() error) error {
	err := t.call(last)
	close(t.req)
	return err
}

// protect turns a panic from a GL binding into an error.
func protect(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("render: GL call panicked: %v", r)
		}
	}()
	return f()
}
