package hw

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bluenviron/gortsplib/v4"
	"github.com/bluenviron/gortsplib/v4/pkg/base"
	"github.com/bluenviron/gortsplib/v4/pkg/description"
	"github.com/bluenviron/gortsplib/v4/pkg/format"
	"github.com/bluenviron/gortsplib/v4/pkg/liberrors"
	"github.com/bluenviron/mediacommon/pkg/codecs/h264"
	"github.com/pion/rtp"
)

// RTSPSource is a frame.Source over an RTSP stream. MJPEG tracks are
// decoded in Go; H.264 tracks by an ffmpeg subprocess.
type RTSPSource struct{ *live }

// OpenRTSP connects to rawURL (rtsp:// or rtsps://, with optional
// user:password@ for the server's Basic/Digest auth), picks the first MJPEG
// video track, else the first H.264 one, and returns once PLAY succeeded.
// Transient failures (including 404 while nobody publishes yet) are
// retried until ctx ends; bad credentials and streams without a supported
// track fail at once. H.264 needs ffmpeg (ErrNoFFmpeg otherwise).
func OpenRTSP(ctx context.Context, rawURL string, opts Options) (*RTSPSource, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("hw: bad RTSP URL %q", redactSpec(rawURL))
	}
	opts = opts.withDefaults()
	if err := opts.validate(); err != nil {
		return nil, err
	}
	bu, err := base.ParseURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("hw: bad RTSP URL %s", redactURL(u))
	}
	r := &rtspConn{name: redactURL(u), u: bu, opts: opts, secrets: urlSecrets(u)}
	switch strings.ToLower(opts.RTSPTransport) {
	case "", "tcp":
		r.transport = gortsplib.TransportTCP
	case "udp":
		r.transport = gortsplib.TransportUDP
	default:
		return nil, fmt.Errorf("hw: RTSPTransport %q: want tcp or udp", opts.RTSPTransport)
	}
	name := opts.Camera
	if name == "" {
		name = r.name
	}
	l, err := startLive(ctx, name, opts, r.connect)
	if err != nil {
		return nil, scrub(err, r.secrets...)
	}
	return &RTSPSource{live: l}, nil
}

type rtspConn struct {
	name      string // redacted URL
	u         *base.URL
	opts      Options
	secrets   []string
	transport gortsplib.Transport
}

func (r *rtspConn) wrap(err error) error {
	err = fmt.Errorf("hw: %s: %w", r.name, scrub(err, r.secrets...))
	var bad liberrors.ErrClientBadStatusCode
	if errors.As(err, &bad) && (bad.Code == base.StatusUnauthorized || bad.Code == base.StatusForbidden) {
		return permanent(fmt.Errorf("%w (check the credentials in the URL)", err))
	}
	return err
}

