/// The GLSL sources of every built-in shader, embedded in the binary.
public enum ShaderSource {
    public static let quadVertex = text(PackageResources.quad_vert)
    /// The same for GLSL ES 3.00 fragment shaders (versions must match).
    public static let quadVertex300 = text(PackageResources.quad300_vert)
    public static let cubeVertex = text(PackageResources.cube_vert)
    public static let yuvVertex = text(PackageResources.yuv_vert)
    public static let texture = text(PackageResources.texture_frag)
    public static let yuyv = text(PackageResources.yuyv_frag)
    public static let nv12 = text(PackageResources.nv12_frag)
    public static let colorMatrix = text(PackageResources.color_matrix_frag)
    public static let swizzle = text(PackageResources.swizzle_frag)
    public static let deepGray = text(PackageResources.deep_gray_frag)
    public static let overlay = text(PackageResources.overlay_frag)
    public static let bayer = text(PackageResources.bayer_frag)

    public static func text(_ bytes: [UInt8]) -> String {
        String(decoding: bytes, as: UTF8.self)
    }
}
