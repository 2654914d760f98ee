// A Shadertoy shader over the camera: rings of ripples from the centre,
// shading by the ripple's slope. Runs unchanged on shadertoy.com.
//   kamera shader Examples/Shaders/ripple.frag --time 1.5 -o ripple.png
//   (ripple-1.5s.png is this at --size 240x240: add it to check against it with --expect)
//   kamera shader Examples/Shaders/ripple.frag -o kms --camera /dev/video0 --watch
#include "common.glsl"

void mainImage(out vec4 fragColor, in vec2 fragCoord) {
    vec2 uv = fragCoord / iResolution.xy;
    vec2 d = uv - 0.5;
    float r = length(d);
    float wave = ripple(r, iTime);
    vec2 offset = normalize(d + 1e-6) * wave * 0.015;
    vec3 color = texture(iChannel0, uv + offset).rgb;
    fragColor = vec4(color * (1.0 + 2.0 * wave), 1.0);
}
