// Unsharp mask: the picture plus AMOUNT times its difference from a blurred
// copy; alpha is the picture's own.
#ifdef GL_FRAGMENT_PRECISION_HIGH
precision highp float;
#else
precision mediump float;
#endif
varying vec2 v_texcoord;
uniform sampler2D u_texture;   // the picture
uniform sampler2D u_blurred;   // its blurred copy, the same size or reduced
uniform vec4 u_blurred_region; // where the picture lies in u_blurred: x, y, width, height
uniform float u_amount;

void main() {
    vec4 color = texture2D(u_texture, v_texcoord);
    vec3 blurred = texture2D(u_blurred, u_blurred_region.xy + v_texcoord * u_blurred_region.zw).rgb;
    gl_FragColor = vec4(clamp(color.rgb + u_amount * (color.rgb - blurred), 0.0, 1.0), color.a);
}
