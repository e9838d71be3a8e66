package render

// GLSL sources shared by the GL backends (egl, glfw). The lighting and
// texture code mirrors shade.go line for line so the soft backend draws the
// same image.

// lightingSrc holds the lighting helpers both shaders use, the GLSL twins
// of shade.go's unit, toLight and blinnSpec; it is compiled in front of
// each.
const lightingSrc = `
vec3 unit(vec3 x) {
	float l = length(x);
	return l > 0.0 ? x / l : x;
}
vec3 toLight(vec4 lv, vec3 p) {
	return lv.w == 0.0 ? lv.xyz : unit(lv.xyz - p);
}
float blinnSpec(vec3 n, vec3 h, float spec, float shin) {
	float hl = length(h);
	if (hl <= 0.0) return 0.0;
	float nh = dot(n, h) / hl;
	return nh > 0.0 ? spec * pow(nh, shin) : 0.0;
}
`

// vertexShaderSrc is compiled with PIXEL_LIGHTING (Blinn-Phong per pixel)
// or without it (the default: Blinn-Phong per vertex, Gouraud-interpolated,
// with textures and shadows still per pixel; llvmpipe's cost is per pixel).
const vertexShaderSrc = `
layout(location = 0) in vec3 aPos;
layout(location = 1) in vec3 aNrm;
layout(location = 2) in vec2 aUV;
layout(location = 3) in float aObj;
uniform mat4 uViewProj;
uniform vec4 uViewZ;
uniform vec4 uMat[3 * 512];
uniform vec3 uEye;
uniform int uNumLights;
uniform vec4 uLight[4];
uniform vec3 uLightCol[4];
uniform vec3 uAmbient;
uniform int uShadowIdx;
uniform mat4 uLightVP;
out vec3 vP;
out vec2 vUV;
out float vDepth;
#ifdef SHADOWS
out vec3 vLS;
#endif
flat out vec4 vM0;
flat out vec4 vM1;
flat out vec4 vM2;
#ifdef PIXEL_LIGHTING
out vec3 vN;
#else
out vec3 vA;
out vec3 vS;
out vec3 vDsh;
out vec3 vSsh;
out float vNdl;
#endif
void main() {
	vP = aPos;
	vUV = aUV;
	int o = int(aObj + 0.5);
	vM0 = uMat[3 * o];
	vM1 = uMat[3 * o + 1];
	vM2 = uMat[3 * o + 2];
	vDepth = -dot(uViewZ, vec4(aPos, 1.0));
	gl_Position = uViewProj * vec4(aPos, 1.0);
#ifdef SHADOWS
	// The light's projection is orthographic (affine), so its clip
	// coordinates interpolate exactly; computing them here saves a matrix
	// product per fragment.
	vLS = (uLightVP * vec4(aPos, 1.0)).xyz * 0.5 + 0.5;
#endif
#ifdef PIXEL_LIGHTING
	vN = aNrm;
#else
	vec3 n = unit(aNrm);
	vec3 v = unit(uEye - aPos);
	vA = uAmbient;
	vS = vec3(0.0);
	vDsh = vec3(0.0);
	vSsh = vec3(0.0);
	vNdl = 0.0;
	for (int i = 0; i < 4; i++) {
		if (i >= uNumLights) break;
		vec3 l = toLight(uLight[i], aPos);
		float d = dot(n, l);
		if (i == uShadowIdx) vNdl = d;
		if (d > 0.0) {
			float s = blinnSpec(n, l + v, vM2.x, vM2.y);
			if (i == uShadowIdx) {
				vDsh = uLightCol[i] * d;
				vSsh = uLightCol[i] * s;
			} else {
				vA += uLightCol[i] * d;
				vS += uLightCol[i] * s;
			}
		}
	}
#endif
}
`

