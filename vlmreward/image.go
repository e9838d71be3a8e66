package vlmreward

import "image"

// Downscale center-crops img to a square and box-filters it to size×size,
// appending the result to dst in the CHW uint8 layout the CNN reads
// (3·size·size values: all R, then all G, then all B).
func Downscale(dst []uint8, img image.Image, size int) []uint8 {
	b := img.Bounds()
	side := min(b.Dx(), b.Dy())
	x0 := b.Min.X + (b.Dx()-side)/2
	y0 := b.Min.Y + (b.Dy()-side)/2
	n := len(dst)
	dst = append(dst, make([]uint8, 3*size*size)...)
	out := dst[n:]
	rgba, _ := img.(*image.RGBA)
	for oy := 0; oy < size; oy++ {
		ya, yb := y0+oy*side/size, y0+(oy+1)*side/size
		yb = max(yb, ya+1)
		for ox := 0; ox < size; ox++ {
			xa, xb := x0+ox*side/size, x0+(ox+1)*side/size
			xb = max(xb, xa+1)
			var r, g, bl, cnt uint32
			for y := ya; y < yb; y++ {
				for x := xa; x < xb; x++ {
					if rgba != nil {
						o := rgba.PixOffset(x, y)
						r += uint32(rgba.Pix[o])
						g += uint32(rgba.Pix[o+1])
						bl += uint32(rgba.Pix[o+2])
					} else {
						cr, cg, cb, _ := img.At(x, y).RGBA()
						r += cr >> 8
						g += cg >> 8
						bl += cb >> 8
					}
					cnt++
				}
			}
			p := oy*size + ox
			out[p] = uint8((r + cnt/2) / cnt)
			out[size*size+p] = uint8((g + cnt/2) / cnt)
			out[2*size*size+p] = uint8((bl + cnt/2) / cnt)
		}
	}
	return dst
}
