package hw

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"image/jpeg"
	"image/png"

	xdraw "golang.org/x/image/draw"

	"github.com/vlmrb/vlmrb/frame"
)

// shaper decodes payloads and applies Options' crop and resize into the
// caller's frame. It keeps scratch images between calls; one goroutine at
// a time.
type shaper struct {
	opts    Options
	scratch *image.RGBA // native-size RGBA for YUYV/RGB24 before resizing
}

// decode turns p into dst.Image at the output size.
func (sh *shaper) decode(p *payload, dst *frame.Frame) error {
	switch p.kind {
	case kindJPEG:
		img, err := decodeCompressed(p.data)
		if err != nil {
			return err
		}
		return sh.shape(img, dst)
	case kindYUYV, kindRGB24:
		bpp := 2
		if p.kind == kindRGB24 {
			bpp = 3
		}
		if p.w <= 0 || p.h <= 0 || p.w > maxDim || p.h > maxDim || len(p.data) < p.w*p.h*bpp {
			return fmt.Errorf("raw frame: %d bytes for %dx%d at %d bytes/pixel", len(p.data), p.w, p.h, bpp)
		}
		r := image.Rect(0, 0, p.w, p.h)
		full := sh.fullRect(r)
		// fast path: no crop or resize, convert straight into dst
		if full {
			dst.Image = frame.EnsureRGBA(dst.Image, r)
			rawToRGBA(dst.Image, p)
			return nil
		}
		sh.scratch = frame.EnsureRGBA(sh.scratch, r)
		rawToRGBA(sh.scratch, p)
		return sh.shape(sh.scratch, dst)
	}
	return fmt.Errorf("unknown payload kind %d", p.kind)
}

func rawToRGBA(dst *image.RGBA, p *payload) {
	if p.kind == kindYUYV {
		yuyvToRGBA(dst, p.data, p.w, p.h)
	} else {
		rgb24ToRGBA(dst, p.data, p.w, p.h)
	}
}

// fullRect reports whether the output equals the native image r.
func (sh *shaper) fullRect(r image.Rectangle) bool {
	src, w, h := sh.plan(r)
	return src == r && w == r.Dx() && h == r.Dy()
}

// plan returns the source rectangle and output size for a native image r:
// crop, then centre-crop to the target aspect.
func (sh *shaper) plan(r image.Rectangle) (image.Rectangle, int, int) {
	src := r
	if !sh.opts.Crop.Empty() {
		src = sh.opts.Crop.Add(r.Min).Intersect(r)
		if src.Empty() {
			src = r
		}
	}
	sw, sh2 := src.Dx(), src.Dy()
	w, h := sh.opts.Width, sh.opts.Height
	switch {
	case w == 0 && h == 0:
		return src, sw, sh2
	case h == 0:
		h = max(1, (w*sh2+sw/2)/sw)
		return src, w, h
	case w == 0:
		w = max(1, (h*sw+sh2/2)/sh2)
		return src, w, h
	}
	// centre-crop src to the aspect w:h
	if sw*h > sh2*w { // too wide
		nw := max(1, (sh2*w+h/2)/h)
		x0 := src.Min.X + (sw-nw)/2
		src = image.Rect(x0, src.Min.Y, x0+nw, src.Max.Y)
	} else if sw*h < sh2*w { // too tall
		nh := max(1, (sw*h+w/2)/w)
		y0 := src.Min.Y + (sh2-nh)/2
		src = image.Rect(src.Min.X, y0, src.Max.X, y0+nh)
	}
	return src, w, h
}

// shape draws img into dst.Image with crop and resize.
func (sh *shaper) shape(img image.Image, dst *frame.Frame) error {
	b := img.Bounds()
	if b.Dx() <= 0 || b.Dy() <= 0 || b.Dx() > maxDim || b.Dy() > maxDim {
		return fmt.Errorf("image size %dx%d out of range", b.Dx(), b.Dy())
	}
	src, w, h := sh.plan(b)
	out := image.Rect(0, 0, w, h)
	dst.Image = frame.EnsureRGBA(dst.Image, out)
	if src.Dx() == w && src.Dy() == h {
		// same size: the stdlib has fast paths for YCbCr, Gray and RGBA sources
		draw.Draw(dst.Image, out, img, src.Min, draw.Src)
		return nil
	}
	// ApproxBiLinear is fast but aliases when shrinking a lot; BiLinear
	// widens its kernel with the scale factor (area-like filtering) at
	// several times the cost.
	var s xdraw.Scaler = xdraw.ApproxBiLinear
	if src.Dx() > 3*w || src.Dy() > 3*h {
		s = xdraw.BiLinear
	}
	s.Scale(dst.Image, out, img, src, xdraw.Src, nil)
	return nil
}

