//go:build cgo && !nogl

package render

import (
	"fmt"
	"strings"
	"unsafe"

	"github.com/go-gl/gl/v3.3-core/gl"
)

// glScene holds the GL objects that draw a Scene: one program, one VAO whose
// VBO/EBO receive the whole batched scene each frame (a single draw call),
// an offscreen FBO with colour (RGBA8), linear depth (R32F) and
// segmentation (R32I) attachments, an optional multisampled FBO and an
// optional shadow map. Every method runs on the GL thread.
type glScene struct {
	opts Options
	mc   meshCache
	b    batch

	// progs[aux][kind][sh]: colour only (aux 0) or colour + depth +
	// segmentation (aux 1), one per texture kind, with the shadow lookup
	// (sh 1) or without it (sh 0: objects no shadow falls on).
	progs          [2][numTexKinds][2]glProgram
	shadowProg     uint32
	shadowLoc      int32
	vao, vbo, ebo  uint32
	vboCap, eboCap int

	fbo, rbColor, rbDepthOut, rbSeg, rbZ uint32
	fw, fh                               int
	msFBO, msTex, msZ                    uint32
	resolveProg                          uint32
	msW, msH, samples                    int
	// msDepthFrames counts frames drawn into msZ since it was made; the
	// count modulo msDepthSlices picks the next one's slice of the depth
	// range (see drawTo).
	msDepthFrames        int
	shadowFBO, shadowTex uint32
	shadowSize           int
	maxSize              int32
	flip                 []byte
}

func compileShader(src string, kind uint32) (uint32, error) {
	s := gl.CreateShader(kind)
	cs, free := gl.Strs(src + "\x00")
	gl.ShaderSource(s, 1, cs, nil)
	free()
	gl.CompileShader(s)
	var ok int32
	gl.GetShaderiv(s, gl.COMPILE_STATUS, &ok)
	if ok == gl.FALSE {
		var n int32
		gl.GetShaderiv(s, gl.INFO_LOG_LENGTH, &n)
		msg := strings.Repeat("\x00", int(n+1))
		gl.GetShaderInfoLog(s, n, nil, gl.Str(msg))
		gl.DeleteShader(s)
		return 0, fmt.Errorf("render: shader compile: %s", strings.TrimRight(msg, "\x00"))
	}
	return s, nil
}

func linkProgram(vs, fs string) (uint32, error) {
	v, err := compileShader(vs, gl.VERTEX_SHADER)
	if err != nil {
		return 0, err
	}
	f, err := compileShader(fs, gl.FRAGMENT_SHADER)
	if err != nil {
		gl.DeleteShader(v)
		return 0, err
	}
	p := gl.CreateProgram()
	gl.AttachShader(p, v)
	gl.AttachShader(p, f)
	gl.LinkProgram(p)
	gl.DeleteShader(v)
	gl.DeleteShader(f)
	var ok int32
	gl.GetProgramiv(p, gl.LINK_STATUS, &ok)
	if ok == gl.FALSE {
		var n int32
		gl.GetProgramiv(p, gl.INFO_LOG_LENGTH, &n)
		msg := strings.Repeat("\x00", int(n+1))
		gl.GetProgramInfoLog(p, n, nil, gl.Str(msg))
		gl.DeleteProgram(p)
		return 0, fmt.Errorf("render: shader link: %s", strings.TrimRight(msg, "\x00"))
	}
	return p, nil
}

// glProgram is a linked scene program and its uniform locations.
type glProgram struct {
	id  uint32
	loc map[string]int32
}

