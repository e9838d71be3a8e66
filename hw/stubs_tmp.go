package hw

import (
	"context"
	"errors"
)

func OpenRTSP(ctx context.Context, spec string, opts Options) (*MJPEGSource, error) {
	return nil, errors.New("hw: not implemented yet")
}
func OpenV4L2(ctx context.Context, spec string, opts Options) (*MJPEGSource, error) {
	return nil, errors.New("hw: not implemented yet")
}
