// Package layers holds the repository-wide test that every import points down
// the layer order as built (cmd → train/study → train → rundir → algorithms
// and tasks → storage, networks and cameras → sim, frame and stats;
// docs/architecture.md), and that internal/ holds only leaves.
// The order is written in the test as data; known upward imports sit in an
// explicit allow-list that may only shrink. It has no exported API.
package layers
