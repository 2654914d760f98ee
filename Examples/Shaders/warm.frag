// A filter in Kamera's own convention: sample u_texture at v_texcoord (the
// image's top at v = 0) and write gl_FragColor. Warms the picture a little.
//   kamera render --filter Examples/Shaders/warm.frag -o warm.png
precision mediump float;
uniform sampler2D u_texture;
varying vec2 v_texcoord;

void main() {
    vec4 c = texture2D(u_texture, v_texcoord);
    gl_FragColor = vec4(min(c.r * 1.08, 1.0), c.g, c.b * 0.9, c.a);
}