// connect runs one RTSP session: DESCRIBE, SETUP, PLAY, then packets until
// the session fails or ctx ends.
func (r *rtspConn) connect(ctx context.Context, s *sink) error {
	tr := r.transport
	c := &gortsplib.Client{
		Transport:    &tr,
		ReadTimeout:  r.opts.StallTimeout,
		WriteTimeout: r.opts.StallTimeout,
	}
	if err := c.Start(r.u.Scheme, r.u.Host); err != nil {
		return r.wrap(err)
	}
	// c.Close is safe to call twice; it stops every client goroutine.
	defer c.Close()
	stop := context.AfterFunc(ctx, c.Close)
	defer stop()

	desc, _, err := c.Describe(r.u)
	if err != nil {
		return r.wrap(err)
	}
	var mj *format.MJPEG
	var hf *format.H264
	var medi *description.Media
	if medi = desc.FindFormat(&mj); medi == nil {
		medi = desc.FindFormat(&hf)
	}
	if medi == nil {
		return permanent(fmt.Errorf("hw: %s: no MJPEG or H.264 video track (tracks: %s)", r.name, describeFormats(desc)))
	}
	var dec *h264Decoder
	var errc = make(chan error, 2)
	if mj != nil {
		if err := r.setupMJPEG(c, desc, medi, mj, s); err != nil {
			return err
		}
	} else {
		bin, err := lookFFmpeg(r.opts.FFmpeg)
		if err != nil {
			return permanent(fmt.Errorf("hw: %s: the stream is H.264; decoding it needs ffmpeg: %w", r.name, err))
		}
		dec, err = startH264Decoder(bin, hf, r.opts.MaxFrameBytes, s, errc)
		if err != nil {
			return r.wrap(err)
		}
		defer dec.close()
		if err := r.setupH264(c, desc, medi, hf, dec); err != nil {
			return err
		}
	}
	if _, err := c.Play(nil); err != nil {
		return r.wrap(err)
	}
	s.connected()
	go func() { errc <- c.Wait() }()
	select {
	case <-ctx.Done():
		c.Close()
		return ctx.Err()
	case err := <-errc:
		c.Close()
		if dec != nil {
			// the session ended: let ffmpeg flush the frames it holds
			dec.finish(time.Second)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return r.wrap(err)
	}
}

func (r *rtspConn) setupMJPEG(c *gortsplib.Client, desc *description.Session, medi *description.Media, forma *format.MJPEG, s *sink) error {
	rtpDec, err := forma.CreateDecoder()
	if err != nil {
		return permanent(r.wrap(err))
	}
	if _, err := c.Setup(desc.BaseURL, medi, 0, 0); err != nil {
		return r.wrap(err)
	}
	maxBytes := r.opts.MaxFrameBytes
	c.OnPacketRTP(medi, forma, func(pkt *rtp.Packet) {
		// the depacketizer reassembles one JPEG (with standard tables,
		// RFC 2435) per frame; errors mean "more packets needed" or a
		// lost packet, and the next frame resynchronises.
		img, err := rtpDec.Decode(pkt)
		if err != nil || len(img) == 0 {
			return
		}
		t := time.Now()
		if !s.keep(t) {
			return
		}
		if len(img) > maxBytes {
			// over the cap: dropped, counted as too large, and named by a
			// FrameTimeout error if no frame follows
			s.l.c.tooLarge.Add(1)
			msg := fmt.Sprintf("hw: %s: a frame of %d bytes is over MaxFrameBytes %d (%v)", r.name, len(img), maxBytes, ErrFrameTooLarge)
			s.l.c.lastErr.Store(&msg)
			return
		}
		p := s.buffer()
		p.kind, p.t, p.w, p.h = kindJPEG, t, 0, 0
		p.data = append(p.data[:0], img...)
		s.publish(p)
	})
	return nil
}

func (r *rtspConn) setupH264(c *gortsplib.Client, desc *description.Session, medi *description.Media, forma *format.H264, dec *h264Decoder) error {
	rtpDec, err := forma.CreateDecoder()
	if err != nil {
		return permanent(r.wrap(err))
	}
	if _, err := c.Setup(desc.BaseURL, medi, 0, 0); err != nil {
		return r.wrap(err)
	}
	c.OnPacketRTP(medi, forma, func(pkt *rtp.Packet) {
		au, err := rtpDec.Decode(pkt)
		if err != nil || len(au) == 0 {
			return
		}
		dec.push(au)
	})
	return nil
}

func describeFormats(desc *description.Session) string {
	var names []string
	for _, m := range desc.Medias {
		for _, f := range m.Formats {
			names = append(names, f.Codec())
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// h264Decoder feeds H.264 access units (Annex-B) to an ffmpeg subprocess
// and publishes the decoded frames. Decoding starts at the first IDR; when
// ffmpeg falls behind, access units are dropped until the next IDR so the
// decoder never sees a broken reference chain.
type h264Decoder struct {
	proc     *ffmpegProc
	forma    *format.H264
	s        *sink
	in       chan []byte
	quit     chan struct{}
	readDone chan struct{}
	wg       sync.WaitGroup
	mu       sync.Mutex // guards finished against push
	finished bool
	started  bool // an IDR has been sent (push goroutine only)
	skipping atomic.Bool
}

// h264QueueAUs bounds the access units waiting for ffmpeg's stdin.
const h264QueueAUs = 32

func startH264Decoder(bin string, forma *format.H264, maxBytes int, s *sink, errc chan<- error) (*h264Decoder, error) {
	// (no "-fflags nobuffer": it makes ffmpeg drop the frames it probes)
	args := append([]string{"-threads", "1", "-flags", "low_delay",
		"-probesize", "32", "-f", "h264", "-i", "pipe:0"}, ppmOutputArgs...)
	proc, err := startFFmpegProc(bin, args, true)
	if err != nil {
		return nil, err
	}
	d := &h264Decoder{proc: proc, forma: forma, s: s, in: make(chan []byte, h264QueueAUs),
		quit: make(chan struct{}), readDone: make(chan struct{})}
	d.wg.Add(2)
	go d.writeLoop()
	go d.readLoop(maxBytes, errc)
	return d, nil
}

// push queues one access unit (called from the RTP goroutine).
func (d *h264Decoder) push(au [][]byte) {
	idr := h264.IDRPresent(au)
	if !d.started && !idr {
		return // nothing decodable before the first IDR
	}
	if d.skipping.Load() && !idr {
		d.s.l.c.dropped.Add(1)
		return
	}
	if idr {
		d.skipping.Store(false)
		// parameter sets from the SDP, in case they are not in-band
		if sps, pps := d.forma.SafeParams(); sps != nil && pps != nil && !hasNALU(au, h264.NALUTypeSPS) {
			au = append([][]byte{sps, pps}, au...)
		}
	}
	b, err := h264.AnnexB(au).Marshal()
	if err != nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.finished {
		return
	}
	select {
	case d.in <- b:
		d.started = true
	default:
		d.skipping.Store(true)
		d.s.l.c.dropped.Add(1)
	}
}

// finish closes ffmpeg's input after the queued access units and waits up
// to timeout for it to emit the frames it still holds.
func (d *h264Decoder) finish(timeout time.Duration) {
	d.mu.Lock()
	if !d.finished {
		d.finished = true
		close(d.in)
	}
	d.mu.Unlock()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-d.readDone:
	case <-t.C:
	}
}

func hasNALU(au [][]byte, typ h264.NALUType) bool {
	for _, n := range au {
		if len(n) > 0 && h264.NALUType(n[0]&0x1f) == typ {
			return true
		}
	}
	return false
}

func (d *h264Decoder) writeLoop() {
	defer d.wg.Done()
	for {
		select {
		case <-d.quit:
			return
		case b, ok := <-d.in:
			if !ok { // finish: end of input
				_ = d.proc.stdin.Close()
				return
			}
			if _, err := d.proc.stdin.Write(b); err != nil {
				return // readLoop reports ffmpeg's exit
			}
		}
	}
}

func (d *h264Decoder) readLoop(maxBytes int, errc chan<- error) {
	defer d.wg.Done()
	defer close(d.readDone)
	for {
		p := d.s.buffer()
		err := readPPM(d.proc.out, p, maxBytes)
		if err != nil {
			d.s.discard(p)
			select {
			case <-d.quit:
			default:
				if err == io.EOF {
					if e := d.proc.exitError(); e != nil {
						err = e
					} else {
						err = errors.New("ffmpeg H.264 decoder exited")
					}
				}
				select {
				case errc <- fmt.Errorf("H.264 decoder: %w", err):
				default: // the session already ended
				}
			}
			return
		}
		t := time.Now()
		if !d.s.keep(t) {
			d.s.discard(p)
			continue
		}
		p.t = t
		d.s.publish(p)
	}
}

// close stops ffmpeg and both pump goroutines.
func (d *h264Decoder) close() {
	close(d.quit)
	d.proc.close()
	d.wg.Wait()
}
