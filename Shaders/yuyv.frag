#ifdef GL_FRAGMENT_PRECISION_HIGH
precision highp float;
#else
precision mediump float;
#endif
// The YUYV frame is uploaded as an RGBA texture of (width / 2) x height:
// each texel holds Y0 U Y1 V for two neighbouring pixels.
varying vec2 v_texcoord;
uniform sampler2D u_texture;
uniform vec2 u_size;        // frame size in pixels
uniform mat3 u_yuv_to_rgb;
uniform vec3 u_yuv_offset;  // subtracted before the matrix (range and chroma bias)

void main() {
    vec2 pixel = floor(v_texcoord * u_size);
    vec2 texel = vec2(floor(pixel.x * 0.5) + 0.5, pixel.y + 0.5) / vec2(u_size.x * 0.5, u_size.y);
    vec4 pair = texture2D(u_texture, texel);
    float luma = mod(pixel.x, 2.0) < 0.5 ? pair.r : pair.b;
    vec3 rgb = u_yuv_to_rgb * (vec3(luma, pair.g, pair.a) - u_yuv_offset);
    gl_FragColor = vec4(clamp(rgb, 0.0, 1.0), 1.0);
}