func newProgram(fragPrefix string) (glProgram, error) {
	id, err := linkProgram("#version 330 core\n"+fragPrefix+lightingSrc+vertexShaderSrc, "#version 330 core\n"+fragPrefix+lightingSrc+fragmentShaderSrc)
	if err != nil {
		return glProgram{}, err
	}
	p := glProgram{id: id, loc: map[string]int32{}}
	for _, n := range []string{"uViewProj", "uViewZ", "uMat", "uEye", "uNumLights", "uLight", "uLightCol",
		"uAmbient", "uShadowIdx", "uLightVP", "uShadowMap", "uShadowSize"} {
		p.loc[n] = gl.GetUniformLocation(id, gl.Str(n+"\x00"))
	}
	gl.UseProgram(id)
	gl.Uniform1i(p.loc["uShadowMap"], 0)
	return p, nil
}

func newGLScene(opts Options) (*glScene, error) {
	g := &glScene{opts: opts, mc: meshCache{}}
	var err error
	// Scene programs are compiled on first use (most scenes need a
	// few of the sixteen variants); compile the plain colour one now so a
	// broken driver fails here.
	if err = g.program(0, 0, 0); err != nil {
		return nil, err
	}
	if g.shadowProg, err = linkProgram(shadowVertexSrc, shadowFragmentSrc); err != nil {
		g.deletePrograms()
		return nil, err
	}
	g.shadowLoc = gl.GetUniformLocation(g.shadowProg, gl.Str("uLightVP\x00"))
	gl.GetIntegerv(gl.MAX_RENDERBUFFER_SIZE, &g.maxSize)

	gl.GenVertexArrays(1, &g.vao)
	gl.BindVertexArray(g.vao)
	gl.GenBuffers(1, &g.vbo)
	gl.GenBuffers(1, &g.ebo)
	gl.BindBuffer(gl.ARRAY_BUFFER, g.vbo)
	gl.BindBuffer(gl.ELEMENT_ARRAY_BUFFER, g.ebo)
	const st = vertexStride * 4
	gl.EnableVertexAttribArray(0)
	gl.VertexAttribPointerWithOffset(0, 3, gl.FLOAT, false, st, 0)
	gl.EnableVertexAttribArray(1)
	gl.VertexAttribPointerWithOffset(1, 3, gl.FLOAT, false, st, 12)
	gl.EnableVertexAttribArray(2)
	gl.VertexAttribPointerWithOffset(2, 2, gl.FLOAT, false, st, 24)
	gl.EnableVertexAttribArray(3)
	gl.VertexAttribPointerWithOffset(3, 1, gl.FLOAT, false, st, 32)

	gl.Enable(gl.DEPTH_TEST)
	gl.DepthFunc(gl.LESS)
	gl.FrontFace(gl.CCW)
	gl.CullFace(gl.BACK)
	gl.PixelStorei(gl.PACK_ALIGNMENT, 1)

	g.samples = max(1, opts.MSAA)
	if g.samples > 1 {
		var ms int32
		gl.GetIntegerv(gl.MAX_SAMPLES, &ms)
		g.samples = min(g.samples, int(ms))
	}
	if s := opts.shadowSize(); s > 0 {
		g.shadowSize = s
		gl.GenTextures(1, &g.shadowTex)
		gl.BindTexture(gl.TEXTURE_2D, g.shadowTex)
		gl.TexImage2D(gl.TEXTURE_2D, 0, gl.DEPTH_COMPONENT24, int32(s), int32(s), 0, gl.DEPTH_COMPONENT, gl.UNSIGNED_INT, nil)
		gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST)
		gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST)
		gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_COMPARE_MODE, gl.NONE)
		gl.GenFramebuffers(1, &g.shadowFBO)
		gl.BindFramebuffer(gl.FRAMEBUFFER, g.shadowFBO)
		gl.FramebufferTexture2D(gl.FRAMEBUFFER, gl.DEPTH_ATTACHMENT, gl.TEXTURE_2D, g.shadowTex, 0)
		gl.DrawBuffer(gl.NONE)
		gl.ReadBuffer(gl.NONE)
		if st := gl.CheckFramebufferStatus(gl.FRAMEBUFFER); st != gl.FRAMEBUFFER_COMPLETE {
			return nil, fmt.Errorf("render: shadow framebuffer incomplete: 0x%x", st)
		}
	}
	if err := glCheck("setup"); err != nil {
		return nil, err
	}
	return g, nil
}

