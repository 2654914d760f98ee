// Blends the filtered picture into the unfiltered one through a rectangle:
// the mask is 1 inside, 0 outside, and ramps from 0 at the rectangle's edge
// to 1 at u_feather pixels inside it (CIBlendWithMask with a rectangle).
#ifdef GL_FRAGMENT_PRECISION_HIGH
precision highp float;
#else
precision mediump float;
#endif
varying vec2 v_texcoord;
uniform sampler2D u_texture;    // the unfiltered picture
uniform sampler2D u_filtered;
uniform vec2 u_resolution;      // the picture's size in pixels
uniform vec4 u_rect;            // left, top, right, bottom in pixels, top row 0
uniform float u_feather;        // soft edge in pixels, 0 for a hard one

void main() {
    vec2 p = v_texcoord * u_resolution;
    float inside = min(min(p.x - u_rect.x, u_rect.z - p.x), min(p.y - u_rect.y, u_rect.w - p.y));
    float mask = u_feather > 0.0 ? clamp(inside / u_feather, 0.0, 1.0) : step(0.0, inside);
    vec4 original = texture2D(u_texture, v_texcoord);
    gl_FragColor = mask > 0.0 ? mix(original, texture2D(u_filtered, v_texcoord), mask) : original;
}
