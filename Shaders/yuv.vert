// The quad for YUV conversion: besides the frame's texture coordinates, the
// coordinates of the chroma texel (YUYV pairs, NV12's half-size plane) and
// the position in chroma texels, interpolated per vertex rather than
// computed per fragment. FULL_HEIGHT_CHROMA: a chroma plane with a row for
// every luma row (NV16, NV61, 422P).
attribute vec2 a_position;
attribute vec2 a_texcoord;
uniform vec2 u_size;          // frame size in pixels
varying vec2 v_texcoord;
varying vec2 v_chroma;        // in the chroma texture (the pair texture for YUYV)
varying vec2 v_chroma_texel;  // in chroma texels: .25 in a texel for its first pixel, .75 for its second

void main() {
    vec2 halfSize = u_size * 0.5;
    v_texcoord = a_texcoord;
    v_chroma_texel = a_texcoord * halfSize;
    v_chroma = v_chroma_texel / ceil(halfSize);
#ifdef FULL_HEIGHT_CHROMA
    v_chroma.y = a_texcoord.y;
#endif
    gl_Position = vec4(a_position, 0.0, 1.0);
}
