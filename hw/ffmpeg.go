package hw

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
)

// lookFFmpeg resolves the ffmpeg executable or returns ErrNoFFmpeg.
func lookFFmpeg(bin string) (string, error) {
	p, err := exec.LookPath(bin)
	if err != nil {
		return "", fmt.Errorf("%w (%s: %v)", ErrNoFFmpeg, bin, err)
	}
	return p, nil
}

// ffmpegProc is an ffmpeg subprocess writing PPM images (image2pipe) on
// stdout. Close kills and reaps it.
type ffmpegProc struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser // nil unless requested
	out     *bufio.Reader
	outFile *os.File
	stderr  *tailBuffer
	done    chan struct{} // closed after Wait returns
	werr    error         // Wait's result, valid after done
	once    sync.Once
}

// ppmOutputArgs makes ffmpeg write every decoded frame as binary PPM.
var ppmOutputArgs = []string{"-an", "-sn", "-dn", "-vsync", "0", "-f", "image2pipe", "-c:v", "ppm", "-pix_fmt", "rgb24", "pipe:1"}

func startFFmpegProc(bin string, args []string, withStdin bool) (*ffmpegProc, error) {
	full := append([]string{"-hide_banner", "-loglevel", "error", "-nostats"}, args...)
	cmd := exec.Command(bin, full...)
	p := &ffmpegProc{cmd: cmd, stderr: &tailBuffer{max: 4096}, done: make(chan struct{})}
	cmd.Stderr = p.stderr
	// Plain os.Pipes, not cmd.StdoutPipe: Wait closes the pipes it made,
	// which would race with reading the frames ffmpeg wrote before exiting.
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = outW
	var inR *os.File
	if withStdin {
		var inW *os.File
		if inR, inW, err = os.Pipe(); err != nil {
			outR.Close()
			outW.Close()
			return nil, err
		}
		cmd.Stdin = inR
		p.stdin = inW
	}
	err = cmd.Start()
	// the child holds its own copies of these ends
	outW.Close()
	if inR != nil {
		inR.Close()
	}
	if err != nil {
		outR.Close()
		if p.stdin != nil {
			p.stdin.Close()
		}
		return nil, fmt.Errorf("start ffmpeg: %w", err)
	}
	p.outFile = outR
	p.out = bufio.NewReaderSize(outR, 1<<16)
	go func() {
		p.werr = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// close kills the process (if still running) and waits for it.
func (p *ffmpegProc) close() {
	p.once.Do(func() {
		if p.stdin != nil {
			_ = p.stdin.Close()
		}
		_ = p.cmd.Process.Kill()
		<-p.done
		_ = p.outFile.Close()
	})
}

// exitError describes why the process ended, with its stderr tail.
func (p *ffmpegProc) exitError() error {
	<-p.done
	msg := strings.TrimSpace(p.stderr.String())
	if p.werr == nil {
		if msg != "" {
			return fmt.Errorf("ffmpeg: %s", msg)
		}
		return nil
	}
	if msg != "" {
		return fmt.Errorf("ffmpeg: %v: %s", p.werr, msg)
	}
	return fmt.Errorf("ffmpeg: %w", p.werr)
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// readPPM reads one binary PPM (P6, maxval < 256) from r into p as RGB24.
// It returns io.EOF at a clean end between images.
func readPPM(r *bufio.Reader, p *payload, maxBytes int) error {
	magic := make([]byte, 2)
	if _, err := io.ReadFull(r, magic); err != nil {
		if err == io.ErrUnexpectedEOF {
			return fmt.Errorf("ppm: truncated magic: %w", err)
		}
		return err
	}
	if !bytes.Equal(magic, []byte("P6")) {
		return fmt.Errorf("ppm: bad magic %q", magic)
	}
	var v [3]int
	for i := range v {
		n, err := ppmInt(r)
		if err != nil {
			return err
		}
		v[i] = n
	}
	w, h, maxval := v[0], v[1], v[2]
	if w <= 0 || h <= 0 || w > maxDim || h > maxDim || maxval <= 0 || maxval > 255 {
		return fmt.Errorf("ppm: unsupported header %dx%d maxval %d", w, h, maxval)
	}
	n := w * h * 3
	if n > maxBytes {
		return fmt.Errorf("ppm: %dx%d frame is %d bytes (limit %d): %w", w, h, n, maxBytes, ErrFrameTooLarge)
	}
	if cap(p.data) < n {
		p.data = make([]byte, n)
	}
	p.data = p.data[:n]
	if _, err := io.ReadFull(r, p.data); err != nil {
		return fmt.Errorf("ppm: truncated pixels: %w", io.ErrUnexpectedEOF)
	}
	p.kind, p.w, p.h = kindRGB24, w, h
	return nil
}

// ppmInt reads whitespace, comments and one decimal integer, consuming the
// single whitespace byte after it.
func ppmInt(r *bufio.Reader) (int, error) {
	var digits []byte
	for {
		c, err := r.ReadByte()
		if err != nil {
			return 0, fmt.Errorf("ppm: truncated header: %w", io.ErrUnexpectedEOF)
		}
		switch {
		case c >= '0' && c <= '9':
			if len(digits) >= 6 {
				return 0, errors.New("ppm: header number too long")
			}
			digits = append(digits, c)
		case c == '#' && len(digits) == 0:
			if _, err := r.ReadSlice('\n'); err != nil {
				return 0, errors.New("ppm: bad comment")
			}
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if len(digits) > 0 {
				return strconv.Atoi(string(digits))
			}
		default:
			return 0, fmt.Errorf("ppm: unexpected byte 0x%02x in header", c)
		}
	}
}

// probeFPS asks ffprobe (next to ffmpeg) for a file's average frame rate;
// ok is false when it cannot tell.
func probeFPS(ctx context.Context, ffmpeg, path string) (float64, bool) {
	probe := strings.TrimSuffix(ffmpeg, "ffmpeg") + "ffprobe"
	if _, err := exec.LookPath(probe); err != nil {
		return 0, false
	}
	out, err := exec.CommandContext(ctx, probe, "-v", "error", "-select_streams", "v:0",
		"-show_entries", "stream=avg_frame_rate", "-of", "csv=p=0", "file:"+path).Output()
	if err != nil {
		return 0, false
	}
	num, den, ok := strings.Cut(strings.TrimSpace(string(out)), "/")
	a, err1 := strconv.ParseFloat(num, 64)
	b := 1.0
	var err2 error
	if ok {
		b, err2 = strconv.ParseFloat(den, 64)
	}
	if err1 != nil || err2 != nil || a <= 0 || b <= 0 {
		return 0, false
	}
	return a / b, true
}
