package grid

import (
	"fmt"
	"image"
	"image/color"
	"math"
)

// Theme is the appearance of rendered grid frames: the three renderings of
// the VLM-RB paper's Fig. 4.
type Theme int

const (
	// Standard draws MiniGrid's sprites: grey walls, black floor with grid
	// lines, a red triangle agent pointing where it faces, a yellow key, a
	// door (locked: dark fill with a keyhole; closed: filled with a
	// handle; open: a thin strip at the tile's edge) and a green goal. The
	// door is drawn in dark gold (200, 140, 0) rather than MiniGrid's
	// key yellow so colour keys can tell key and door apart; the carried
	// key is drawn small on the agent's tile.
	Standard Theme = iota
	// Misleading swaps the key and door sprites (the key's cell shows a
	// locked door, the door's cell a key, open doors an empty floor) and
	// recolours the goal blue: the semantics a scorer infers from shape
	// and colour are wrong.
	Misleading
	// Abstract replaces every object by a texture without semantic shape:
	// walls a grey checkerboard, the key cyan diagonal stripes, the door
	// magenta dots (denser when locked, none when open), the goal orange
	// horizontal stripes, the agent a white square with stripes along its
	// direction.
	Abstract
)

// ThemeNames are the theme names ParseTheme accepts, in Theme order.
var ThemeNames = []string{"standard", "misleading", "abstract"}

// String returns the theme's name.
func (t Theme) String() string {
	if t >= 0 && int(t) < len(ThemeNames) {
		return ThemeNames[t]
	}
	return fmt.Sprintf("Theme(%d)", int(t))
}

// ParseTheme parses a theme name ("" is standard).
func ParseTheme(s string) (Theme, error) {
	if s == "" {
		return Standard, nil
	}
	for i, n := range ThemeNames {
		if s == n {
			return Theme(i), nil
		}
	}
	return Standard, fmt.Errorf("grid: unknown theme %q; choose standard, misleading or abstract", s)
}

// Colours of the standard theme (RGB 0–255), for colour-keyed scorers.
var (
	ColorAgent = [3]uint8{255, 0, 0}     // MiniGrid's red agent
	ColorKey   = [3]uint8{255, 255, 0}   // MiniGrid's yellow key
	ColorDoor  = [3]uint8{200, 140, 0}   // dark gold (see Standard)
	ColorGoal  = [3]uint8{0, 255, 0}     // MiniGrid's green goal
	ColorWall  = [3]uint8{100, 100, 100} // MiniGrid's grey wall
)

var (
	cBlack    = color.RGBA{0, 0, 0, 255}
	cGridLine = color.RGBA{100, 100, 100, 255}
	cBlue     = color.RGBA{0, 0, 255, 255}
	cCyan     = color.RGBA{0, 220, 220, 255}
	cMagenta  = color.RGBA{220, 0, 220, 255}
	cOrange   = color.RGBA{255, 140, 0, 255}
	cWhite    = color.RGBA{255, 255, 255, 255}
	cGreyA    = color.RGBA{140, 140, 140, 255}
	cGreyB    = color.RGBA{60, 60, 60, 255}
)

func rgba(c [3]uint8) color.RGBA { return color.RGBA{c[0], c[1], c[2], 255} }

// FrameSize returns the side in pixels of a frame with tile-pixel tiles.
func (e *Env) FrameSize(tile int) int { return e.size * tile }

// TileFor returns the largest tile side (≥ 1 px) whose frame fits in a
// side×side image.
func (e *Env) TileFor(side int) int { return max(side/e.size, 1) }

// Render draws the whole grid (the fully observed view MiniGrid's
// render() shows) into dst with square tiles of side tile pixels, the
// grid's top-left cell at dst's origin. dst must be at least
// FrameSize(tile) on each side; pixels beyond are left as they are.
func (e *Env) Render(dst *image.RGBA, tile int, theme Theme) {
	n := e.size
	if tile < 1 || dst.Rect.Dx() < n*tile || dst.Rect.Dy() < n*tile {
		panic(fmt.Sprintf("grid: Render needs a %d×%d image for %d-px tiles, got %v", n*tile, n*tile, tile, dst.Rect))
	}
	for y := range n {
		for x := range n {
			k := tileKey{cell: e.cells[y*n+x], agent: -1, theme: theme, size: tile}
			if x == e.ax && y == e.ay {
				k.agent, k.carry = int8(e.dir), e.carrying.Obj
			}
			src := e.tile(k)
			for j := range tile {
				o := dst.PixOffset(dst.Rect.Min.X+x*tile, dst.Rect.Min.Y+y*tile+j)
				copy(dst.Pix[o:o+4*tile], src.Pix[j*src.Stride:j*src.Stride+4*tile])
			}
		}
	}
}

