// Overlays drawn over the picture: solid shapes (boxes, outlines, label
// backgrounds) and text, whose coverage is the console font's glyph bitmap.
#ifdef GL_FRAGMENT_PRECISION_HIGH
precision highp float;
#else
precision mediump float;
#endif
varying vec2 v_texcoord;
uniform sampler2D u_texture;   // the font's glyphs, one byte a pixel
uniform vec4 u_color;
uniform float u_textured;      // 1: text, 0: a solid shape

void main() {
    float coverage = u_textured > 0.5 ? texture2D(u_texture, v_texcoord).r : 1.0;
    gl_FragColor = vec4(u_color.rgb, u_color.a * coverage);
}
