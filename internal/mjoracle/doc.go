// Package mjoracle is the tests' one runner of the MuJoCo 3.3.8 oracle
// (scripts/mujoco-oracle.mjs on Node with npm mujoco-js, installed by
// scripts/mujoco-oracle.sh --install-only): Dir finds mujoco-js or skips
// the test (fails it when VLMRB_MUJOCO_ORACLE=require, as `make test`
// sets), Run steps an MJCF file in MuJoCo and returns its trajectory
// (Line: time, qpos, qvel), MaxDiff compares two trajectories. Tests of
// sim/mjcf and tasks use it to hold the articulated engine to MuJoCo; the
// core never runs MuJoCo.
package mjoracle