func (g *glScene) info(backend, platform string) Info {
	str := func(n uint32) string {
		p := gl.GetString(n)
		if p == nil {
			return ""
		}
		return gl.GoStr(p)
	}
	in := Info{Backend: backend, Platform: platform, Vendor: str(gl.VENDOR), Renderer: str(gl.RENDERER),
		Version: str(gl.VERSION), ShadowSize: g.shadowSize, MSAA: g.samples}
	lr := strings.ToLower(in.Renderer)
	for _, s := range []string{"llvmpipe", "softpipe", "swrast", "swiftshader", "software"} {
		if strings.Contains(lr, s) {
			in.Software = true
		}
	}
	return in
}

func glCheck(what string) error {
	e := gl.GetError()
	switch e {
	case gl.NO_ERROR:
		return nil
	case 0x0507: // GL_CONTEXT_LOST
		return fmt.Errorf("%w (during %s)", ErrContextLost, what)
	case gl.OUT_OF_MEMORY:
		return fmt.Errorf("render: GL out of memory during %s", what)
	}
	return fmt.Errorf("render: GL error 0x%x during %s", e, what)
}

func renderbuffer(id *uint32, samples int, format uint32, w, h int) {
	if *id == 0 {
		gl.GenRenderbuffers(1, id)
	}
	gl.BindRenderbuffer(gl.RENDERBUFFER, *id)
	if samples > 1 {
		gl.RenderbufferStorageMultisample(gl.RENDERBUFFER, int32(samples), format, int32(w), int32(h))
	} else {
		gl.RenderbufferStorage(gl.RENDERBUFFER, format, int32(w), int32(h))
	}
}

func (g *glScene) ensureTargets(w, h int) error {
	if w > int(g.maxSize) || h > int(g.maxSize) {
		return fmt.Errorf("render: image %dx%d exceeds GL_MAX_RENDERBUFFER_SIZE %d", w, h, g.maxSize)
	}
	if g.fw != w || g.fh != h {
		if g.fbo == 0 {
			gl.GenFramebuffers(1, &g.fbo)
		}
		gl.BindFramebuffer(gl.FRAMEBUFFER, g.fbo)
		renderbuffer(&g.rbColor, 1, gl.RGBA8, w, h)
		gl.FramebufferRenderbuffer(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.RENDERBUFFER, g.rbColor)
		renderbuffer(&g.rbDepthOut, 1, gl.R32F, w, h)
		gl.FramebufferRenderbuffer(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT1, gl.RENDERBUFFER, g.rbDepthOut)
		renderbuffer(&g.rbSeg, 1, gl.R32I, w, h)
		gl.FramebufferRenderbuffer(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT2, gl.RENDERBUFFER, g.rbSeg)
		renderbuffer(&g.rbZ, 1, gl.DEPTH_COMPONENT24, w, h)
		gl.FramebufferRenderbuffer(gl.FRAMEBUFFER, gl.DEPTH_ATTACHMENT, gl.RENDERBUFFER, g.rbZ)
		if st := gl.CheckFramebufferStatus(gl.FRAMEBUFFER); st != gl.FRAMEBUFFER_COMPLETE {
			g.fw, g.fh = 0, 0
			return fmt.Errorf("render: framebuffer %dx%d incomplete: 0x%x", w, h, st)
		}
		g.fw, g.fh = w, h
	}
	if g.samples > 1 && (g.msW != w || g.msH != h) {
		if g.msFBO == 0 {
			gl.GenFramebuffers(1, &g.msFBO)
		}
		gl.BindFramebuffer(gl.FRAMEBUFFER, g.msFBO)
		if g.msTex == 0 {
			gl.GenTextures(1, &g.msTex)
		}
		gl.BindTexture(gl.TEXTURE_2D_MULTISAMPLE, g.msTex)
		gl.TexImage2DMultisample(gl.TEXTURE_2D_MULTISAMPLE, int32(g.samples), gl.RGBA8, int32(w), int32(h), true)
		gl.FramebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D_MULTISAMPLE, g.msTex, 0)
		renderbuffer(&g.msZ, g.samples, gl.DEPTH_COMPONENT24, w, h)
		gl.FramebufferRenderbuffer(gl.FRAMEBUFFER, gl.DEPTH_ATTACHMENT, gl.RENDERBUFFER, g.msZ)
		if st := gl.CheckFramebufferStatus(gl.FRAMEBUFFER); st != gl.FRAMEBUFFER_COMPLETE {
			g.msW, g.msH = 0, 0
			return fmt.Errorf("render: multisample framebuffer incomplete: 0x%x", st)
		}
		g.msW, g.msH = w, h
		g.msDepthFrames = 0
	}
	return glCheck("framebuffer setup")
}

