package hw

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// Limits of the multipart parser that do not depend on the frame size.
const (
	maxPartHeaderBytes = 16 << 10 // all header lines of one part
	maxGarbageBytes    = 64 << 10 // preamble or junk between parts
	partReaderBufSize  = 64 << 10 // bufio buffer; longer "lines" are streamed
)

// errHeadersTooLarge reports part headers over maxPartHeaderBytes.
var errHeadersTooLarge = errors.New("headers too large")

// partReader reads the parts of a multipart/x-mixed-replace body as sent
// by IP cameras, mjpg-streamer, ESP32-CAM and ffmpeg's mpjpeg muxer. It
// honours Content-Length when a part has one and otherwise scans for the
// next boundary line. Unlike mime/multipart it bounds every part (max
// bytes), tolerates a boundary parameter that already starts with "--",
// learns the boundary from the body when the header gave none, and accepts
// a stream that never sends the closing delimiter.
type partReader struct {
	br       *bufio.Reader
	boundary []byte // without the leading "--"; nil until learned
	max      int
	// inPart is true when the boundary line before the next part has been
	// consumed (so the next read starts at the part's headers).
	inPart bool
	// partLen is the Content-Length of the current part, or -1.
	partLen int
}

func newPartReader(r io.Reader, boundary string, maxBytes int) *partReader {
	pr := &partReader{br: bufio.NewReaderSize(r, partReaderBufSize), max: maxBytes}
	if boundary != "" {
		pr.boundary = []byte(boundary)
	}
	return pr
}

// next reads the next part's body into dst[:0] (growing it up to the
// limit) and returns it. It returns io.EOF at the closing delimiter or at
// a clean end of stream between parts, ErrFrameTooLarge for an oversize
// part, and a descriptive error for anything malformed.
func (pr *partReader) next(dst []byte) ([]byte, error) {
	if !pr.inPart {
		if err := pr.skipToBoundary(); err != nil {
			return dst[:0], err
		}
	}
	pr.inPart = false
	if err := pr.readHeaders(); err != nil {
		return dst[:0], err
	}
	if pr.partLen >= 0 {
		return pr.readCounted(dst)
	}
	return pr.readScanned(dst)
}

// isBoundary classifies a line: a delimiter, a closing delimiter, or data.
func (pr *partReader) isBoundary(line []byte) (delim, closing bool) {
	line = bytes.TrimRight(line, "\r\n \t")
	if len(pr.boundary) == 0 {
		return false, false
	}
	for _, d := range [2][]byte{nil, pr.boundary} {
		// "--" + boundary is the standard; a boundary that already starts
		// with "--" (webcamXP and friends) may also be written bare.
		var rest []byte
		if d == nil {
			if !bytes.HasPrefix(line, []byte("--")) || !bytes.HasPrefix(line[2:], pr.boundary) {
				continue
			}
			rest = line[2+len(pr.boundary):]
		} else {
			if !bytes.HasPrefix(pr.boundary, []byte("--")) || !bytes.HasPrefix(line, pr.boundary) {
				continue
			}
			rest = line[len(pr.boundary):]
		}
		switch string(rest) {
		case "":
			return true, false
		case "--":
			return true, true
		}
	}
	return false, false
}

// skipToBoundary consumes lines up to and including the next delimiter,
// learning the boundary from the first "--" line when none is known.
func (pr *partReader) skipToBoundary() error {
	skipped := 0
	for {
		line, err := pr.br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			skipped += len(line)
			if skipped > maxGarbageBytes {
				return errors.New("multipart: no boundary within 64 KiB")
			}
			continue
		}
		if err != nil {
			if err == io.EOF && skipped+len(line) == 0 {
				return io.EOF
			}
			if err == io.EOF {
				return fmt.Errorf("multipart: stream ended between parts: %w", io.ErrUnexpectedEOF)
			}
			return err
		}
		if pr.boundary == nil {
			t := bytes.TrimRight(line, "\r\n \t")
			if len(t) > 2 && len(t) <= 72 && bytes.HasPrefix(t, []byte("--")) {
				pr.boundary = append([]byte(nil), t[2:]...)
				return nil
			}
		}
		if d, closing := pr.isBoundary(line); d {
			if closing {
				return io.EOF
			}
			return nil
		}
		skipped += len(line)
		if skipped > maxGarbageBytes {
			return errors.New("multipart: no boundary within 64 KiB")
		}
	}
}

// readHeaders reads part headers up to the blank line, keeping only
// Content-Length.
func (pr *partReader) readHeaders() error {
	pr.partLen = -1
	total := 0
	for {
		line, err := pr.br.ReadSlice('\n')
		total += len(line)
		if total > maxPartHeaderBytes || err == bufio.ErrBufferFull {
			return fmt.Errorf("multipart: part headers longer than 16 KiB: %w", errHeadersTooLarge)
		}
		if err != nil {
			if err == io.EOF && total == 0 {
				return io.EOF // a final delimiter without "--" (ffmpeg's mpjpeg)
			}
			if err == io.EOF {
				return fmt.Errorf("multipart: stream ended in part headers: %w", io.ErrUnexpectedEOF)
			}
			return err
		}
		t := bytes.TrimRight(line, "\r\n")
		if len(t) == 0 {
			return nil
		}
		k, v, ok := bytes.Cut(t, []byte(":"))
		if !ok || !bytes.EqualFold(bytes.TrimSpace(k), []byte("Content-Length")) {
			continue
		}
		n, err := strconv.Atoi(string(bytes.TrimSpace(v)))
		if err != nil || n < 0 {
			return fmt.Errorf("multipart: bad Content-Length %q", bytes.TrimSpace(v))
		}
		pr.partLen = n
	}
}

// readCounted reads a part with a Content-Length.
func (pr *partReader) readCounted(dst []byte) ([]byte, error) {
	if pr.partLen > pr.max {
		return dst[:0], fmt.Errorf("multipart: part of %d bytes (limit %d): %w", pr.partLen, pr.max, ErrFrameTooLarge)
	}
	if cap(dst) < pr.partLen {
		dst = make([]byte, pr.partLen)
	}
	dst = dst[:pr.partLen]
	if _, err := io.ReadFull(pr.br, dst); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return dst[:0], fmt.Errorf("multipart: part body: %w", err)
	}
	return dst, nil
}

// readScanned reads a part without Content-Length, up to the next
// delimiter line, which it consumes.
func (pr *partReader) readScanned(dst []byte) ([]byte, error) {
	dst = dst[:0]
	atLineStart := true
	for {
		line, err := pr.br.ReadSlice('\n')
		// a delimiter may end the stream without a newline
		if (err == nil || err == io.EOF) && atLineStart {
			if d, closing := pr.isBoundary(line); d {
				// the CRLF before the delimiter belongs to the delimiter
				dst = bytes.TrimSuffix(dst, []byte("\n"))
				dst = bytes.TrimSuffix(dst, []byte("\r"))
				if !closing {
					pr.inPart = true
				}
				return dst, nil
			}
		}
		if len(dst)+len(line) > pr.max+2 {
			return dst[:0], fmt.Errorf("multipart: part exceeds %d bytes: %w", pr.max, ErrFrameTooLarge)
		}
		dst = append(dst, line...)
		switch err {
		case nil:
			atLineStart = true
		case bufio.ErrBufferFull:
			atLineStart = false
		case io.EOF:
			return dst[:0], fmt.Errorf("multipart: stream ended inside a part: %w", io.ErrUnexpectedEOF)
		default:
			return dst[:0], err
		}
	}
}
