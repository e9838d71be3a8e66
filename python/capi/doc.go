// Command capi is vlmrb's C ABI: a c-shared library (libvlmrb.so, built
// with `go build -buildmode=c-shared`) that the Python package python/vlmrb
// loads with ctypes.
//
// It owns only the glue: one handle table (integers cross into C, never Go
// pointers), error codes with the Go error's message copied into a caller
// buffer, and the conversion between caller-owned C arrays (numpy buffers)
// and the existing public APIs it stands on — tasks (environments), render
// through train's scorer camera (frames), control (episode seeds), replay
// (the VLM-RB mixture sampler) and vlmprio (clips, scorers, the async
// prioritizer). The one piece of behaviour of its own is the vector env's
// autoreset, which follows Gymnasium 1.x (NEXT_STEP) rather than
// control.VecEnv's same-step reset; see vec.go.
package main
