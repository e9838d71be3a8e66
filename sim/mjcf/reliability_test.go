//go:build unix

package mjcf_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vlmrb/vlmrb/internal/safefile"
	"github.com/vlmrb/vlmrb/sim/articulated"
	"github.com/vlmrb/vlmrb/sim/mjcf"
)

// TestIncludesAndMeshesBounded: an include or mesh naming a device, a
// FIFO, or a file outside the model's folder (by ".." or a link; an
// absolute name is joined to the folder) is refused at once with an error naming the element and the
// path; nothing is read from it.
func TestIncludesAndMeshesBounded(t *testing.T) {
	outside := t.TempDir()
	dir := t.TempDir()
	write(t, filepath.Join(outside, "body.xml"), `<mujoco/>`)
	write(t, filepath.Join(outside, "cube.obj"), "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.xml"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.obj"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "body.xml"), filepath.Join(dir, "link.xml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero.obj")); err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(dir, filepath.Join(outside, "body.xml"))
	if err != nil {
		t.Fatal(err)
	}
	inc := func(f string) string { return fmt.Sprintf(`<mujoco><include file=%q/></mujoco>`, f) }
	mesh := func(f string) string {
		return fmt.Sprintf(`<mujoco><asset><mesh file=%q/></asset><worldbody/></mujoco>`, f)
	}
	for _, tc := range []struct {
		xml  string
		want error
	}{
		{inc("fifo.xml"), safefile.ErrNotRegular},
		{inc("/dev/zero"), fs.ErrNotExist}, // joined to the model's folder, as MuJoCo does
		{inc(rel), safefile.ErrOutside},
		{inc("link.xml"), safefile.ErrOutside},
		{mesh("fifo.obj"), safefile.ErrNotRegular},
		{mesh("zero.obj"), safefile.ErrOutside},
		{mesh(strings.TrimSuffix(rel, "body.xml") + "cube.obj"), safefile.ErrOutside},
	} {
		write(t, filepath.Join(dir, "m.xml"), tc.xml)
		start := time.Now()
		_, err := mjcf.Load(filepath.Join(dir, "m.xml"), mjcf.Options{})
		if err == nil || !strings.Contains(err.Error(), "m.xml:1:") {
			t.Errorf("%s: %v, want an error naming the line", tc.xml, err)
		}
		if err != nil && !errors.Is(err, tc.want) && !strings.Contains(err.Error(), tc.want.Error()) {
			t.Errorf("%s: %v, want it to say %q", tc.xml, err, tc.want)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s took %v", tc.xml, d)
		}
	}
	// the model file itself may be anything the user names, but not a device
	if _, err := mjcf.Load("/dev/zero", mjcf.Options{}); !errors.Is(err, safefile.ErrNotRegular) {
		t.Errorf("Load(/dev/zero): %v, want ErrNotRegular", err)
	}
	if _, err := mjcf.Load(filepath.Join(dir, "fifo.xml"), mjcf.Options{}); !errors.Is(err, safefile.ErrNotRegular) {
		t.Errorf("Load(FIFO): %v, want ErrNotRegular", err)
	}
}

// TestTriangleBudget: meshes over MaxTriangles in all are refused with
// the budget named, before the triangles are held: an OBJ of long face
// lines (fan-triangulated) and an STL that declares more.
func TestTriangleBudget(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("v 0 0 0\nv 1 0 0\nv 0 1 0\n")
	// each face line of 1,002 indices fans into 1,000 triangles
	line := "f" + strings.Repeat(" 1 2 3", 334) + "\n"
	for i := 0; i <= mjcf.MaxTriangles/1000; i++ {
		b.WriteString(line)
	}
	write(t, filepath.Join(dir, "big.obj"), b.String())
	write(t, filepath.Join(dir, "m.xml"), `<mujoco><asset><mesh file="big.obj"/></asset><worldbody/></mujoco>`)
	_, err := mjcf.Load(filepath.Join(dir, "m.xml"), mjcf.Options{})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprint(mjcf.MaxTriangles)) {
		t.Errorf("OBJ over the budget: %v, want an error naming %d", err, mjcf.MaxTriangles)
	}
	// the budget is over the whole model: two meshes of 60% each
	var half strings.Builder
	half.WriteString("v 0 0 0\nv 1 0 0\nv 0 1 0\n")
	for i := 0; i < mjcf.MaxTriangles*6/10/1000; i++ {
		half.WriteString(line)
	}
	write(t, filepath.Join(dir, "a.obj"), half.String())
	write(t, filepath.Join(dir, "b.obj"), half.String())
	write(t, filepath.Join(dir, "m.xml"), `<mujoco><asset><mesh file="a.obj"/></asset><worldbody/></mujoco>`)
	if _, err := mjcf.Load(filepath.Join(dir, "m.xml"), mjcf.Options{}); err != nil {
		t.Errorf("one mesh of 60%% of the budget: %v", err)
	}
	write(t, filepath.Join(dir, "m.xml"), `<mujoco><asset><mesh file="a.obj"/><mesh file="b.obj"/></asset><worldbody/></mujoco>`)
	if _, err := mjcf.Load(filepath.Join(dir, "m.xml"), mjcf.Options{}); err == nil || !strings.Contains(err.Error(), "b.obj") {
		t.Errorf("two meshes of 60%% each: %v, want the second refused", err)
	}
}

