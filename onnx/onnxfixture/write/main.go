package main

import (
	"fmt"
	"os"

	"github.com/vlmrb/vlmrb/onnx/onnxfixture"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: write DIR")
		os.Exit(2)
	}
	if err := onnxfixture.Write(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "onnxfixture:", err)
		os.Exit(1)
	}
}
