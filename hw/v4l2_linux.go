//go:build linux && (amd64 || arm64)

package hw

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// V4L2 ABI (linux/videodev2.h) for 64-bit little-endian Linux. The struct
// layouts below are checked against the C header's sizes and offsets in
// v4l2_linux_test.go.
const (
	v4l2BufTypeVideoCapture = 1
	v4l2MemoryMMAP          = 1
	v4l2FieldAny            = 0
	v4l2CapVideoCapture     = 0x00000001
	v4l2CapStreaming        = 0x04000000
	v4l2CapDeviceCaps       = 0x80000000
	v4l2BufFlagTimestampMsk = 0x0000e000
	v4l2BufFlagTimestampMon = 0x00002000
	v4l2BufFlagError        = 0x00000040

	// FourCC pixel formats.
	pixFmtMJPEG = 0x47504A4D // 'MJPG'
	pixFmtJPEG  = 0x4745504A // 'JPEG'
	pixFmtYUYV  = 0x56595559 // 'YUYV'

	vidiocQueryCap  = 0x80685600
	vidiocEnumFmt   = 0xc0405602
	vidiocSFmt      = 0xc0d05605
	vidiocReqBufs   = 0xc0145608
	vidiocQueryBuf  = 0xc0585609
	vidiocQBuf      = 0xc058560f
	vidiocDQBuf     = 0xc0585611
	vidiocStreamOn  = 0x40045612
	vidiocStreamOff = 0x40045613
	vidiocSParm     = 0xc0cc5616

	v4l2Buffers = 4 // mmap buffers requested from the driver
)

type v4l2Capability struct {
	Driver       [16]byte
	Card         [32]byte
	BusInfo      [32]byte
	Version      uint32
	Capabilities uint32
	DeviceCaps   uint32
	Reserved     [3]uint32
}

type v4l2FmtDesc struct {
	Index       uint32
	Type        uint32
	Flags       uint32
	Description [32]byte
	PixelFormat uint32
	MbusCode    uint32
	Reserved    [3]uint32
}

type v4l2PixFormat struct {
	Width, Height, PixelFormat, Field, BytesPerLine, SizeImage uint32
	Colorspace, Priv, Flags, YcbcrEnc, Quantization, XferFunc  uint32
}

type v4l2Format struct {
	Type uint32
	_    uint32    // the union is 8-byte aligned (it holds pointers)
	Fmt  [200]byte // v4l2_pix_format at offset 0
}

type v4l2RequestBuffers struct {
	Count, Type, Memory, Capabilities uint32
	Flags                             uint8
	Reserved                          [3]uint8
}

type v4l2Buffer struct {
	Index, Type, BytesUsed, Flags, Field uint32
	_                                    uint32
	Timestamp                            unix.Timeval
	Timecode                             [16]byte
	Sequence, Memory                     uint32
	Offset                               uint64 // union m: mem_offset for MMAP
	Length, Reserved2                    uint32
	RequestFD                            int32
	_                                    uint32
}

type v4l2StreamParm struct {
	Type uint32
	Parm [200]byte // v4l2_captureparm: capability, capturemode, timeperframe{num,den}, ...
}

func ioctl(fd int, req uintptr, arg unsafe.Pointer) error {
	for {
		_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), req, uintptr(arg))
		if e == unix.EINTR {
			continue
		}
		if e != 0 {
			return e
		}
		return nil
	}
}

// V4L2Source is a frame.Source over a Linux V4L2 capture device.
type V4L2Source struct{ *live }

// OpenV4L2 opens a V4L2 capture device (e.g. /dev/video0) with MJPEG, else
// YUYV frames (Options.PixelFormat chooses), at Options.Width×Height when
// set (the driver picks the nearest mode; frames are then resized), else
// 640×480. A missing device returns ErrNoDevice; a device that disappears
// later is reopened with backoff.
func OpenV4L2(ctx context.Context, dev string, opts Options) (*V4L2Source, error) {
	if dev == "" {
		return nil, fmt.Errorf("%w: empty device path", ErrNoDevice)
	}
	if _, err := os.Stat(dev); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrNoDevice, dev, err)
	}
	opts = opts.withDefaults()
	if err := opts.validate(); err != nil {
		return nil, err
	}
	switch strings.ToLower(opts.PixelFormat) {
	case "", "mjpeg", "mjpg", "yuyv":
	default:
		return nil, fmt.Errorf("hw: V4L2 PixelFormat %q: want mjpeg or yuyv", opts.PixelFormat)
	}
	name := opts.Camera
	if name == "" {
		name = "v4l2:" + dev
	}
	v := &v4l2Conn{dev: dev, opts: opts}
	l, err := startLive(ctx, name, opts, v.connect)
	if err != nil {
		return nil, err
	}
	return &V4L2Source{live: l}, nil
}

