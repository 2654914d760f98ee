#ifdef GL_FRAGMENT_PRECISION_HIGH
precision highp float;
#else
precision mediump float;
#endif
// RGB frames in another byte order (BGRA, XBGR, BGR...) on OpenGL ES 2, which
// lacks texture swizzle: uploaded as they are and reordered here. SWIZZLE(c)
// is defined before this source: vec4(c.b, c.g, c.r, 1.0) for BGR.
varying vec2 v_texcoord;
uniform sampler2D u_texture;

void main() {
    vec4 c = texture2D(u_texture, v_texcoord);
    gl_FragColor = SWIZZLE(c);
}