// upload sends the batch to the VBO/EBO, growing them when needed.
func (g *glScene) upload() {
	gl.BindVertexArray(g.vao)
	gl.BindBuffer(gl.ARRAY_BUFFER, g.vbo)
	nv := len(g.b.verts) * 4
	if nv > g.vboCap {
		g.vboCap = nv + nv/2
		gl.BufferData(gl.ARRAY_BUFFER, g.vboCap, nil, gl.STREAM_DRAW)
	}
	if nv > 0 {
		gl.BufferSubData(gl.ARRAY_BUFFER, 0, nv, unsafe.Pointer(&g.b.verts[0]))
	}
	ni := len(g.b.idx) * 4
	if ni > g.eboCap {
		g.eboCap = ni + ni/2
		gl.BufferData(gl.ELEMENT_ARRAY_BUFFER, g.eboCap, nil, gl.STREAM_DRAW)
	}
	if ni > 0 {
		gl.BufferSubData(gl.ELEMENT_ARRAY_BUFFER, 0, ni, unsafe.Pointer(&g.b.idx[0]))
	}
}

// draw renders sc into the targets and reads back what dst asks for.
func (g *glScene) draw(sc *Scene, cam Camera, dst Buffers) error {
	return g.drawTo(sc, cam, dst, false)
}

// drawScreen renders the colour image and blits it to the default
// framebuffer (a window) whose size is the camera size.
func (g *glScene) drawScreen(sc *Scene, cam Camera) error {
	return g.drawTo(sc, cam, Buffers{}, true)
}

