// Command mujoco times sim/articulated against MuJoCo on the same MJCF
// files (built only with -tags mujoco: native MuJoCo 2.2.2 is Debian's
// libmujoco-dev through cgo, so the core module stays pure Go). artspeed
// steps each file from qpos0 with zero controls on the articulated engine,
// on MuJoCo 2.2.2 and (unless -node=false) on MuJoCo 3.3.8 in Node, in
// interleaved rounds; tabletop runs the anchors' tabletop scenarios
// (mjbench.c's idle, push and lift) on the articulated engine and on MuJoCo
// 2.2.2. Both report steps per CPU-second of the stepping thread.
//
//	go run -tags mujoco ./bench/mujoco artspeed -rounds 5 -steps 20000 FILE.xml...
//	go run -tags mujoco ./bench/mujoco tabletop -rounds 3 -episodes 6 sim/mjcf/testdata/tabletop.xml
//
// Trajectories are compared with MuJoCo 3.3.8 in sim/mjcf's tests
// (scripts/mujoco-oracle.sh), not here.
package main