// tileKey names one distinct tile image.
type tileKey struct {
	cell  Cell
	agent int8  // the agent's direction when it stands here, else −1
	carry uint8 // the object the agent carries (ObjEmpty for none)
	theme Theme
	size  int
}

// tile returns the tile image for k, drawing it on first use; an Env keeps
// the few dozen distinct tiles of its episodes.
func (e *Env) tile(k tileKey) *image.RGBA {
	if img, ok := e.tiles[k]; ok {
		return img
	}
	if e.tiles == nil || len(e.tiles) > 4096 {
		e.tiles = map[tileKey]*image.RGBA{}
	}
	img := image.NewRGBA(image.Rect(0, 0, k.size, k.size))
	t := tileCanvas{dst: img, s: k.size}
	t.fill(0, 1, 0, 1, cBlack)
	drawCell(&t, k.cell, k.theme)
	if k.agent >= 0 {
		drawAgent(&t, int(k.agent), Cell{Obj: k.carry}, k.theme)
	}
	if k.theme != Abstract && k.cell.Obj != ObjWall {
		// MiniGrid's grid lines: the top and left edges of every tile
		t.fill(0, 0.031, 0, 1, cGridLine)
		t.fill(0, 1, 0, 0.031, cGridLine)
	}
	e.tiles[k] = img
	return img
}

// tileCanvas draws into one tile with coordinates in [0, 1] (x right,
// y down), as MiniGrid's rendering helpers do.
type tileCanvas struct {
	dst    *image.RGBA
	x0, y0 int
	s      int
}

// each calls f for every pixel centre (u, v) of the tile.
func (t *tileCanvas) each(f func(u, v float64) (color.RGBA, bool)) {
	inv := 1 / float64(t.s)
	for j := range t.s {
		for i := range t.s {
			if c, ok := f((float64(i)+0.5)*inv, (float64(j)+0.5)*inv); ok {
				t.dst.SetRGBA(t.x0+i, t.y0+j, c)
			}
		}
	}
}

func (t *tileCanvas) fill(xmin, xmax, ymin, ymax float64, c color.RGBA) {
	t.each(func(u, v float64) (color.RGBA, bool) { return c, u >= xmin && u <= xmax && v >= ymin && v <= ymax })
}

func (t *tileCanvas) circle(cx, cy, r float64, c color.RGBA) {
	t.each(func(u, v float64) (color.RGBA, bool) { return c, (u-cx)*(u-cx)+(v-cy)*(v-cy) <= r*r })
}

// triangle fills the triangle a, b, c (tile coordinates) rotated by theta
// about the tile centre.
func (t *tileCanvas) triangle(a, b, c [2]float64, theta float64, col color.RGBA) {
	rot := func(p [2]float64) [2]float64 {
		s, co := math.Sincos(theta)
		x, y := p[0]-0.5, p[1]-0.5
		return [2]float64{0.5 + co*x - s*y, 0.5 + s*x + co*y}
	}
	a, b, c = rot(a), rot(b), rot(c)
	edge := func(p, q [2]float64, u, v float64) float64 { return (q[0]-p[0])*(v-p[1]) - (q[1]-p[1])*(u-p[0]) }
	t.each(func(u, v float64) (color.RGBA, bool) {
		e0, e1, e2 := edge(a, b, u, v), edge(b, c, u, v), edge(c, a, u, v)
		return col, (e0 >= 0 && e1 >= 0 && e2 >= 0) || (e0 <= 0 && e1 <= 0 && e2 <= 0)
	})
}

// stripes fills the tile with stripes of period p (tile units) across
// direction (dx, dy); dots with dots on a p-grid of radius r.
func (t *tileCanvas) stripes(dx, dy, p float64, c color.RGBA) {
	t.each(func(u, v float64) (color.RGBA, bool) { return c, math.Mod(u*dx+v*dy+4, p) < p/2 })
}

func (t *tileCanvas) dots(p, r float64, c color.RGBA) {
	t.each(func(u, v float64) (color.RGBA, bool) {
		du, dv := math.Mod(u, p)-p/2, math.Mod(v, p)-p/2
		return c, du*du+dv*dv <= r*r
	})
}

