// Package frame defines the camera frame that flows from cameras to scorers,
// and the Source interface that both simulated cameras (package render) and
// real cameras (package hw) implement.
//
// It owns only these two types and imports nothing else of vlmrb, so that the
// scoring and replay layers above it work unchanged on simulated and real
// frames. A Frame is plain data; a Source is used by one goroutine at a time
// unless its documentation says otherwise.
package frame
