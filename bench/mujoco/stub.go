//go:build !mujoco

package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "bench/mujoco times sim/articulated against MuJoCo 2.2.2: install libmujoco-dev and build with -tags mujoco (make bench-mujoco)")
	os.Exit(2)
}