type v4l2Conn struct {
	dev  string
	opts Options
}

func (v *v4l2Conn) fail(what string, err error) error {
	e := fmt.Errorf("hw: v4l2 %s: %s: %w", v.dev, what, err)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOTTY) {
		return permanent(e) // the device does not support what we asked
	}
	return e
}

// connect opens the device, negotiates the format, streams mmap buffers
// until ctx ends or the device fails, and releases everything.
func (v *v4l2Conn) connect(ctx context.Context, s *sink) error {
	fd, err := unix.Open(v.dev, unix.O_RDWR|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return v.fail("open", err)
	}
	defer func() { _ = unix.Close(fd) }()

	var capb v4l2Capability
	if err := ioctl(fd, vidiocQueryCap, unsafe.Pointer(&capb)); err != nil {
		return v.fail("VIDIOC_QUERYCAP (not a V4L2 device?)", err)
	}
	caps := capb.Capabilities
	if caps&v4l2CapDeviceCaps != 0 {
		caps = capb.DeviceCaps
	}
	if caps&v4l2CapVideoCapture == 0 || caps&v4l2CapStreaming == 0 {
		return permanent(fmt.Errorf("hw: v4l2 %s: not a streaming capture device (caps 0x%08x)", v.dev, caps))
	}

	pf, err := v.chooseFormat(fd)
	if err != nil {
		return err
	}
	w, h := v.opts.Width, v.opts.Height
	if w == 0 || h == 0 {
		w, h = 640, 480
	}
	var f v4l2Format
	f.Type = v4l2BufTypeVideoCapture
	pix := (*v4l2PixFormat)(unsafe.Pointer(&f.Fmt[0]))
	pix.Width, pix.Height, pix.PixelFormat, pix.Field = uint32(w), uint32(h), pf, v4l2FieldAny
	if err := ioctl(fd, vidiocSFmt, unsafe.Pointer(&f)); err != nil {
		return v.fail("VIDIOC_S_FMT", err)
	}
	if pix.PixelFormat != pf {
		return permanent(fmt.Errorf("hw: v4l2 %s: driver chose pixel format %s instead of %s", v.dev, fourcc(pix.PixelFormat), fourcc(pf)))
	}
	fw, fh, bpl := int(pix.Width), int(pix.Height), int(pix.BytesPerLine)
	if fw <= 0 || fh <= 0 || fw > maxDim || fh > maxDim {
		return permanent(fmt.Errorf("hw: v4l2 %s: driver chose size %dx%d", v.dev, fw, fh))
	}
	if bpl < fw*2 {
		bpl = fw * 2
	}
	if v.opts.FPS > 0 {
		var sp v4l2StreamParm
		sp.Type = v4l2BufTypeVideoCapture
		tpf := (*[2]uint32)(unsafe.Pointer(&sp.Parm[8]))
		tpf[0], tpf[1] = 1000, uint32(v.opts.FPS*1000)
		_ = ioctl(fd, vidiocSParm, unsafe.Pointer(&sp)) // best effort: not all drivers allow it
	}

	// mmap buffers
	req := v4l2RequestBuffers{Count: v4l2Buffers, Type: v4l2BufTypeVideoCapture, Memory: v4l2MemoryMMAP}
	if err := ioctl(fd, vidiocReqBufs, unsafe.Pointer(&req)); err != nil {
		return v.fail("VIDIOC_REQBUFS", err)
	}
	if req.Count == 0 {
		return fmt.Errorf("hw: v4l2 %s: driver granted no buffers", v.dev)
	}
	bufs := make([][]byte, 0, req.Count)
	defer func() {
		for _, b := range bufs {
			_ = unix.Munmap(b)
		}
		free := v4l2RequestBuffers{Count: 0, Type: v4l2BufTypeVideoCapture, Memory: v4l2MemoryMMAP}
		_ = ioctl(fd, vidiocReqBufs, unsafe.Pointer(&free))
	}()
	for i := uint32(0); i < req.Count; i++ {
		b := v4l2Buffer{Index: i, Type: v4l2BufTypeVideoCapture, Memory: v4l2MemoryMMAP}
		if err := ioctl(fd, vidiocQueryBuf, unsafe.Pointer(&b)); err != nil {
			return v.fail("VIDIOC_QUERYBUF", err)
		}
		m, err := unix.Mmap(fd, int64(b.Offset), int(b.Length), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
		if err != nil {
			return v.fail("mmap", err)
		}
		bufs = append(bufs, m)
		if err := ioctl(fd, vidiocQBuf, unsafe.Pointer(&b)); err != nil {
			return v.fail("VIDIOC_QBUF", err)
		}
	}
	typ := uint32(v4l2BufTypeVideoCapture)
	if err := ioctl(fd, vidiocStreamOn, unsafe.Pointer(&typ)); err != nil {
		return v.fail("VIDIOC_STREAMON", err)
	}
	defer func() { _ = ioctl(fd, vidiocStreamOff, unsafe.Pointer(&typ)) }()
	s.connected()

	pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := unix.Poll(pfd, 100)
		if err == unix.EINTR || n == 0 {
			continue // ctx is re-checked; stalls are caught by the watchdog
		}
		if err != nil {
			return v.fail("poll", err)
		}
		if pfd[0].Revents&(unix.POLLERR|unix.POLLHUP|unix.POLLNVAL) != 0 {
			return fmt.Errorf("hw: v4l2 %s: device error (unplugged?)", v.dev)
		}
		b := v4l2Buffer{Type: v4l2BufTypeVideoCapture, Memory: v4l2MemoryMMAP}
		if err := ioctl(fd, vidiocDQBuf, unsafe.Pointer(&b)); err != nil {
			if err == unix.EAGAIN {
				continue
			}
			return v.fail("VIDIOC_DQBUF", err)
		}
		if int(b.Index) < len(bufs) && b.Flags&v4l2BufFlagError == 0 {
			t := v4l2Time(b)
			data := bufs[b.Index][:min(int(b.BytesUsed), len(bufs[b.Index]))]
			v.emit(s, pf, data, fw, fh, bpl, t)
		}
		if err := ioctl(fd, vidiocQBuf, unsafe.Pointer(&b)); err != nil {
			return v.fail("VIDIOC_QBUF", err)
		}
	}
}