// fragmentShaderSrc is compiled in variants: with WITH_AUX (colour, linear
// depth and segmentation outputs) or without (colour only), and once per
// TEX_KIND, so each pixel runs only its own texture's code (llvmpipe
// evaluates both sides of data-dependent branches).
const fragmentShaderSrc = `
in vec3 vP;
in vec2 vUV;
in float vDepth;
#ifdef SHADOWS
in vec3 vLS;
#endif
#ifdef PIXEL_LIGHTING
in vec3 vN;
#else
in vec3 vA;
in vec3 vS;
in vec3 vDsh;
in vec3 vSsh;
in float vNdl;
#endif
flat in vec4 vM0;
flat in vec4 vM1;
flat in vec4 vM2;
layout(location = 0) out vec4 oColor;
#ifdef WITH_AUX
layout(location = 1) out float oDepth;
layout(location = 2) out int oSeg;
#endif
uniform vec3 uEye;
uniform int uNumLights;
uniform vec4 uLight[4];
uniform vec3 uLightCol[4];
uniform vec3 uAmbient;
uniform int uShadowIdx;
uniform sampler2D uShadowMap;
uniform int uShadowSize;

vec3 texColor(vec4 m0, vec4 m1, vec2 uv) {
#if TEX_KIND == 0
	return m0.rgb;
#else
	vec2 t = uv * m1.w;
	float k = 0.0;
#if TEX_KIND == 1
	float s = floor(t.x) + floor(t.y);
	k = s - 2.0 * floor(s / 2.0);
#elif TEX_KIND == 2
	float g = t.x + 0.25 * sin(t.y * 0.9) + 0.08 * sin(t.y * 4.1 + t.x * 0.7);
	float r = 0.5 + 0.5 * sin(g * 6.2831853);
	k = r * r;
#else
	k = fract(t.x + t.y) >= 0.5 ? 1.0 : 0.0;
#endif
	return m0.rgb + (m1.rgb - m0.rgb) * k;
#endif
}

float shadowAt(vec3 c, float ndotl) {
	if (c.x < 0.0 || c.y < 0.0 || c.x >= 1.0 || c.y >= 1.0 || c.z > 1.0) return 1.0;
	float d = texelFetch(uShadowMap, ivec2(c.xy * float(uShadowSize)), 0).r;
	return (c.z - (0.002 + 0.004 * (1.0 - ndotl)) > d) ? 0.0 : 1.0;
}

void main() {
	vec4 m0 = vM0;
	vec4 m1 = vM1;
	vec4 m2 = vM2;
	vec3 base = texColor(m0, m1, vUV);
#ifndef PIXEL_LIGHTING
	float sf = 1.0;
#ifdef SHADOWS
	if (uShadowIdx >= 0) sf = shadowAt(vLS, vNdl);
#endif
	vec3 col = vA * base + vS + sf * (vDsh * base + vSsh);
#else
	vec3 n = unit(vN);
	vec3 v = unit(uEye - vP);
	float sf = 1.0;
#ifdef SHADOWS
	if (uShadowIdx >= 0) sf = shadowAt(vLS, dot(n, uLight[uShadowIdx].xyz));
#endif
	vec3 col = uAmbient * base;
	// A constant trip count lets the compiler unroll the loop.
	for (int i = 0; i < 4; i++) {
		if (i >= uNumLights) break;
		vec3 l = toLight(uLight[i], vP);
		float d = dot(n, l);
		if (d > 0.0) {
			float s = blinnSpec(n, l + v, m2.x, m2.y);
			float f = (i == uShadowIdx) ? sf : 1.0;
			col += f * uLightCol[i] * (d * base + s);
		}
	}
#endif
	oColor = vec4(clamp(col, 0.0, 1.0), 1.0);
#ifdef WITH_AUX
	oDepth = vDepth;
	oSeg = int(m2.z + 0.5);
#endif
}
`

const shadowVertexSrc = `#version 330 core
layout(location = 0) in vec3 aPos;
uniform mat4 uLightVP;
void main() { gl_Position = uLightVP * vec4(aPos, 1.0); }
`

const shadowFragmentSrc = `#version 330 core
void main() {}
`
