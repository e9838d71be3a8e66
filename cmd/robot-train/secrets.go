package main

import (
	"io"

	"github.com/vlmrb/vlmrb/train"
)

// redactOutput is the CLI's one redaction point: everything robot-train
// prints goes through writers that mask keys and URL credentials
// (train.RedactOutput).
func redactOutput(args []string, stdout, stderr io.Writer) (io.Writer, io.Writer) {
	return train.RedactOutput(args, stdout, stderr)
}
