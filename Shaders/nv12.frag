#ifdef GL_FRAGMENT_PRECISION_HIGH
precision highp float;
#else
precision mediump float;
#endif
// NV12: a full-size luminance plane and a half-size plane of interleaved U,V
// (uploaded as LUMINANCE_ALPHA, so U is in .r and V in .a).
varying vec2 v_texcoord;
uniform sampler2D u_texture;   // Y
uniform sampler2D u_chroma;    // UV
uniform vec2 u_size;           // frame size in pixels
uniform mat3 u_yuv_to_rgb;
uniform vec3 u_yuv_offset;

void main() {
    vec2 pixel = floor(v_texcoord * u_size);
    vec2 chromaSize = ceil(u_size * 0.5);
    float luma = texture2D(u_texture, (pixel + 0.5) / u_size).r;
    vec4 uv = texture2D(u_chroma, (floor(pixel * 0.5) + 0.5) / chromaSize);
    vec3 rgb = u_yuv_to_rgb * (vec3(luma, uv.r, uv.a) - u_yuv_offset);
    gl_FragColor = vec4(clamp(rgb, 0.0, 1.0), 1.0);
}
