// The image pass of a two-pass Shadertoy shader: shows buffer A (trails-buffer.frag)
// on channel 1.
//   kamera shader Examples/Shaders/trails.frag --buffer A=Examples/Shaders/trails-buffer.frag --channel 1=A -o kms
void mainImage(out vec4 fragColor, in vec2 fragCoord) {
    fragColor = texture(iChannel1, fragCoord / iResolution.xy);
}