func (g *glScene) drawTo(sc *Scene, cam Camera, dst Buffers, screen bool) error {
	wantRGB := dst.RGB != nil || screen
	w, h := cam.Width, cam.Height
	if err := g.ensureTargets(w, h); err != nil {
		return err
	}
	g.b.build(sc, g.mc, newLODView(cam))
	fp := g.b.params(sc, cam, g.shadowSize > 0)
	g.upload()

	if fp.shadowIdx >= 0 {
		gl.BindFramebuffer(gl.FRAMEBUFFER, g.shadowFBO)
		gl.Viewport(0, 0, int32(g.shadowSize), int32(g.shadowSize))
		gl.Clear(gl.DEPTH_BUFFER_BIT)
		// Back faces are culled (see softRenderer.Render): the map is the
		// same with half the triangles rasterized.
		gl.Enable(gl.CULL_FACE)
		gl.UseProgram(g.shadowProg)
		gl.UniformMatrix4fv(g.shadowLoc, 1, false, &fp.lightVP[0])
		gl.DrawElementsWithOffset(gl.TRIANGLES, g.b.casterCount, gl.UNSIGNED_INT, uintptr(4*g.b.casterStart))
	}

	gl.Enable(gl.CULL_FACE)
	gl.Viewport(0, 0, int32(w), int32(h))
	bg := [4]float32{fp.background[0], fp.background[1], fp.background[2], 1}
	zero := [4]float32{}
	izero := [4]int32{}
	none := uint32(gl.NONE)

	if wantRGB && g.samples > 1 {
		gl.BindFramebuffer(gl.FRAMEBUFFER, g.msFBO)
		bufs := [1]uint32{gl.COLOR_ATTACHMENT0}
		gl.DrawBuffers(1, &bufs[0])
		// The multisample depth buffer is cleared every msDepthSlices-th
		// frame only (llvmpipe clears by filling every sample: ≈ 4% of a
		// 224² 4× frame). Frame k after a clear draws into slice k of the
		// depth range, counted from the far end, so all that earlier
		// frames left is farther than anything it draws and hides nothing;
		// each slice keeps 22 of the buffer's 24 bits.
		gl.ClearColor(bg[0], bg[1], bg[2], bg[3])
		k := g.msDepthFrames % msDepthSlices
		if k == 0 {
			gl.ClearDepth(1)
			gl.Clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT)
		} else {
			gl.Clear(gl.COLOR_BUFFER_BIT)
		}
		gl.DepthRange(1-float64(k+1)/msDepthSlices, 1-float64(k)/msDepthSlices)
		g.msDepthFrames++
		err := g.drawKinds(0, &fp)
		gl.DepthRange(0, 1)
		if err != nil {
			return err
		}
		if err := g.resolve(); err != nil {
			return err
		}
	}
	gl.BindFramebuffer(gl.FRAMEBUFFER, g.fbo)
	bufs := [3]uint32{none, none, none}
	draw := false
	if wantRGB && g.samples <= 1 {
		bufs[0], draw = gl.COLOR_ATTACHMENT0, true
	}
	if dst.Depth != nil {
		bufs[1], draw = gl.COLOR_ATTACHMENT1, true
	}
	if dst.Seg != nil {
		bufs[2], draw = gl.COLOR_ATTACHMENT2, true
	}
	if draw {
		gl.DrawBuffers(3, &bufs[0])
		if bufs[0] != none {
			gl.ClearBufferfv(gl.COLOR, 0, &bg[0])
		}
		if bufs[1] != none {
			gl.ClearBufferfv(gl.COLOR, 1, &zero[0])
		}
		if bufs[2] != none {
			gl.ClearBufferiv(gl.COLOR, 2, &izero[0])
		}
		gl.Clear(gl.DEPTH_BUFFER_BIT)
		aux := 0
		if bufs[1] != none || bufs[2] != none {
			aux = 1
		}
		if err := g.drawKinds(aux, &fp); err != nil {
			return err
		}
	}

	gl.BindFramebuffer(gl.READ_FRAMEBUFFER, g.fbo)
	if screen {
		gl.ReadBuffer(gl.COLOR_ATTACHMENT0)
		gl.BindFramebuffer(gl.DRAW_FRAMEBUFFER, 0)
		gl.BlitFramebuffer(0, 0, int32(w), int32(h), 0, 0, int32(w), int32(h), gl.COLOR_BUFFER_BIT, gl.NEAREST)
		return glCheck("draw to window")
	}
	if dst.RGB != nil {
		gl.ReadBuffer(gl.COLOR_ATTACHMENT0)
		g.readRows(dst.RGB.Pix, dst.RGB.Stride, w, h, 4, gl.RGBA, gl.UNSIGNED_BYTE)
	}
	if dst.Depth != nil {
		gl.ReadBuffer(gl.COLOR_ATTACHMENT1)
		g.readRows(unsafe.Slice((*byte)(unsafe.Pointer(&dst.Depth[0])), 4*w*h), 4*w, w, h, 4, gl.RED, gl.FLOAT)
	}
	if dst.Seg != nil {
		gl.ReadBuffer(gl.COLOR_ATTACHMENT2)
		g.readRows(unsafe.Slice((*byte)(unsafe.Pointer(&dst.Seg[0])), 4*w*h), 4*w, w, h, 4, gl.RED_INTEGER, gl.INT)
	}
	return glCheck("draw")
}

