#ifdef GL_FRAGMENT_PRECISION_HIGH
precision highp float;
#else
precision mediump float;
#endif
// BGRA frames on GPUs without GL_EXT_texture_format_BGRA8888 are uploaded as
// RGBA and swapped back here.
varying vec2 v_texcoord;
uniform sampler2D u_texture;

void main() {
    gl_FragColor = texture2D(u_texture, v_texcoord).bgra;
}
