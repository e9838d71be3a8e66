package render

import (
	"fmt"
	"strings"
)

// Theme remaps a scene's appearance without changing its geometry, for the
// VLM-RB paper's Figure 4 ablation: the agent's MDP is the same, only what
// the VLM sees changes.
type Theme uint8

// Themes.
const (
	// ThemeStandard keeps the task's own colours: the prompt's "red puck"
	// is red.
	ThemeStandard Theme = iota
	// ThemeMisleading permutes colours among the task objects, goal markers
	// and gripper (each distinct colour takes the next one's place), so the
	// prompt's colour words name the wrong things.
	ThemeMisleading
	// ThemeAbstract replaces every surface by a semantics-free striped or
	// checkered pattern in colours unrelated to the task.
	ThemeAbstract
)

// ThemeNames lists the names ParseTheme accepts.
var ThemeNames = []string{"standard", "misleading", "abstract"}

func (t Theme) String() string {
	if int(t) < len(ThemeNames) {
		return ThemeNames[t]
	}
	return fmt.Sprintf("Theme(%d)", uint8(t))
}

// ParseTheme maps a name from ThemeNames to a Theme ("" is standard).
func ParseTheme(s string) (Theme, error) {
	switch strings.ToLower(s) {
	case "", "standard":
		return ThemeStandard, nil
	case "misleading":
		return ThemeMisleading, nil
	case "abstract":
		return ThemeAbstract, nil
	}
	return 0, fmt.Errorf("render: unknown theme %q (want one of %v)", s, ThemeNames)
}

// abstractPalette holds muted colour pairs with no everyday object names.
var abstractPalette = [][2][3]float32{
	{{0.55, 0.5, 0.6}, {0.35, 0.4, 0.3}},
	{{0.45, 0.55, 0.5}, {0.6, 0.45, 0.4}},
	{{0.5, 0.45, 0.35}, {0.35, 0.45, 0.55}},
	{{0.4, 0.4, 0.45}, {0.6, 0.6, 0.5}},
	{{0.6, 0.5, 0.45}, {0.4, 0.5, 0.6}},
}

// ApplyTheme rewrites the materials of sc in place. Applying
// ThemeStandard does nothing.
func (sc *Scene) ApplyTheme(t Theme) {
	switch t {
	case ThemeMisleading:
		var colours [][3]float32
		index := func(c [3]float32) int {
			for i, d := range colours {
				if d == c {
					return i
				}
			}
			return -1
		}
		for i := range sc.Objects {
			o := &sc.Objects[i]
			if o.Role != RoleStatic && o.Role != RoleRobot && index(o.Mat.Color) < 0 {
				colours = append(colours, o.Mat.Color)
			}
		}
		for i := range sc.Objects {
			o := &sc.Objects[i]
			if o.Role == RoleStatic || o.Role == RoleRobot {
				continue
			}
			k := index(o.Mat.Color)
			if len(colours) > 1 {
				o.Mat.Color = colours[(k+1)%len(colours)]
			} else { // one colour only: use its complement
				c := o.Mat.Color
				o.Mat.Color = [3]float32{1 - c[0], 1 - c[1], 1 - c[2]}
			}
		}
	case ThemeAbstract:
		for i := range sc.Objects {
			o := &sc.Objects[i]
			if o.Role == RoleStatic {
				o.Mat = Checker([3]float32{0.55, 0.55, 0.55}, [3]float32{0.45, 0.45, 0.45}, 8)
				continue
			}
			p := abstractPalette[int(uint32(o.ID)*2654435761>>16)%len(abstractPalette)]
			o.Mat = Material{Color: p[0], Color2: p[1], Texture: TexStripes, TexScale: 60, Specular: 0.1, Shininess: 16}
			if o.Kind == Sphere || o.Kind == Capsule {
				o.Mat.Texture = TexChecker
			}
		}
	}
}
