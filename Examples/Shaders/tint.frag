// A glslViewer-style shader with user uniforms and a define:
//   kamera shader Examples/Shaders/tint.frag -D QUALITY=2 -I Examples/Shaders --uniform u_gain=1.5 --uniform u_tint=1,0.8,0.6 -o tint.png
// QUALITY 2 adds the ripple from common.glsl (found through -I, or beside this file).
#ifdef GL_ES
precision mediump float;
#endif
#include "common.glsl"
uniform sampler2D u_tex0;
uniform vec2 u_resolution;
uniform float u_time;
uniform float u_gain;
uniform vec3 u_tint;
varying vec2 v_texcoord;

#ifndef QUALITY
#define QUALITY 1
#endif

void main() {
    vec2 uv = v_texcoord;
#if QUALITY >= 2
    uv += 0.01 * ripple(length(uv - 0.5), u_time);
#endif
    vec3 color = texture2D(u_tex0, uv).rgb * u_tint * u_gain;
    gl_FragColor = vec4(min(color, vec3(1.0)), 1.0);
}
