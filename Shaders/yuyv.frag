#ifdef GL_FRAGMENT_PRECISION_HIGH
precision highp float;
#else
precision mediump float;
#endif
// The YUYV frame is uploaded as an RGBA texture of (width / 2) x height:
// each texel holds Y0 U Y1 V for two neighbouring pixels. The texture is
// nearest-sampled at pixel centers, a quarter texel from a pair's edge.
// Other byte orders (UYVY, YVYU, VYUY) define PAIR_ORDER, the swizzle that
// reads a texel as Y0 U Y1 V.
#ifndef PAIR_ORDER
#define PAIR_ORDER rgba
#endif
varying vec2 v_texcoord;
varying vec2 v_chroma;        // .x across pairs; pairs are full height, so y is v_texcoord's
varying vec2 v_chroma_texel;
uniform sampler2D u_texture;
uniform mat3 u_yuv_to_rgb;
uniform vec3 u_yuv_offset;  // subtracted before the matrix (range and chroma bias)
uniform vec3 u_rgb_offset;  // added after it (a color matrix's constant, when one is folded in)

void main() {
    vec4 pair = texture2D(u_texture, vec2(v_chroma.x, v_texcoord.y)).PAIR_ORDER;
    float luma = fract(v_chroma_texel.x) < 0.5 ? pair.r : pair.b;
    vec3 rgb = u_yuv_to_rgb * (vec3(luma, pair.g, pair.a) - u_yuv_offset) + u_rgb_offset;
    gl_FragColor = vec4(clamp(rgb, 0.0, 1.0), 1.0);
}
