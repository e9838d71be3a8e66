package vlmprio

// Scorer presets: the pixel scorer's colour keys for the two kinds of
// frames the training loop renders (lit 3-D manipulation scenes and flat
// grid tiles). The prompts per task family are DefaultPrompts' and
// DoorKeyPrompt.

// Manipulation-scene colour matching.
const (
	// SceneTolerance is the RGB distance (0–441) within which a rendered
	// pixel matches a task colour: lighting scales the base colour by
	// roughly ±25%, about 60 units on a saturated channel pair.
	SceneTolerance = 70
	// SceneLighting is the brightness ratio within which a pixel still
	// matches a key's hue: a surface in shadow gets the ambient light and
	// the fill only, about a third of the lit value.
	SceneLighting = 3
	// Near-black keys (R+G+B < DarkKeySum: sweep-into's hole) match within
	// DarkTolerance only: at SceneTolerance every surface in deep shade
	// (the arm's far side, the gripper's underside) would count as it.
	DarkKeySum    = 100
	DarkTolerance = 35
)

// Grid-tile colour matching.
const (
	// GridTolerance is the RGB distance within which a pixel of a
	// flat-shaded grid frame matches a sprite colour: the key (255,255,0)
	// and the door (200,140,0) are 110 apart, so 40 separates them.
	GridTolerance = 40
	// GridMaxSide is the grid pixel scorer's MaxSide: larger than any grid
	// frame, so no frame is subsampled (the carried key is a quarter-size
	// sprite that a two-pixel subsampling grid misses at 11–16 px tiles).
	GridMaxSide = 4096
)

// ScenePixelSpec returns the colour keys of a manipulation task whose
// goal, gripper and object have the given base colours. A task whose
// object colour equals the gripper's (reach) has no separate object: the
// gripper is the object.
func ScenePixelSpec(goal, gripper, object [3]uint8) PixelSpec {
	key := func(c [3]uint8) ColorKey {
		tol := float64(SceneTolerance)
		if int(c[0])+int(c[1])+int(c[2]) < DarkKeySum {
			tol = DarkTolerance
		}
		return ColorKey{R: c[0], G: c[1], B: c[2], Tol: tol, Lighting: SceneLighting}
	}
	s := PixelSpec{Goal: key(goal), Gripper: key(gripper)}
	if object != gripper {
		s.Object = key(object)
	}
	return s
}

// GridPixelSpec returns the colour keys of grid frames whose object (the
// key), goal and agent sprites have the given colours. Tiles are flat, so
// lighting rescaling is off.
func GridPixelSpec(object, goal, agent [3]uint8) PixelSpec {
	key := func(c [3]uint8) ColorKey {
		return ColorKey{R: c[0], G: c[1], B: c[2], Tol: GridTolerance, Lighting: 1}
	}
	return PixelSpec{Object: key(object), Goal: key(goal), Gripper: key(agent)}
}

// NewGridPixelScorer is the pixel scorer for grid frames: spec, every
// pixel read (MaxSide GridMaxSide).
func NewGridPixelScorer(spec PixelSpec) *PixelScorer {
	ps := NewPixelScorer(spec)
	ps.MaxSide = GridMaxSide
	return ps
}
