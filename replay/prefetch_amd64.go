package replay

// prefetchGroups hints the CPU to load the 64-byte leaf group line
// base[16·node[j]] for every j (PREFETCHT0). A software prefetch retires
// without waiting for its line, so work after it overlaps the misses.
// node[j] must index a leaf group of the array at base.
//
//go:noescape
func prefetchGroups(base *float32, node []int32)

const havePrefetch = true

// prefetchGroups64 is prefetchGroups for a level above the leaves, whose
// 16-float64 group base[16·node[j]] is two lines; both are prefetched.
//
//go:noescape
func prefetchGroups64(base *float64, node []int32)
