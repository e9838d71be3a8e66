// Package hw feeds real camera frames through the same frame.Source
// interface as the simulated camera, so that clippers, scorers and replay
// run unchanged on a robot.
//
// Sources, all opened with Open from a spec string:
//
//   - MJPEG over HTTP (multipart/x-mixed-replace from IP cameras,
//     mjpg-streamer, ESP32-CAM, ffmpeg -f mpjpeg), with basic auth taken from
//     the URL's userinfo. Credentials never appear in errors or logs: every
//     URL this package prints is redacted.
//   - V4L2 USB cameras on Linux (pure-Go ioctls; MJPEG and YUYV). JPEGs
//     without Huffman tables (common on UVC webcams) get the standard tables
//     of ITU T.81 K.3 inserted before decoding.
//   - RTSP through github.com/bluenviron/gortsplib/v4: MJPEG payloads are
//     decoded in Go; H.264 is decoded by an ffmpeg subprocess when ffmpeg is
//     installed (a clear error otherwise).
//   - Recordings: folders of PNG/JPEG images, and video files decoded by
//     ffmpeg. They are finite and end with frame.ErrEndOfStream.
//
// Live sources run one producer goroutine that reads the device or stream,
// reconnects with exponential backoff after a disconnect or a stall, and
// keeps only the newest undecoded frame (Options.Buffer frames, default 1):
// when the consumer is slower than the camera, older frames are dropped and
// counted (Stats.Dropped) instead of queued without limit. Decoding,
// cropping and resizing happen in Next, on the consumer's goroutine, so
// dropped frames cost no decode. Memory is bounded by Options.MaxFrameBytes
// per buffer and Buffer+2 buffers per source. Malformed streams produce
// errors, never panics. Every source returned also reports Stats (frames,
// deliveries, drops, decimations, decode errors, reconnects).
//
// Timestamps: live frames carry their arrival time (V4L2: the driver's
// capture time; H.264: the time the decoded frame left ffmpeg);
// recordings are stamped Open time + i/fps.
//
// A Recorder pulls frames from any Source in the background and pairs each
// control step (Recorder.Mark) with the newest frame, so clips can be built
// from real camera frames during rollouts.
//
// Next and Stats may be called from different goroutines than Close; Next
// itself is meant for one goroutine at a time, as frame.Source documents.
// Package hw does not import render or sim.
package hw
