//go:build !amd64

package replay

// prefetchGroups is a no-op without an assembly prefetch.
func prefetchGroups(*float32, []int32) {}

const havePrefetch = false

// prefetchGroups64 is a no-op without an assembly prefetch.
func prefetchGroups64(*float64, []int32) {}
