#ifdef GL_FRAGMENT_PRECISION_HIGH
precision highp float;
#else
precision mediump float;
#endif
// Raw Bayer to RGB, the GPU twin of BayerISP: each sample less the black
// level and scaled (`u_gains` carry the scale); the two missing colors
// interpolated (Malvar-He-Cutler with MALVAR defined, else bilinear); the
// color matrix; the transfer curve. Samples are read at integer positions,
// nearest, with edges mirrored without repeating the edge sample
// (..., 2, 1, 0, 1, 2, ...), which keeps the color pattern. Each kernel
// knows the colors of the samples it reads from the center's place in the
// pattern, so the white-balance gains multiply sums of samples, not each one.
// 8-bit samples are uploaded as LUMINANCE; 16-bit words as LUMINANCE_ALPHA
// (low byte in .r, high byte in .a); MIPI-packed rows as LUMINANCE, a byte a
// texel (PACKED defined: a program of its own, so the other formats pay
// nothing for it): groups of u_group samples (4 at 10 bits, 2 at 12), each group the
// samples' high 8 bits, then one byte of their low bits (sample 0's lowest).
varying vec2 v_texcoord;
uniform sampler2D u_texture;
uniform vec2 u_size;        // frame size in pixels
uniform vec2 u_red;         // column and row parity of the red samples
uniform float u_sixteen;    // 1 for 16-bit words
uniform float u_group;      // samples in a MIPI-packed group (4, 2), with PACKED
uniform float u_texels;     // the texture's width in texels
uniform float u_black;      // black level, in sample units
uniform float u_maximum;    // the largest sample
uniform vec3 u_gains;       // red, green, blue gains over (maximum - black)
uniform mat3 u_ccm;
uniform float u_gamma;      // 0: none; -1: sRGB; else the exponent's inverse

vec2 pixel;
vec2 last;                  // u_size - 1
vec2 bytes;                 // what .r and .a are worth, in sample units

// The byte at column x of row y, as a whole number.
float byteAt(float x, float y) {
    return floor(texture2D(u_texture, vec2((x + 0.5) / u_texels, y)).r * 255.0 + 0.5);
}

// The stored sample at `at` (whole pixel coordinates). Whole numbers are
// divided with half a unit added before floor(), so that a division the GPU
// does not round exactly still lands on the right side.
float stored(vec2 at) {
#ifndef PACKED
    return dot(texture2D(u_texture, (at + 0.5) / u_size).ra, bytes);
#else
    float group = floor((at.x + 0.5) / u_group), i = at.x - group * u_group;
    float first = group * (u_group + 1.0), y = (at.y + 0.5) / u_size.y;
    float scale = u_group == 4.0 ? 4.0 : 16.0;    // 2 low bits a sample, or 4
    float shift = i == 0.0 ? 1.0 : i == 1.0 ? scale : i == 2.0 ? 16.0 : 64.0;
    float low = floor((byteAt(first + u_group, y) + 0.5) / shift);     // this sample's bits at the bottom
    low -= scale * floor((low + 0.5) / scale);
    return byteAt(first + i, y) * scale + low;
#endif
}

// The sample dx, dy pixels from this one, less the black level (no gain).
float s(float dx, float dy) {
    vec2 at = last - abs(last - abs(pixel + vec2(dx, dy)));   // mirrored at both edges
    return max(0.0, min(stored(at), u_maximum) - u_black);
}

float axis1() { return s(-1.0, 0.0) + s(1.0, 0.0) + s(0.0, -1.0) + s(0.0, 1.0); }
float across1() { return s(-1.0, 0.0) + s(1.0, 0.0); }
float down1() { return s(0.0, -1.0) + s(0.0, 1.0); }
float across2() { return s(-2.0, 0.0) + s(2.0, 0.0); }
float down2() { return s(0.0, -2.0) + s(0.0, 2.0); }
float corners() { return s(-1.0, -1.0) + s(1.0, -1.0) + s(-1.0, 1.0) + s(1.0, 1.0); }

float encode(float x) {
    x = clamp(x, 0.0, 1.0);
    if (u_gamma == 0.0) return x;
    if (u_gamma < 0.0) return x <= 0.0031308 ? 12.92 * x : 1.055 * pow(x, 1.0 / 2.4) - 0.055;
    return pow(x, u_gamma);
}

void main() {
    pixel = floor(v_texcoord * u_size);
    last = u_size - 1.0;
    bytes = vec2(255.0, 65280.0 * u_sixteen);
    vec2 parity = mod(pixel, 2.0);
    bool redRow = parity.y == u_red.y;
    // Red or blue samples sit on the columns of this parity; green on the others.
    float colorParity = redRow ? u_red.x : 1.0 - u_red.x;
    float own = s(0.0, 0.0);
    vec3 rgb;
    if (parity.x == colorParity) {
        // A red or blue sample: green beside it, the other color at the corners.
        float gOwn = redRow ? u_gains.r : u_gains.b, gOther = redRow ? u_gains.b : u_gains.r;
#ifdef MALVAR
        float far = across2() + down2();
        float green = (u_gains.g * 2.0 * axis1() + gOwn * (4.0 * own - far)) * 0.125;
        float other = (gOther * 2.0 * corners() + gOwn * (6.0 * own - 1.5 * far)) * 0.125;
#else
        float green = u_gains.g * axis1() * 0.25, other = gOther * corners() * 0.25;
#endif
        own *= gOwn;
        rgb = redRow ? vec3(own, green, other) : vec3(other, green, own);
    } else {
        // A green sample: the row's color left and right, the other color above and below.
        float gAcross = redRow ? u_gains.r : u_gains.b, gDown = redRow ? u_gains.b : u_gains.r;
#ifdef MALVAR
        float greens = 5.0 * own - corners();
        float a2 = across2(), d2 = down2();
        float across = (gAcross * 4.0 * across1() + u_gains.g * (greens - a2 + 0.5 * d2)) * 0.125;
        float down = (gDown * 4.0 * down1() + u_gains.g * (greens - d2 + 0.5 * a2)) * 0.125;
#else
        float across = gAcross * across1() * 0.5, down = gDown * down1() * 0.5;
#endif
        own *= u_gains.g;
        rgb = redRow ? vec3(across, own, down) : vec3(down, own, across);
    }
    rgb = u_ccm * rgb;
    gl_FragColor = vec4(encode(rgb.r), encode(rgb.g), encode(rgb.b), 1.0);
}
