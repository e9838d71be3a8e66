//go:build race

package vlmprio_test

// raceEnabled trims the slow simulation sweeps under the race detector,
// which slows physics and rasterization ~10× and adds nothing there.
const raceEnabled = true
