#ifdef GL_FRAGMENT_PRECISION_HIGH
precision highp float;
#else
precision mediump float;
#endif
// 10- to 16-bit gray (Y10, Y12, Y16) in the low bits of little-endian 16-bit
// words, uploaded as luminance-alpha texels (low byte, high byte) and read
// nearest: each word is put back together and scaled from its full depth,
// TOP (1023, 4095 or 65535, defined before this source), to the output;
// bits above the depth read as white.
varying vec2 v_texcoord;
uniform sampler2D u_texture;

void main() {
    // Scaled before the bytes are added, so that no value exceeds 1 where
    // floats are half precision (mediump: 65535 is out of its range).
    vec2 bytes = floor(texture2D(u_texture, v_texcoord).ra * 255.0 + 0.5);
    float gray = min(dot(bytes, vec2(1.0 / TOP, 256.0 / TOP)), 1.0);
    gl_FragColor = vec4(gray, gray, gray, 1.0);
}
