#ifdef GL_FRAGMENT_PRECISION_HIGH
precision highp float;
#else
precision mediump float;
#endif
varying vec2 v_texcoord;
uniform sampler2D u_texture;
uniform vec2 u_resolution;  // size of the image in pixels
uniform float u_block;      // block edge in pixels

void main() {
    vec2 block = floor(v_texcoord * u_resolution / u_block);
    vec2 center = min(floor((block + 0.5) * u_block), u_resolution - 1.0) + 0.5;
    gl_FragColor = texture2D(u_texture, center / u_resolution);
}
