//go:build !linux

package replay

// arena is a no-op off Linux: large arrays come from make.
type arena struct{}

func allocSlice[T any](_ *arena, n int) []T { return make([]T, n) }

func release[T any](_ *arena, _ *T) {}