const resolveVS = `#version 330 core
void main() {
	vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
	gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}
`

// resolveFS is compiled after a "#define SAMPLES n" line: with a constant
// trip count the compiler unrolls the loop (llvmpipe runs a uniform loop
// bound as a masked loop: −6% CPU on a 224² 4× MSAA frame, bench/RESULTS.md).
const resolveFS = `
uniform sampler2DMS uTex;
layout(location = 0) out vec4 o;
void main() {
	ivec2 p = ivec2(gl_FragCoord.xy);
	vec4 c = vec4(0.0);
	for (int i = 0; i < SAMPLES; i++) {
		c += texelFetch(uTex, p, i);
	}
	o = c * (1.0 / float(SAMPLES));
}
`

// msDepthSlices is the number of frames between clears of the multisample
// depth buffer (drawTo): a power of two, so the slices' bounds are exact.
const msDepthSlices = 4

// resolve averages the multisampled colour (a multisample texture) into the
// single-sample fbo's colour attachment with a full-screen triangle: the
// box filter glBlitFramebuffer applies, without the state save and restore
// that llvmpipe's blitter wraps around the same draw.
func (g *glScene) resolve() error {
	if g.resolveProg == 0 {
		p, err := linkProgram(resolveVS, fmt.Sprintf("#version 330 core\n#define SAMPLES %d\n%s", g.samples, resolveFS))
		if err != nil {
			return err
		}
		g.resolveProg = p
		gl.UseProgram(p)
		gl.Uniform1i(gl.GetUniformLocation(p, gl.Str("uTex\x00")), 1)
	}
	gl.BindFramebuffer(gl.FRAMEBUFFER, g.fbo)
	bufs := [1]uint32{gl.COLOR_ATTACHMENT0}
	gl.DrawBuffers(1, &bufs[0])
	gl.Disable(gl.DEPTH_TEST)
	gl.Disable(gl.CULL_FACE)
	gl.UseProgram(g.resolveProg)
	gl.ActiveTexture(gl.TEXTURE1)
	gl.BindTexture(gl.TEXTURE_2D_MULTISAMPLE, g.msTex)
	gl.DrawArrays(gl.TRIANGLES, 0, 3)
	gl.ActiveTexture(gl.TEXTURE0)
	gl.Enable(gl.DEPTH_TEST)
	gl.Enable(gl.CULL_FACE)
	return nil
}

// readRows reads the bound read buffer into pix (top row first).
func (g *glScene) readRows(pix []byte, stride, w, h, bpp int, format, typ uint32) {
	row := w * bpp
	if stride == row {
		gl.ReadPixels(0, 0, int32(w), int32(h), format, typ, unsafe.Pointer(&pix[0]))
		if cap(g.flip) < row {
			g.flip = make([]byte, row)
		}
		tmp := g.flip[:row]
		for y := 0; y < h/2; y++ {
			a := pix[y*stride : y*stride+row]
			b := pix[(h-1-y)*stride : (h-1-y)*stride+row]
			copy(tmp, a)
			copy(a, b)
			copy(b, tmp)
		}
		return
	}
	if cap(g.flip) < row*h {
		g.flip = make([]byte, row*h)
	}
	buf := g.flip[:row*h]
	gl.ReadPixels(0, 0, int32(w), int32(h), format, typ, unsafe.Pointer(&buf[0]))
	for y := 0; y < h; y++ {
		copy(pix[y*stride:y*stride+row], buf[(h-1-y)*row:(h-y)*row])
	}
}

