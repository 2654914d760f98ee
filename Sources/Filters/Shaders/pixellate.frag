#ifdef GL_FRAGMENT_PRECISION_HIGH
precision highp float;
#else
precision mediump float;
#endif
varying vec2 v_texcoord;
uniform sampler2D u_texture;
uniform vec2 u_resolution;  // size of the image in pixels
uniform float u_block;      // block edge in pixels
uniform vec4 u_region;      // the image's region of the texture: origin (its top-left), size

void main() {
    // Blocks start at the image's top-left, wherever its region lies in the texture.
    vec2 local = (v_texcoord - u_region.xy) / u_region.zw;
    vec2 block = floor(local * u_resolution / u_block);
    vec2 center = (min(floor((block + 0.5) * u_block), u_resolution - 1.0) + 0.5) / u_resolution;
    gl_FragColor = texture2D(u_texture, u_region.xy + center * u_region.zw);
}
