package main

import (
	"io"

	"github.com/vlmrb/vlmrb/rundir"
)

// redactOutput is the CLI's one redaction point: everything robot-train
// prints goes through writers that mask keys and URL credentials
// (rundir.RedactOutput).
func redactOutput(args []string, stdout, stderr io.Writer) (io.Writer, io.Writer) {
	return rundir.RedactOutput(args, stdout, stderr)
}
