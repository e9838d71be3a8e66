package main

import (
	"fmt"
	"sync"
)

// handles is the one table of live objects. C and Python hold only the
// integer keys; a closed or unknown key is an error, never a crash.
var handles = struct {
	sync.Mutex
	next int64
	m    map[int64]any
}{next: 1, m: map[int64]any{}}

func putHandle(v any) int64 {
	handles.Lock()
	defer handles.Unlock()
	h := handles.next
	handles.next++
	handles.m[h] = v
	return h
}

// getHandle returns the object of h if it is live and of type T.
func getHandle[T any](h int64, what string) (T, error) {
	handles.Lock()
	v, ok := handles.m[h]
	handles.Unlock()
	t, isT := v.(T)
	if !ok {
		var zero T
		return zero, fmt.Errorf("vlmrb: %s handle %d is closed or was never opened; make a new one", what, h)
	}
	if !isT {
		var zero T
		return zero, fmt.Errorf("vlmrb: handle %d is not a %s", h, what)
	}
	return t, nil
}

// dropHandle removes h and returns its object; ok is false when h was not
// live (a second close is then a no-op for the caller to report or ignore).
func dropHandle(h int64) (any, bool) {
	handles.Lock()
	defer handles.Unlock()
	v, ok := handles.m[h]
	delete(handles.m, h)
	return v, ok
}

// liveHandles counts open handles (for leak checks in tests).
func liveHandles() int {
	handles.Lock()
	defer handles.Unlock()
	return len(handles.m)
}

// inputError marks an error caused by what the caller passed (a wrong
// shape, a non-finite action, an unknown option): Python raises ValueError
// for it and RuntimeError (VlmrbError) for everything else.
type inputError struct{ error }

func (e inputError) Unwrap() error { return e.error }

func bad(err error) error {
	if err == nil {
		return nil
	}
	return inputError{err}
}

func badf(format string, args ...any) error { return inputError{fmt.Errorf(format, args...)} }
