//go:build linux

package replay

import (
	"runtime"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// hugeMin is the allocation size (bytes) from which arrays are mapped with
// transparent huge pages requested: random access into a 10⁶-slot buffer
// (hundreds of MB) or a 10⁷-leaf tree's leaves (40 MB) otherwise takes a TLB
// miss, and a page walk that itself misses cache, on nearly every access.
const hugeMin = 2 << 20

const hugePage = 2 << 20

// mappedBytes counts live mappings. They are not Go heap, so they do not
// pace the garbage collector; allocSlice runs a collection (which queues the
// cleanups of unreachable buffers) once more than gcMapped bytes are mapped.
var mappedBytes atomic.Int64

const gcMapped = 1 << 30

// Safety of the cleanup: every access to a buffer's or tree's mapped arrays
// happens while the Buffer is reachable — under b.mu with a deferred unlock
// that keeps b live to the end of the method — and attached samplers' trees
// are reachable from their Buffer (b.samplers), so no mapping is released
// while a method still reads it.

// arena owns memory mapped for large pointer-free arrays; its mappings are
// released by a cleanup once the owner is unreachable.
type arena struct {
	maps [][]byte
}

// allocSlice returns a zeroed []T of length n. Large slices come from an
// anonymous mapping aligned to 2 MiB with MADV_HUGEPAGE; small ones, and any
// mapping failure, fall back to make. T must not contain pointers.
func allocSlice[T any](a *arena, n int) []T {
	var zero T
	size := n * int(unsafe.Sizeof(zero))
	if size < hugeMin {
		return make([]T, n)
	}
	if mappedBytes.Load() > gcMapped {
		runtime.GC()
	}
	mem, err := syscall.Mmap(-1, 0, size+hugePage, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return make([]T, n)
	}
	off := (hugePage - int(uintptr(unsafe.Pointer(&mem[0])))%hugePage) % hugePage
	body := mem[off : off+size]
	_ = syscall.Madvise(body, 14) // MADV_HUGEPAGE; a refusal just means 4 KiB pages
	a.maps = append(a.maps, mem)
	mappedBytes.Add(int64(len(mem)))
	return unsafe.Slice((*T)(unsafe.Pointer(&body[0])), n)
}

// release registers the cleanup that unmaps a's memory once owner is
// unreachable. Call it after the last allocSlice for owner.
func release[T any](a *arena, owner *T) {
	if len(a.maps) == 0 {
		return
	}
	maps := a.maps
	a.maps = nil
	runtime.AddCleanup(owner, func(m [][]byte) {
		for _, b := range m {
			mappedBytes.Add(-int64(len(b)))
			_ = syscall.Munmap(b)
		}
	}, maps)
}
