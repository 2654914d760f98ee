// Buffer A: the frame blended into its own previous frame (feedback, read
// through channel 1), so that whatever moves leaves a fading trail.
void mainImage(out vec4 fragColor, in vec2 fragCoord) {
    vec2 uv = fragCoord / iResolution.xy;
    vec3 now = texture(iChannel0, uv).rgb;
    vec3 before = texture(iChannel1, uv).rgb;
    fragColor = vec4(mix(now, before, iFrame == 0 ? 0.0 : 0.85), 1.0);
}
