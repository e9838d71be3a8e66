// Command vlmrb-viam is vlmrb's Viam module: viam-server starts it with a
// socket path and loads its models (see package vlmviam). Run by hand, it
// also evaluates a checkpoint against a robot:
//
//	vlmrb-viam eval --robot 127.0.0.1:8080 --checkpoint runs/reach --arm arm ...
//
// The binary links go.viam.com/rdk and is AGPL-3.0 (see the module README).
package main
