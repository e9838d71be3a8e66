// Package render turns simulator state into camera images that a
// vision-language model can read.
//
// A Scene is plain data: primitives (box, sphere, capsule, cylinder, plane)
// with world poses, materials (colour, Blinn-Phong specular, procedural
// checker/wood/stripes textures), lights and a background. It is built by hand
// or from an MJCF model compiled for the articulated engine and its data
// (*mjcf.Model, *articulated.Data) with FromModel (ModelScene draws an
// imported robot's meshes too), and a Theme (standard,
// misleading, abstract) can remap its appearance. A Camera is a pose, a
// vertical field of view and a resolution; NamedCamera gives the
// MetaWorld-like fixed cameras and Attach follows a body. Style.Scenery
// dresses a simulated tabletop for a VLM (see Scenery): a robot arm posed by
// inverse kinematics to the gripper, a table slab with legs on a tiled
// floor, a backdrop, and goal markers drawn with a pad and pole so they
// show at 224×224 even under the object; visual only.
//
// A Renderer draws a Scene for a Camera into caller-owned storage: RGB into an
// *image.RGBA, and optionally linear depth (m) and per-object segmentation ids.
// New picks a backend at run time:
//
//   - "egl": OpenGL 3.3+ core through headless EGL (device platform first,
//     then Mesa surfaceless). Needs cgo; built unless the nogl tag is set.
//     Each renderer owns one locked OS thread; calls are goroutine-safe.
//   - "glfw": the same GL code in a hidden GLFW window (needs $DISPLAY); the
//     interactive viewer is RunViewer.
//   - "soft": a pure-Go z-buffer rasterizer with the same shading, used when
//     cgo is off, when EGL cannot start, and as the test reference.
//   - "auto" (or ""): egl, else soft with a logged warning.
//
// Lighting is Blinn-Phong, evaluated per vertex by default (exact for
// diffuse light on flat faces; textures and shadows stay per pixel) or per
// pixel with Options.PixelLighting; Options.Shadows adds a shadow map fitted
// to the non-plane objects and Options.MSAA anti-aliases. The GL and soft
// backends evaluate the same formulas and agree to within 8/255 on ≥ 99% of
// pixels (tested), so the soft renderer is also the golden-image reference.
// Both draw the same triangles: round shapes get 8, 12 or 16 slices, the
// fewest whose outline stays within half a pixel of the true one at the
// object's size on screen, and the scenery floor leaves out the part the
// table top hides from the camera (llvmpipe's cost grows with every
// triangle it sets up and, under MSAA, every fragment it rasterizes).
//
// Output helpers write PNG, animated GIF, MP4 (through ffmpeg) and contact
// sheets. SimCamera implements frame.Source over a live simulation (an
// MJCF model and its articulated data).
//
// Environment: VLMRB_RENDER picks the backend when New gets "";
// VLMRB_EGL_PLATFORM (device|surfaceless|default) and VLMRB_EGL_DEVICE (index)
// restrict EGL's display choice; Mesa's LP_NUM_THREADS=0 makes llvmpipe
// rasterize on the calling thread, which is faster for many small frames
// and for several renderers in parallel. Info().Renderer always names the
// GL implementation (llvmpipe is software; Options.RequireGPU refuses it).
//
// Nothing here panics on device or user input: missing EGL, no display,
// context loss and bad image sizes are returned as errors.
package render
