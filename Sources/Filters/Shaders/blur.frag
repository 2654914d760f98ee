// One direction of a separable Gaussian blur. TAPS (defined by Kamera) is
// the number of texture fetches on each side of the center; each fetch lands
// between two texels so that the bilinear filter weighs both (two taps of
// the kernel for one fetch). Edges clamp: the texture wraps CLAMP_TO_EDGE.
#ifdef GL_FRAGMENT_PRECISION_HIGH
precision highp float;
#else
precision mediump float;
#endif
varying vec2 v_texcoord;
uniform sampler2D u_texture;
uniform vec2 u_step;                 // one texel along the blur's direction
uniform float u_weights[TAPS + 1];   // the center's weight, then each fetch's
uniform float u_offsets[TAPS + 1];   // in texels from the center (index 0 unused)

void main() {
    vec4 sum = texture2D(u_texture, v_texcoord) * u_weights[0];
    for (int i = 1; i <= TAPS; i++) {
        vec2 d = u_step * u_offsets[i];
        sum += (texture2D(u_texture, v_texcoord + d) + texture2D(u_texture, v_texcoord - d)) * u_weights[i];
    }
    gl_FragColor = sum;
}
