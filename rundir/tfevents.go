package rundir

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// TensorBoard event files are TFRecord files of serialised tensorflow.Event
// protobufs. Both layers are small enough to write by hand:
//
//	record  = uint64 length (little endian)
//	          uint32 masked_crc32c(length bytes)
//	          data[length]
//	          uint32 masked_crc32c(data)
//	masked  = ((crc >> 15) | (crc << 17)) + 0xa282ead8   (crc32c = Castagnoli)
//
//	Event   { double wall_time = 1; int64 step = 2; string file_version = 3; Summary summary = 5; }
//	Summary { repeated Value value = 1; }
//	Value   { string tag = 1; float simple_value = 2; }
//
// (tensorflow/core/util/event.proto, tensorflow/core/framework/summary.proto,
// tensorflow/core/lib/io/record_writer.cc).

var crc32c = crc32.MakeTable(crc32.Castagnoli)

// maskedCRC is TFRecord's masked CRC-32C.
func maskedCRC(b []byte) uint32 {
	c := crc32.Checksum(b, crc32c)
	return ((c >> 15) | (c << 17)) + 0xa282ead8
}

// protobuf wire helpers (wire types: 0 varint, 1 fixed64, 2 bytes, 5 fixed32).
func pbVarint(b []byte, v uint64) []byte { return binary.AppendUvarint(b, v) }
func pbKey(b []byte, field, wire int) []byte {
	return pbVarint(b, uint64(field)<<3|uint64(wire))
}
func pbBytes(b []byte, field int, v []byte) []byte {
	b = pbKey(b, field, 2)
	b = pbVarint(b, uint64(len(v)))
	return append(b, v...)
}

// encodeEvent serialises one tensorflow.Event. version is written when
// non-empty (the first record of a file); values become simple_value
// summaries, sorted by tag.
func encodeEvent(wall float64, step int64, version string, values map[string]float64) []byte {
	var ev []byte
	ev = pbKey(ev, 1, 1)
	ev = binary.LittleEndian.AppendUint64(ev, math.Float64bits(wall))
	ev = pbKey(ev, 2, 0)
	ev = pbVarint(ev, uint64(step))
	if version != "" {
		ev = pbBytes(ev, 3, []byte(version))
	}
	if len(values) > 0 {
		tags := make([]string, 0, len(values))
		for k := range values {
			tags = append(tags, k)
		}
		sort.Strings(tags)
		var sum []byte
		for _, tag := range tags {
			var v []byte
			v = pbBytes(v, 1, []byte(tag))
			v = pbKey(v, 2, 5)
			v = binary.LittleEndian.AppendUint32(v, math.Float32bits(float32(values[tag])))
			sum = pbBytes(sum, 1, v)
		}
		ev = pbBytes(ev, 5, sum)
	}
	return ev
}

// appendRecord frames data as one TFRecord.
func appendRecord(b, data []byte) []byte {
	var hdr [8]byte
	binary.LittleEndian.PutUint64(hdr[:], uint64(len(data)))
	b = append(b, hdr[:]...)
	b = binary.LittleEndian.AppendUint32(b, maskedCRC(hdr[:]))
	b = append(b, data...)
	return binary.LittleEndian.AppendUint32(b, maskedCRC(data))
}

// EventWriter appends scalar summaries to a TensorBoard event file.
// It is not safe for concurrent use.
type EventWriter struct {
	f    *os.File
	w    *bufio.Writer
	path string
	buf  []byte
}

// NewEventWriter creates a new events.out.tfevents.* file in dir (a fresh
// file per process, as TensorBoard expects; it merges all files in a
// directory by step).
func NewEventWriter(dir string) (*EventWriter, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create TensorBoard directory: %w", err)
	}
	host, _ := os.Hostname()
	if host == "" {
		host = "localhost"
	}
	now := time.Now()
	name := fmt.Sprintf("events.out.tfevents.%d.%s.%d", now.Unix(), host, now.Nanosecond())
	path := filepath.Join(dir, name)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("create TensorBoard event file: %w", err)
	}
	e := &EventWriter{f: f, w: bufio.NewWriter(f), path: path}
	if err := e.write(encodeEvent(wallSeconds(now), 0, "brain.Event:2", nil)); err != nil {
		f.Close()
		return nil, err
	}
	return e, e.Flush()
}

func wallSeconds(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }

func (e *EventWriter) write(ev []byte) error {
	e.buf = appendRecord(e.buf[:0], ev)
	if _, err := e.w.Write(e.buf); err != nil {
		return fmt.Errorf("write TensorBoard event: %w", err)
	}
	return nil
}

// Path returns the event file's path.
func (e *EventWriter) Path() string { return e.path }

// WriteScalars records values (tag → value) at step.
func (e *EventWriter) WriteScalars(step int64, values map[string]float64) error {
	clean := make(map[string]float64, len(values))
	for k, v := range values {
		if !math.IsNaN(v) {
			clean[k] = v
		}
	}
	return e.write(encodeEvent(wallSeconds(time.Now()), step, "", clean))
}

// Flush writes buffered events to the file.
func (e *EventWriter) Flush() error {
	if err := e.w.Flush(); err != nil {
		return fmt.Errorf("flush TensorBoard events: %w", err)
	}
	return nil
}

// Close flushes and closes the file.
func (e *EventWriter) Close() error {
	ferr := e.Flush()
	if err := e.f.Close(); err != nil && ferr == nil {
		ferr = err
	}
	return ferr
}
