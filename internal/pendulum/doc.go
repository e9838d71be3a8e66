// Package pendulum is a Go port of Gymnasium's Pendulum-v1 for tests and
// benchmarks of the learning code (sac, train): the same dynamics, reward,
// observation, reset distribution and 200-step time limit. It has no
// rendering and is not registered as a manipulation task.
package pendulum