// emit copies one dequeued buffer into a payload (rows compacted for YUYV).
func (v *v4l2Conn) emit(s *sink, pf uint32, data []byte, w, h, bpl int, t time.Time) {
	if !s.keep(t) {
		return
	}
	p := s.buffer()
	p.t = t
	if pf == pixFmtYUYV {
		if len(data) < bpl*(h-1)+w*2 {
			s.discard(p)
			s.l.c.decodeErrors.Add(1)
			return
		}
		p.kind, p.w, p.h = kindYUYV, w, h
		p.data = p.data[:0]
		for y := 0; y < h; y++ {
			p.data = append(p.data, data[y*bpl:y*bpl+w*2]...)
		}
	} else {
		if len(data) > v.opts.MaxFrameBytes {
			s.discard(p)
			s.l.c.decodeErrors.Add(1)
			return
		}
		p.kind, p.w, p.h = kindJPEG, 0, 0
		p.data = append(p.data[:0], data...)
	}
	s.publish(p)
}

// chooseFormat picks MJPEG (or JPEG) unless YUYV was asked for, falling
// back to whichever of the two the device has.
func (v *v4l2Conn) chooseFormat(fd int) (uint32, error) {
	have := map[uint32]bool{}
	var names []string
	for i := uint32(0); i < 64; i++ {
		d := v4l2FmtDesc{Index: i, Type: v4l2BufTypeVideoCapture}
		if err := ioctl(fd, vidiocEnumFmt, unsafe.Pointer(&d)); err != nil {
			break
		}
		have[d.PixelFormat] = true
		names = append(names, fourcc(d.PixelFormat))
	}
	order := []uint32{pixFmtMJPEG, pixFmtJPEG, pixFmtYUYV}
	if strings.EqualFold(v.opts.PixelFormat, "yuyv") {
		order = []uint32{pixFmtYUYV, pixFmtMJPEG, pixFmtJPEG}
	}
	for _, pf := range order {
		if have[pf] {
			return pf, nil
		}
	}
	return 0, permanent(fmt.Errorf("hw: v4l2 %s: no MJPEG or YUYV format (device offers: %s)", v.dev, strings.Join(names, ", ")))
}

// v4l2Time converts a buffer's timestamp to wall-clock time. Drivers stamp
// with CLOCK_MONOTONIC; other clocks fall back to the dequeue time.
func v4l2Time(b v4l2Buffer) time.Time {
	now := time.Now()
	if b.Flags&v4l2BufFlagTimestampMsk != v4l2BufFlagTimestampMon || (b.Timestamp.Sec == 0 && b.Timestamp.Usec == 0) {
		return now
	}
	var mono unix.Timespec
	if unix.ClockGettime(unix.CLOCK_MONOTONIC, &mono) != nil {
		return now
	}
	age := time.Duration(mono.Nano() - b.Timestamp.Nano())
	if age < 0 || age > time.Minute {
		return now
	}
	return now.Add(-age)
}

func fourcc(pf uint32) string {
	b := []byte{byte(pf), byte(pf >> 8), byte(pf >> 16), byte(pf >> 24)}
	return strings.TrimRight(string(b), " \x00")
}
