// Package atomicfile writes files so that a crash or kill at any moment
// leaves either the old content or the complete new content at the path,
// never a torn file. Checkpoints, saved buffers, models and rendered outputs
// all go through it.
package atomicfile