func drawKey(t *tileCanvas, c color.RGBA) {
	// MiniGrid's Key.render: shaft, two teeth, a ring
	t.fill(0.50, 0.63, 0.31, 0.88, c)
	t.fill(0.38, 0.50, 0.59, 0.66, c)
	t.fill(0.38, 0.50, 0.81, 0.88, c)
	t.circle(0.56, 0.28, 0.19, c)
	t.circle(0.56, 0.28, 0.064, cBlack)
}

func drawDoor(t *tileCanvas, state uint8, c color.RGBA) {
	// MiniGrid's Door.render
	dark := color.RGBA{uint8(0.45 * float64(c.R)), uint8(0.45 * float64(c.G)), uint8(0.45 * float64(c.B)), 255}
	switch state {
	case DoorOpen:
		t.fill(0.88, 1.00, 0.00, 1.00, c)
		t.fill(0.92, 0.96, 0.04, 0.96, cBlack)
	case DoorLocked:
		t.fill(0, 1, 0, 1, c)
		t.fill(0.06, 0.94, 0.06, 0.94, dark)
		t.fill(0.52, 0.75, 0.50, 0.56, c) // keyhole
	default:
		t.fill(0, 1, 0, 1, c)
		t.fill(0.04, 0.96, 0.04, 0.96, cBlack)
		t.fill(0.08, 0.92, 0.08, 0.92, c)
		t.fill(0.12, 0.88, 0.12, 0.88, cBlack)
		t.circle(0.75, 0.50, 0.08, c) // handle
	}
}

func drawCell(t *tileCanvas, c Cell, theme Theme) {
	switch theme {
	case Misleading:
		switch c.Obj {
		case ObjWall:
			t.fill(0, 1, 0, 1, rgba(ColorWall))
		case ObjKey:
			drawDoor(t, DoorLocked, rgba(ColorDoor))
		case ObjDoor:
			if c.State != DoorOpen {
				drawKey(t, rgba(ColorKey))
			}
		case ObjGoal:
			t.fill(0, 1, 0, 1, cBlue)
		}
	case Abstract:
		switch c.Obj {
		case ObjWall:
			t.each(func(u, v float64) (color.RGBA, bool) {
				if (int(u*4)+int(v*4))%2 == 0 {
					return cGreyA, true
				}
				return cGreyB, true
			})
		case ObjKey:
			t.stripes(1, 1, 0.25, cCyan)
		case ObjDoor:
			switch c.State {
			case DoorLocked:
				t.dots(0.2, 0.07, cMagenta)
			case DoorClosed:
				t.dots(0.34, 0.07, cMagenta)
			}
		case ObjGoal:
			t.stripes(0, 1, 0.2, cOrange)
		}
	default:
		switch c.Obj {
		case ObjWall:
			t.fill(0, 1, 0, 1, rgba(ColorWall))
		case ObjKey:
			drawKey(t, rgba(ColorKey))
		case ObjDoor:
			drawDoor(t, c.State, rgba(ColorDoor))
		case ObjGoal:
			t.fill(0, 1, 0, 1, rgba(ColorGoal))
		}
	}
}

// drawAgent draws the agent facing dir, and what it carries small in the
// tile's lower right (so a carried key stays in the picture).
func drawAgent(t *tileCanvas, dir int, carrying Cell, theme Theme) {
	if theme == Abstract {
		t.fill(0.15, 0.85, 0.15, 0.85, cWhite)
		dx, dy := DirVec(dir)
		t.each(func(u, v float64) (color.RGBA, bool) {
			in := u >= 0.15 && u <= 0.85 && v >= 0.15 && v <= 0.85
			return cGreyB, in && math.Mod(u*float64(dy*dy)+v*float64(dx*dx)+4, 0.2) < 0.07
		})
	} else {
		// MiniGrid's agent: a triangle pointing right, rotated by 90°·dir
		t.triangle([2]float64{0.12, 0.19}, [2]float64{0.87, 0.50}, [2]float64{0.12, 0.81}, 0.5*math.Pi*float64(dir), rgba(ColorAgent))
	}
	if carrying.Obj != ObjKey {
		return
	}
	small := tileCanvas{dst: t.dst, x0: t.x0 + t.s/2, y0: t.y0 + t.s/2, s: max(t.s/2, 1)}
	switch theme {
	case Misleading:
		drawDoor(&small, DoorLocked, rgba(ColorDoor))
	case Abstract:
		small.stripes(1, 1, 0.5, cCyan)
	default:
		drawKey(&small, rgba(ColorKey))
	}
}
