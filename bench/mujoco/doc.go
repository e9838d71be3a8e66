// Command mujoco checks sim/mjcf against MuJoCo 2.2.2 (Debian's
// libmujoco-dev, through cgo; built only with -tags mujoco, so the core
// module stays pure Go): for each MJCF file it compares the compiled
// quantities (body count, masses, principal inertias, body world poses at
// qpos0), joint trajectories under gravity and under constant controls, and
// rest poses; it tabulates which sample models load or are refused, and it
// times both engines on the same files in interleaved rounds; artspeed
// times sim/articulated against MuJoCo 2.2.2 and MuJoCo 3.3.8 (Node).
//
//	go run -tags mujoco ./bench/mujoco compare FILE.xml...
//	go run -tags mujoco ./bench/mujoco refuse DIR
//	go run -tags mujoco ./bench/mujoco speed -rounds 5 -steps 20000 FILE.xml...
//	go run -tags mujoco ./bench/mujoco artspeed -rounds 5 -steps 20000 FILE.xml...
package main
