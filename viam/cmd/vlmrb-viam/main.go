package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"go.viam.com/rdk/module"

	"github.com/vlmrb/vlmrb/viam/vlmviam"
)

func main() {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "eval", "record":
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if err := vlmviam.RunCLI(ctx, os.Args[1], os.Args[2:], os.Stdout, os.Stderr); err != nil {
				fmt.Fprintln(os.Stderr, "vlmrb-viam:", err)
				os.Exit(1)
			}
			return
		case "-h", "--help", "help":
			fmt.Println("usage: vlmrb-viam SOCKET          (started by viam-server)\n       vlmrb-viam eval|record --robot ADDR --checkpoint RUN [flags]   (-h for flags)")
			return
		}
	}
	go exitWithParent()
	if len(os.Args) > 1 {
		// the policy runner watches for StopAll through viam-server
		vlmviam.SetParentAddress(vlmviam.ParentAddressFromSocket(os.Args[1]))
	}
	module.ModularMain(vlmviam.Models()...)
}

// exitWithParent ends the module when viam-server dies without stopping
// it (killed): the module is then re-parented and its socket is dead.
func exitWithParent() {
	ppid := os.Getppid()
	for {
		time.Sleep(250 * time.Millisecond)
		if os.Getppid() != ppid {
			fmt.Fprintln(os.Stderr, "vlmrb-viam: viam-server is gone; exiting")
			os.Exit(0)
		}
	}
}
