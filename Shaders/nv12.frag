#ifdef GL_FRAGMENT_PRECISION_HIGH
precision highp float;
#else
precision mediump float;
#endif
// NV12: a full-size luminance plane and a half-size plane of interleaved U,V
// (uploaded as LUMINANCE_ALPHA, so U is in .r and V in .a). Both are
// nearest-sampled at pixel centers (see yuv.vert). V_FIRST: V before U
// (NV21, NV61, YV12); FULL_HEIGHT_CHROMA (NV16, NV61, 422P, in yuv.vert): a
// chroma row for every luma row. PLANAR (YU12, YV12, 422P): U and V each in a
// LUMINANCE plane of its own, the first in u_chroma, the second in u_chroma2.
varying vec2 v_texcoord;
varying vec2 v_chroma;
uniform sampler2D u_texture;   // Y
uniform sampler2D u_chroma;    // UV (U or V when PLANAR)
#ifdef PLANAR
uniform sampler2D u_chroma2;   // V or U
#endif
uniform mat3 u_yuv_to_rgb;
uniform vec3 u_yuv_offset;
uniform vec3 u_rgb_offset;

void main() {
    float luma = texture2D(u_texture, v_texcoord).r;
#ifdef PLANAR
    vec4 uv = vec4(texture2D(u_chroma, v_chroma).r, 0.0, 0.0, texture2D(u_chroma2, v_chroma).r);
#else
    vec4 uv = texture2D(u_chroma, v_chroma);
#endif
#ifdef V_FIRST
    vec2 cbcr = uv.ar;
#else
    vec2 cbcr = uv.ra;
#endif
    vec3 rgb = u_yuv_to_rgb * (vec3(luma, cbcr) - u_yuv_offset) + u_rgb_offset;
    gl_FragColor = vec4(clamp(rgb, 0.0, 1.0), 1.0);
}