// decodeCompressed decodes a JPEG (repairing a missing Huffman table) or,
// failing the JPEG signature, a PNG.
func decodeCompressed(data []byte) (image.Image, error) {
	switch {
	case len(data) >= 2 && data[0] == 0xFF && data[1] == 0xD8:
		fixed, err := FixJPEG(data)
		if err != nil {
			return nil, err
		}
		if err := checkJPEGSize(fixed); err != nil {
			return nil, err
		}
		img, err := jpeg.Decode(bytes.NewReader(fixed))
		if err != nil {
			return nil, fmt.Errorf("jpeg: %w", err)
		}
		return img, nil
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		cfg, err := png.DecodeConfig(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("png: %w", err)
		}
		if cfg.Width > maxDim || cfg.Height > maxDim {
			return nil, fmt.Errorf("png: size %dx%d exceeds %d", cfg.Width, cfg.Height, maxDim)
		}
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("png: %w", err)
		}
		return img, nil
	case len(data) == 0:
		return nil, errors.New("empty frame")
	}
	return nil, fmt.Errorf("frame is neither JPEG nor PNG (starts % x)", data[:min(4, len(data))])
}

// checkJPEGSize rejects JPEGs whose header claims a size beyond maxDim, so
// a hostile header cannot make the decoder allocate gigabytes.
func checkJPEGSize(data []byte) error {
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("jpeg: %w", err)
	}
	if cfg.Width > maxDim || cfg.Height > maxDim || cfg.Width*cfg.Height > maxPixels {
		return fmt.Errorf("jpeg: size %dx%d too large", cfg.Width, cfg.Height)
	}
	// every 8×8 block costs at least a few bits even in a progressive
	// file, so a header claiming far more pixels than the data could hold
	// is corrupt; rejecting it keeps the decoder from allocating for it
	if cfg.Width*cfg.Height/4096 > len(data) {
		return fmt.Errorf("jpeg: header claims %dx%d but the frame has only %d bytes", cfg.Width, cfg.Height, len(data))
	}
	return nil
}

// yuyvToRGBA converts packed YUYV 4:2:2 (BT.601, limited range, the V4L2
// default for YUV webcams) to RGBA. dst must be w×h; src at least w*h*2.
func yuyvToRGBA(dst *image.RGBA, src []byte, w, h int) {
	for y := 0; y < h; y++ {
		in := src[y*w*2 : y*w*2+w*2]
		out := dst.Pix[y*dst.Stride : y*dst.Stride+w*4]
		for x := 0; x+1 < w; x += 2 {
			i := x * 2
			u, v := int32(in[i+1])-128, int32(in[i+3])-128
			putYUV(out[x*4:x*4+4], in[i], u, v)
			putYUV(out[x*4+4:x*4+8], in[i+2], u, v)
		}
		if w%2 == 1 { // odd width: last pixel has its own pair half
			i := (w - 1) * 2
			putYUV(out[(w-1)*4:w*4], in[i], int32(in[i+1])-128, 0)
		}
	}
}

// putYUV writes one RGBA pixel from limited-range BT.601 Y'CbCr with
// chroma already centred. Coefficients ×2^16: 1.164, 1.596, 0.392, 0.813,
// 2.017 (ITU-R BT.601, 219/224 excursions).
func putYUV(px []byte, y uint8, u, v int32) {
	c := (int32(y) - 16) * 76284
	r := (c + 104595*v + 1<<15) >> 16
	g := (c - 25690*u - 53281*v + 1<<15) >> 16
	b := (c + 132186*u + 1<<15) >> 16
	px[0], px[1], px[2], px[3] = clamp8(r), clamp8(g), clamp8(b), 255
}

func clamp8(x int32) uint8 {
	if x < 0 {
		return 0
	}
	if x > 255 {
		return 255
	}
	return uint8(x)
}

// rgb24ToRGBA copies packed RGB into dst (w×h), setting alpha to 255.
func rgb24ToRGBA(dst *image.RGBA, src []byte, w, h int) {
	for y := 0; y < h; y++ {
		in := src[y*w*3 : y*w*3+w*3]
		out := dst.Pix[y*dst.Stride : y*dst.Stride+w*4]
		for x := 0; x < w; x++ {
			out[x*4], out[x*4+1], out[x*4+2], out[x*4+3] = in[x*3], in[x*3+1], in[x*3+2], 255
		}
	}
}
