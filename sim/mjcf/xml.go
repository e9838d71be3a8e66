package mjcf

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Input bounds.
const (
	// MaxBytes is the largest MJCF file accepted (bytes, per file).
	MaxBytes = 16 << 20
	// MaxDepth is the deepest element nesting accepted.
	MaxDepth = 200
	// MaxElements is the most elements accepted over all files.
	MaxElements = 200000
	// MaxIncludes is the most <include> files accepted.
	MaxIncludes = 64
	// MaxMeshBytes is the largest mesh file accepted (bytes).
	MaxMeshBytes = 64 << 20
	// MaxTriangles is the most mesh triangles accepted over all of a
	// model's meshes (after fan triangulation). Rendering costs about 1 KB
	// of memory per triangle, so this keeps a model under ~200 MB of
	// meshes; MuJoCo Menagerie's largest arms carry well under 200,000.
	MaxTriangles = 200000
)

// element is one XML element with its attributes and source line.
type element struct {
	name     string
	attrs    []xml.Attr
	line     int
	file     string
	children []*element
}

// attr returns the attribute's value and whether it is present.
func (e *element) attr(name string) (string, bool) {
	for _, a := range e.attrs {
		if a.Name.Local == name {
			return a.Value, true
		}
	}
	return "", false
}

// where names the element and its place in the source for errors.
func (e *element) where() string {
	if e.file != "" {
		return fmt.Sprintf("<%s> at %s:%d", e.name, e.file, e.line)
	}
	return fmt.Sprintf("<%s> at line %d", e.name, e.line)
}

// parseTree reads one XML document into an element tree, enforcing the
// input bounds; count is the running element count across files.
func parseTree(data []byte, file string, count *int) (*element, error) {
	if len(data) > MaxBytes {
		return nil, fmt.Errorf("mjcf: %s is %d bytes, more than the %d accepted", nameOr(file), len(data), MaxBytes)
	}
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = true
	lineOf := lineCounter(data)
	var stack []*element
	var root *element
	for {
		off := d.InputOffset()
		tok, err := d.RawToken()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("mjcf: %s: %v", nameOr(file), err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			*count++
			if *count > MaxElements {
				return nil, fmt.Errorf("mjcf: more than %d elements; the model is too large", MaxElements)
			}
			if len(stack) >= MaxDepth {
				return nil, fmt.Errorf("mjcf: %s line %d: elements nested deeper than %d", nameOr(file), lineOf(off), MaxDepth)
			}
			e := &element{name: t.Name.Local, attrs: t.Attr, line: lineOf(off), file: file}
			for _, a := range t.Attr {
				if strings.Contains(a.Value, "&") {
					return nil, fmt.Errorf("mjcf: %s: attribute %q: entity references are not supported", e.where(), a.Name.Local)
				}
			}
			if len(stack) == 0 {
				if root != nil {
					return nil, fmt.Errorf("mjcf: %s: a second root element <%s>", nameOr(file), e.name)
				}
				root = e
			} else {
				p := stack[len(stack)-1]
				p.children = append(p.children, e)
			}
			stack = append(stack, e)
		case xml.EndElement:
			if len(stack) == 0 {
				return nil, fmt.Errorf("mjcf: %s: unbalanced </%s>", nameOr(file), t.Name.Local)
			}
			stack = stack[:len(stack)-1]
		case xml.Directive:
			return nil, fmt.Errorf("mjcf: %s line %d: <!%s...> declarations (DOCTYPE, ENTITY) are not supported", nameOr(file), lineOf(off), firstWord(t))
		case xml.CharData:
			if strings.Contains(string(t), "&") {
				return nil, fmt.Errorf("mjcf: %s line %d: entity references are not supported", nameOr(file), lineOf(off))
			}
		}
	}
	if len(stack) != 0 {
		return nil, fmt.Errorf("mjcf: %s: unexpected end of file inside <%s>", nameOr(file), stack[len(stack)-1].name)
	}
	if root == nil {
		return nil, fmt.Errorf("mjcf: %s: no root element", nameOr(file))
	}
	return root, nil
}

// lineCounter returns a function from byte offset to 1-based line number
// for offsets that only increase.
func lineCounter(data []byte) func(int64) int {
	line, pos := 1, 0
	return func(off int64) int {
		o := int(min(off, int64(len(data))))
		if o > pos {
			line += bytes.Count(data[pos:o], []byte{'\n'})
			pos = o
		}
		// the token starts after leading whitespace
		for pos < len(data) && (data[pos] == ' ' || data[pos] == '\t' || data[pos] == '\n' || data[pos] == '\r') {
			if data[pos] == '\n' {
				line++
			}
			pos++
		}
		return line
	}
}

func firstWord(b []byte) string {
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

func nameOr(file string) string {
	if file == "" {
		return "input"
	}
	return file
}
