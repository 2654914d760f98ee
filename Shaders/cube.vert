attribute vec3 a_position;
attribute vec2 a_texcoord;
uniform mat4 u_mvp;
uniform vec4 u_region;  // x, y, width, height of the image in the texture
varying vec2 v_texcoord;

void main() {
    v_texcoord = u_region.xy + a_texcoord * u_region.zw;
    gl_Position = u_mvp * vec4(a_position, 1.0);
}
