// Blends the filtered picture into the unfiltered one through rectangles:
// the mask is 1 inside one, 0 outside all, and ramps from 0 at a rectangle's
// edge to 1 at u_feather pixels inside it (CIBlendWithMask with rectangles:
// one for `@x,y,w,h`, one a face for `@faces`); u_inverted turns the mask
// over (`@!faces`: filtered everywhere but the rectangles).
#ifdef GL_FRAGMENT_PRECISION_HIGH
precision highp float;
#else
precision mediump float;
#endif
varying vec2 v_texcoord;
uniform sampler2D u_texture;    // the unfiltered picture
uniform sampler2D u_filtered;
uniform vec2 u_resolution;      // the picture's size in pixels
uniform vec4 u_rects[16];       // left, top, right, bottom in pixels, top row 0
uniform int u_count;            // rectangles in use
uniform float u_feather;        // soft edge in pixels, 0 for a hard one
uniform bool u_inverted;

void main() {
    vec2 p = v_texcoord * u_resolution;
    float mask = 0.0;
    for (int i = 0; i < 16; i++) {
        if (i >= u_count) break;
        vec4 r = u_rects[i];
        float inside = min(min(p.x - r.x, r.z - p.x), min(p.y - r.y, r.w - p.y));
        mask = max(mask, u_feather > 0.0 ? clamp(inside / u_feather, 0.0, 1.0) : step(0.0, inside));
    }
    if (u_inverted) mask = 1.0 - mask;
    vec4 original = texture2D(u_texture, v_texcoord);
    gl_FragColor = mask > 0.0 ? mix(original, texture2D(u_filtered, v_texcoord), mask) : original;
}
