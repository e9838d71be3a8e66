//go:build !race

package vlmprio_test

const raceEnabled = false
