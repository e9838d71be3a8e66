//go:build linux && (amd64 || arm64)

package hw

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"
	"unsafe"

	"github.com/vlmrb/vlmrb/frame"
)

// TestV4L2ABI checks the Go mirrors of the V4L2 structs against sizes and
// offsets printed by a C program compiled against linux/videodev2.h on
// linux/amd64 (identical on arm64: both LP64), and the ioctl numbers
// against the _IOC encoding (dir<<30 | size<<16 | 'V'<<8 | nr).
func TestV4L2ABI(t *testing.T) {
	t.Parallel()
	var b v4l2Buffer
	checks := []struct {
		name      string
		got, want uintptr
	}{
		{"sizeof v4l2_capability", unsafe.Sizeof(v4l2Capability{}), 104},
		{"sizeof v4l2_fmtdesc", unsafe.Sizeof(v4l2FmtDesc{}), 64},
		{"sizeof v4l2_format", unsafe.Sizeof(v4l2Format{}), 208},
		{"offsetof v4l2_format.fmt", unsafe.Offsetof(v4l2Format{}.Fmt), 8},
		{"sizeof v4l2_pix_format", unsafe.Sizeof(v4l2PixFormat{}), 48},
		{"sizeof v4l2_requestbuffers", unsafe.Sizeof(v4l2RequestBuffers{}), 20},
		{"sizeof v4l2_buffer", unsafe.Sizeof(b), 88},
		{"offsetof v4l2_buffer.timestamp", unsafe.Offsetof(b.Timestamp), 24},
		{"offsetof v4l2_buffer.sequence", unsafe.Offsetof(b.Sequence), 56},
		{"offsetof v4l2_buffer.m", unsafe.Offsetof(b.Offset), 64},
		{"offsetof v4l2_buffer.length", unsafe.Offsetof(b.Length), 72},
		{"offsetof v4l2_buffer.request_fd", unsafe.Offsetof(b.RequestFD), 80},
		{"sizeof v4l2_streamparm", unsafe.Sizeof(v4l2StreamParm{}), 204},
		{"offsetof v4l2_fmtdesc.pixelformat", unsafe.Offsetof(v4l2FmtDesc{}.PixelFormat), 44},
		{"offsetof v4l2_capability.device_caps", unsafe.Offsetof(v4l2Capability{}.DeviceCaps), 88},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
	ioc := func(dir, nr, size uintptr) uintptr { return dir<<30 | size<<16 | 'V'<<8 | nr }
	const rd, wr = 2, 1
	nums := []struct {
		name      string
		got, want uintptr
	}{
		{"VIDIOC_QUERYCAP", vidiocQueryCap, ioc(rd, 0, unsafe.Sizeof(v4l2Capability{}))},
		{"VIDIOC_ENUM_FMT", vidiocEnumFmt, ioc(rd|wr, 2, unsafe.Sizeof(v4l2FmtDesc{}))},
		{"VIDIOC_S_FMT", vidiocSFmt, ioc(rd|wr, 5, unsafe.Sizeof(v4l2Format{}))},
		{"VIDIOC_REQBUFS", vidiocReqBufs, ioc(rd|wr, 8, unsafe.Sizeof(v4l2RequestBuffers{}))},
		{"VIDIOC_QUERYBUF", vidiocQueryBuf, ioc(rd|wr, 9, unsafe.Sizeof(b))},
		{"VIDIOC_QBUF", vidiocQBuf, ioc(rd|wr, 15, unsafe.Sizeof(b))},
		{"VIDIOC_DQBUF", vidiocDQBuf, ioc(rd|wr, 17, unsafe.Sizeof(b))},
		{"VIDIOC_STREAMON", vidiocStreamOn, ioc(wr, 18, 4)},
		{"VIDIOC_STREAMOFF", vidiocStreamOff, ioc(wr, 19, 4)},
		{"VIDIOC_S_PARM", vidiocSParm, ioc(rd|wr, 22, unsafe.Sizeof(v4l2StreamParm{}))},
	}
	for _, n := range nums {
		if n.got != n.want {
			t.Errorf("%s = %#x, want %#x", n.name, n.got, n.want)
		}
	}
	if fourcc(pixFmtMJPEG) != "MJPG" || fourcc(pixFmtYUYV) != "YUYV" || fourcc(pixFmtJPEG) != "JPEG" {
		t.Error("FourCC constants do not spell MJPG/YUYV/JPEG")
	}
}

// TestV4L2NotACamera opens a character device that is not V4L2: the
// QUERYCAP ioctl must fail with a clear, permanent error.
func TestV4L2NotACamera(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := OpenV4L2(ctx, "/dev/null", Options{})
	if err == nil || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("OpenV4L2(/dev/null) = %v, want an immediate QUERYCAP error", err)
	}
	t.Logf("as expected: %v", err)
}

// TestV4L2Device captures from the first /dev/video* when there is one.
func TestV4L2Device(t *testing.T) {
	devs, _ := filepath.Glob("/dev/video*")
	if len(devs) == 0 {
		t.Skip("no /dev/video* on this machine (no camera, no v4l2loopback/vivid module): V4L2 capture is untested here; TestV4L2ABI and TestV4L2NotACamera cover the ioctl layer")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, pf := range []string{"mjpeg", "yuyv"} {
		src, err := Open(ctx, devs[0], Options{PixelFormat: pf, Width: 320, Height: 240})
		if err != nil {
			t.Logf("%s: %s: %v", devs[0], pf, err)
			continue
		}
		var f frame.Frame
		for i := 0; i < 5; i++ {
			if err := src.Next(ctx, &f); err != nil {
				t.Fatalf("%s %s frame %d: %v", devs[0], pf, i, err)
			}
			if f.Image.Rect.Dx() != 320 || f.Image.Rect.Dy() != 240 || f.Time.IsZero() {
				t.Fatalf("frame %v at %v", f.Image.Rect, f.Time)
			}
		}
		t.Logf("%s %s: %+v", devs[0], pf, src.(StatsReporter).Stats())
		_ = src.Close()
	}
}