// program compiles variant (aux, kind, sh) if it is not compiled yet.
func (g *glScene) program(aux, k, sh int) error {
	if g.progs[aux][k][sh].id != 0 {
		return nil
	}
	pre := fmt.Sprintf("#define TEX_KIND %d\n", k)
	if sh == 1 && g.opts.shadowSize() > 0 {
		pre += "#define SHADOWS\n"
	}
	if g.opts.PixelLighting {
		pre += "#define PIXEL_LIGHTING\n"
	}
	if aux == 1 {
		pre += "#define WITH_AUX\n"
	}
	p, err := newProgram(pre)
	if err != nil {
		return err
	}
	g.progs[aux][k][sh] = p
	return nil
}

// drawKinds issues the colour pass's draws (batch.draws, front to back),
// each with its texture kind's program, with or without the shadow lookup.
func (g *glScene) drawKinds(aux int, fp *frameParams) error {
	var cur *glProgram
	for _, d := range g.b.draws {
		k, sh := int(d.kind), 0
		if d.shadow {
			sh = 1
		}
		if p := &g.progs[aux][k][sh]; p != cur {
			if err := g.program(aux, k, sh); err != nil {
				return err
			}
			g.use(p, fp)
			cur = p
		}
		gl.DrawElementsWithOffset(gl.TRIANGLES, d.count, gl.UNSIGNED_INT, uintptr(4*d.start))
	}
	return nil
}

func (g *glScene) deletePrograms() {
	for aux := range g.progs {
		for k := range g.progs[aux] {
			for sh := range g.progs[aux][k] {
				if p := &g.progs[aux][k][sh]; p.id != 0 {
					gl.DeleteProgram(p.id)
					p.id = 0
				}
			}
		}
	}
}

// use binds p and sets this frame's uniforms on it.
func (g *glScene) use(p *glProgram, fp *frameParams) {
	gl.UseProgram(p.id)
	loc := p.loc
	gl.UniformMatrix4fv(loc["uViewProj"], 1, false, &fp.viewProj[0])
	gl.Uniform4fv(loc["uViewZ"], 1, &fp.viewZ[0])
	if len(g.b.mats) > 0 {
		gl.Uniform4fv(loc["uMat"], int32(len(g.b.mats)/4), &g.b.mats[0])
	}
	gl.Uniform3fv(loc["uEye"], 1, &fp.eye[0])
	gl.Uniform1i(loc["uNumLights"], int32(fp.nLights))
	gl.Uniform4fv(loc["uLight"], MaxLights, &fp.light[0][0])
	gl.Uniform3fv(loc["uLightCol"], MaxLights, &fp.lightCol[0][0])
	gl.Uniform3fv(loc["uAmbient"], 1, &fp.ambient[0])
	gl.Uniform1i(loc["uShadowIdx"], int32(fp.shadowIdx))
	if fp.shadowIdx >= 0 {
		gl.UniformMatrix4fv(loc["uLightVP"], 1, false, &fp.lightVP[0])
		gl.Uniform1i(loc["uShadowSize"], int32(g.shadowSize))
		gl.ActiveTexture(gl.TEXTURE0)
		gl.BindTexture(gl.TEXTURE_2D, g.shadowTex)
	}
}

func (g *glScene) destroy() {
	g.deletePrograms()
	gl.DeleteProgram(g.shadowProg)
	gl.DeleteVertexArrays(1, &g.vao)
	gl.DeleteBuffers(1, &g.vbo)
	gl.DeleteBuffers(1, &g.ebo)
	for _, f := range []*uint32{&g.fbo, &g.msFBO, &g.shadowFBO} {
		if *f != 0 {
			gl.DeleteFramebuffers(1, f)
		}
	}
	if g.resolveProg != 0 {
		gl.DeleteProgram(g.resolveProg)
	}
	if g.msTex != 0 {
		gl.DeleteTextures(1, &g.msTex)
	}
	for _, rb := range []*uint32{&g.rbColor, &g.rbDepthOut, &g.rbSeg, &g.rbZ, &g.msZ} {
		if *rb != 0 {
			gl.DeleteRenderbuffers(1, rb)
		}
	}
	if g.shadowTex != 0 {
		gl.DeleteTextures(1, &g.shadowTex)
	}
}
