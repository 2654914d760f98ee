#ifdef GL_FRAGMENT_PRECISION_HIGH
precision highp float;
#else
precision mediump float;
#endif
varying vec2 v_texcoord;
uniform sampler2D u_texture;
uniform mat4 u_matrix;
uniform vec4 u_offset;

void main() {
    vec4 color = texture2D(u_texture, v_texcoord);
    gl_FragColor = clamp(u_matrix * color + u_offset, 0.0, 1.0);
}
