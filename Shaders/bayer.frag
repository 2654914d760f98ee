#ifdef GL_FRAGMENT_PRECISION_HIGH
precision highp float;
#else
precision mediump float;
#endif
// Raw Bayer to RGB, the GPU twin of BayerISP: each sample less the black
// level, scaled and multiplied by its color's white-balance gain; the two
// missing colors interpolated (Malvar-He-Cutler with MALVAR defined, else
// bilinear); the color matrix; the transfer curve. Samples are read at
// integer positions, nearest, with edges mirrored without repeating the
// edge sample (..., 2, 1, 0, 1, 2, ...), which keeps the color pattern.
// 8-bit samples are uploaded as LUMINANCE; 16-bit words as LUMINANCE_ALPHA
// (low byte in .r, high byte in .a).
varying vec2 v_texcoord;
uniform sampler2D u_texture;
uniform vec2 u_size;        // frame size in pixels
uniform vec2 u_red;         // column and row parity of the red samples
uniform float u_sixteen;    // 1 for 16-bit words
uniform float u_black;      // black level, in sample units
uniform float u_maximum;    // the largest sample
uniform vec3 u_gains;       // red, green, blue gains over (maximum - black)
uniform mat3 u_ccm;
uniform float u_gamma;      // 0: none; -1: sRGB; else the exponent's inverse

float mirrored(float i, float n) {
    return i < 0.0 ? -i : (i >= n ? 2.0 * n - 2.0 - i : i);
}

vec2 pixel;

// The balanced sample dx, dy pixels from this one.
float s(float dx, float dy) {
    vec2 p = pixel + vec2(dx, dy);
    vec2 parity = mod(p, 2.0);
    vec2 at = vec2(mirrored(p.x, u_size.x), mirrored(p.y, u_size.y));
    vec4 t = texture2D(u_texture, (at + 0.5) / u_size);
    float raw = floor(t.r * 255.0 + 0.5) + u_sixteen * 256.0 * floor(t.a * 255.0 + 0.5);
    bool redColumn = parity.x == u_red.x, redRow = parity.y == u_red.y;
    float gain = redColumn == redRow ? (redRow ? u_gains.r : u_gains.b) : u_gains.g;
    return max(0.0, min(raw, u_maximum) - u_black) * gain;
}

#ifdef MALVAR
float greenAtRedOrBlue() {
    return (4.0 * s(0.0, 0.0) + 2.0 * (s(-1.0, 0.0) + s(1.0, 0.0) + s(0.0, -1.0) + s(0.0, 1.0))
        - (s(-2.0, 0.0) + s(2.0, 0.0) + s(0.0, -2.0) + s(0.0, 2.0))) * 0.125;
}
float corners() { return s(-1.0, -1.0) + s(1.0, -1.0) + s(-1.0, 1.0) + s(1.0, 1.0); }
float horizontal(float own, float corners) {
    return (5.0 * own + 4.0 * (s(-1.0, 0.0) + s(1.0, 0.0)) - (s(-2.0, 0.0) + s(2.0, 0.0)) - corners
        + 0.5 * (s(0.0, -2.0) + s(0.0, 2.0))) * 0.125;
}
float vertical(float own, float corners) {
    return (5.0 * own + 4.0 * (s(0.0, -1.0) + s(0.0, 1.0)) - (s(0.0, -2.0) + s(0.0, 2.0)) - corners
        + 0.5 * (s(-2.0, 0.0) + s(2.0, 0.0))) * 0.125;
}
float diagonal(float own, float corners) {
    return (6.0 * own + 2.0 * corners - 1.5 * (s(-2.0, 0.0) + s(2.0, 0.0) + s(0.0, -2.0) + s(0.0, 2.0))) * 0.125;
}
#else
float greenAtRedOrBlue() { return (s(-1.0, 0.0) + s(1.0, 0.0) + s(0.0, -1.0) + s(0.0, 1.0)) * 0.25; }
float corners() { return s(-1.0, -1.0) + s(1.0, -1.0) + s(-1.0, 1.0) + s(1.0, 1.0); }
float horizontal(float own, float corners) { return (s(-1.0, 0.0) + s(1.0, 0.0)) * 0.5; }
float vertical(float own, float corners) { return (s(0.0, -1.0) + s(0.0, 1.0)) * 0.5; }
float diagonal(float own, float corners) { return corners * 0.25; }
#endif

float encode(float x) {
    x = clamp(x, 0.0, 1.0);
    if (u_gamma == 0.0) return x;
    if (u_gamma < 0.0) return x <= 0.0031308 ? 12.92 * x : 1.055 * pow(x, 1.0 / 2.4) - 0.055;
    return pow(x, u_gamma);
}

void main() {
    pixel = floor(v_texcoord * u_size);
    vec2 parity = mod(pixel, 2.0);
    bool redRow = parity.y == u_red.y;
    // Red or blue samples sit on the columns of this parity; green on the others.
    float colorParity = redRow ? u_red.x : 1.0 - u_red.x;
    float own = s(0.0, 0.0);
    vec3 rgb;
    if (parity.x == colorParity) {
        float green = greenAtRedOrBlue(), other = diagonal(own, corners());
        rgb = redRow ? vec3(own, green, other) : vec3(other, green, own);
    } else {
#ifdef MALVAR
        float c = corners();
#else
        float c = 0.0;
#endif
        float across = horizontal(own, c), down = vertical(own, c);
        rgb = redRow ? vec3(across, own, down) : vec3(down, own, across);
    }
    rgb = u_ccm * rgb;
    gl_FragColor = vec4(encode(rgb.r), encode(rgb.g), encode(rgb.b), 1.0);
}
