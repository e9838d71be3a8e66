package render

// GLSL sources shared by the GL backends (egl, glfw). The lighting and
// texture code mirrors shade.go line for line so the soft backend draws the
// same image.

const vertexShaderSrc = `#version 330 core
layout(location = 0) in vec3 aPos;
layout(location = 1) in vec3 aNrm;
layout(location = 2) in vec2 aUV;
layout(location = 3) in float aObj;
uniform mat4 uViewProj;
uniform vec4 uViewZ;
out vec3 vP;
out vec3 vN;
out vec2 vUV;
out float vDepth;
flat out int vObj;
void main() {
	vP = aPos;
	vN = aNrm;
	vUV = aUV;
	vObj = int(aObj + 0.5);
	vDepth = -dot(uViewZ, vec4(aPos, 1.0));
	gl_Position = uViewProj * vec4(aPos, 1.0);
}
`

// fragmentShaderSrc is compiled twice: with WITH_AUX (colour, linear depth
// and segmentation outputs) and without (colour only, cheaper per pixel).
const fragmentShaderSrc = `
in vec3 vP;
in vec3 vN;
in vec2 vUV;
in float vDepth;
flat in int vObj;
layout(location = 0) out vec4 oColor;
#ifdef WITH_AUX
layout(location = 1) out float oDepth;
layout(location = 2) out int oSeg;
#endif
uniform vec4 uMat[3 * 512];
uniform vec3 uEye;
uniform int uNumLights;
uniform vec4 uLight[4];
uniform vec3 uLightCol[4];
uniform vec3 uAmbient;
uniform int uShadowIdx;
uniform mat4 uLightVP;
uniform sampler2D uShadowMap;
uniform int uShadowSize;

vec3 texColor(vec4 m0, vec4 m1, vec2 uv) {
	float kind = m0.w;
	if (kind == 0.0) return m0.rgb;
	vec2 t = uv * m1.w;
	float k = 0.0;
	if (kind == 1.0) {
		float s = floor(t.x) + floor(t.y);
		k = s - 2.0 * floor(s / 2.0);
	} else if (kind == 2.0) {
		float g = t.x + 0.25 * sin(t.y * 0.9) + 0.08 * sin(t.y * 4.1 + t.x * 0.7);
		float r = 0.5 + 0.5 * sin(g * 6.2831853);
		k = r * r;
	} else if (kind == 3.0) {
		k = fract(t.x + t.y) >= 0.5 ? 1.0 : 0.0;
	} else {
		return m0.rgb;
	}
	return m0.rgb + (m1.rgb - m0.rgb) * k;
}

float shadowAt(vec3 p, float ndotl) {
	vec4 q = uLightVP * vec4(p, 1.0);
	vec3 c = q.xyz / q.w * 0.5 + 0.5;
	if (c.x < 0.0 || c.y < 0.0 || c.x >= 1.0 || c.y >= 1.0 || c.z > 1.0) return 1.0;
	float d = texelFetch(uShadowMap, ivec2(c.xy * float(uShadowSize)), 0).r;
	return (c.z - (0.002 + 0.004 * (1.0 - ndotl)) > d) ? 0.0 : 1.0;
}

void main() {
	vec4 m0 = uMat[3 * vObj];
	vec4 m1 = uMat[3 * vObj + 1];
	vec4 m2 = uMat[3 * vObj + 2];
	vec3 base = texColor(m0, m1, vUV);
	vec3 n = vN;
	float nl = length(n);
	if (nl > 0.0) n /= nl;
	vec3 v = uEye - vP;
	float vl = length(v);
	if (vl > 0.0) v /= vl;
	vec3 col = uAmbient * base;
	for (int i = 0; i < uNumLights; i++) {
		vec3 l = uLight[i].xyz;
		if (uLight[i].w != 0.0) {
			l -= vP;
			float ll = length(l);
			if (ll > 0.0) l /= ll;
		}
		float d = dot(n, l);
		if (d <= 0.0) continue;
		vec3 h = l + v;
		float hl = length(h);
		float s = 0.0;
		if (hl > 0.0) {
			float nh = dot(n, h) / hl;
			if (nh > 0.0) s = m2.x * pow(nh, m2.y);
		}
		float f = (i == uShadowIdx) ? shadowAt(vP, d) : 1.0;
		col += f * uLightCol[i] * (d * base + s);
	}
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