// TestPhysicsValidation: what MuJoCo's compiler refuses is refused here
// with element, attribute and line: negative, non-positive-definite or
// triangle-inequality-violating inertia, a moving body's mass or inertia
// under mjMINVAL (1e-15), a timestep that is not positive and finite,
// non-finite or absurd gravity, inverted control and force ranges.
func TestPhysicsValidation(t *testing.T) {
	body := func(inertial string) string {
		return "<mujoco><worldbody>\n<body pos=\"0 0 1\"><joint axis=\"1 0 0\"/>\n" + inertial + "</body></worldbody></mujoco>"
	}
	for _, tc := range []struct{ xml, want string }{
		{body(`<inertial pos="0 0 -.15" mass="1" diaginertia="-1 1 1"/>`), `line 3: attribute "diaginertia"`},
		{body(`<inertial pos="0 0 -.15" mass="1" diaginertia="0 0 0"/>`), `line 3: attribute "diaginertia" gives moving body`},
		{body(`<inertial pos="0 0 -.15" mass="1" diaginertia="1 1 3"/>`), `line 3: attribute "diaginertia" principal moments 1 1 3 violate the triangle inequality`},
		{body(`<inertial pos="0 0 -.15" mass="1" fullinertia="1 1 1 2 0 0"/>`), `line 3: attribute "fullinertia" is not positive-definite`},
		{body(`<inertial pos="0 0 -.15" mass="1e-300" diaginertia="1 1 1"/>`), `line 3: attribute "mass" gives moving body`},
		{`<mujoco><option timestep="0"/></mujoco>`, `attribute "timestep" 0 s must be positive`},
		{`<mujoco><option timestep="-0.001"/></mujoco>`, `attribute "timestep"`},
		{`<mujoco><option timestep="1e9"/></mujoco>`, `attribute "timestep"`},
		{`<mujoco><option gravity="0 0 -1e308"/></mujoco>`, `attribute "gravity"`},
		{body(`<geom size=".1"/>`) + `<actuator><motor joint="j" ctrlrange="1 -1"/></actuator>`, `attribute "ctrlrange" 1 -1 has lower > upper`},
	} {
		xml := strings.Replace(tc.xml, "<joint ", `<joint name="j" `, 1)
		if strings.Contains(xml, "<actuator>") {
			xml = strings.Replace(strings.Replace(xml, "</mujoco><actuator>", "<actuator>", 1), "</actuator>", "</actuator></mujoco>", 1)
		}
		_, err := mjcf.Parse([]byte(xml), "", mjcf.Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n error %v,\n want it to contain %q", xml, err, tc.want)
		}
	}
	// MuJoCo's own values pass: a rod's inertia (A + B = C is the limit
	// of a flat body) and a rotated full inertia
	for _, in := range []string{`diaginertia="1 1 2"`, `diaginertia="0.001 0.002 0.0025"`, `fullinertia="2 2 2 0.5 0 0"`} {
		if _, err := mjcf.Parse([]byte(body(`<inertial pos="0 0 -.15" mass="1" `+in+`/>`)), "", mjcf.Options{}); err != nil {
			t.Errorf("%s: %v", in, err)
		}
	}
}

// FuzzLoadIncludes: a model file m.xml and a second file inc.xml beside
// it (which the seeds include, or use as a mesh) from the fuzzer's bytes,
// split at the first NUL, load or fail with an error, never a panic, and
// an accepted model steps.
func FuzzLoadIncludes(f *testing.F) {
	f.Add([]byte(`<mujoco><include file="inc.xml"/><worldbody><geom type="plane" size="1 1 1"/></worldbody></mujoco>` + "\x00" +
		`<mujoco><worldbody><body name="b" pos="0 0 .2"><freejoint/><geom size=".1"/></body></worldbody></mujoco>`))
	f.Add([]byte(`<mujoco><include file="inc.xml"/></mujoco>` + "\x00" + `<mujoco><include file="inc.xml"/></mujoco>`))
	f.Add([]byte(`<mujoco><compiler meshdir="m"/><asset><mesh file="inc.xml"/></asset><worldbody/></mujoco>` + "\x00" + `v 0 0 0`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		main, inc, _ := strings.Cut(string(data), "\x00")
		if err := os.WriteFile(filepath.Join(dir, "m.xml"), []byte(main), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "inc.xml"), []byte(inc), 0o644); err != nil {
			t.Fatal(err)
		}
		a, err := mjcf.Load(filepath.Join(dir, "m.xml"), mjcf.Options{})
		if err != nil {
			return
		}
		d := articulated.NewData(a.Model)
		articulated.Reset(a.Model, d)
		for i := 0; i < 3; i++ {
			articulated.Step(a.Model, d)
		}
	})
}
