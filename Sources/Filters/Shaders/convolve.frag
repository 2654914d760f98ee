// A SIZE x SIZE convolution (SIZE 3 or 5, defined by Kamera) of R, G and B,
// each sample at a texel's center; edges clamp (CLAMP_TO_EDGE). The kernel
// comes divided by its divisor; alpha is the picture's own.
#ifdef GL_FRAGMENT_PRECISION_HIGH
precision highp float;
#else
precision mediump float;
#endif
varying vec2 v_texcoord;
uniform sampler2D u_texture;
uniform vec2 u_texel;                     // one texel in texture coordinates
uniform float u_kernel[SIZE * SIZE];      // row by row, top row first

void main() {
    vec3 sum = vec3(0.0);
    for (int y = 0; y < SIZE; y++) {
        for (int x = 0; x < SIZE; x++) {
            vec2 offset = vec2(float(x - SIZE / 2), float(y - SIZE / 2)) * u_texel;
            sum += texture2D(u_texture, v_texcoord + offset).rgb * u_kernel[y * SIZE + x];
        }
    }
    gl_FragColor = vec4(clamp(sum, 0.0, 1.0), texture2D(u_texture, v_texcoord).a);
}
