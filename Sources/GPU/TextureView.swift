import CGLES

/// A picture on the GPU, as the frame uploader and every stage hand it on
/// (what `CVOpenGLESTextureGetTarget`/`GetName` give for a camera frame): an
/// RGBA texture, its size in texels, the region of it holding the picture,
/// and the picture's size in pixels: the region's size in texels, or larger
/// when the texture holds a reduced copy (a wide blur works at a fraction of
/// the size; the next draw samples it back up).
public struct TextureView: Equatable {
    public let target: GLenum
    public let name: GLuint
    public let width: Int
    public let height: Int
    public let region: TextureRegion
    /// Size in pixels of the image the region holds.
    public let pixelWidth: Int
    public let pixelHeight: Int

    public init(target: GLenum = GLenum(GL_TEXTURE_2D), name: GLuint, width: Int, height: Int, region: TextureRegion,
                imageSize: (width: Int, height: Int)? = nil) {
        self.target = target
        self.name = name
        self.width = width
        self.height = height
        self.region = region
        pixelWidth = imageSize?.width ?? Int((Float(width) * abs(region.width)).rounded())
        pixelHeight = imageSize?.height ?? Int((Float(height) * abs(region.height)).rounded())
    }

    /// True when the texture holds the image at fewer texels than its pixels.
    public var isReduced: Bool {
        Int((Float(width) * abs(region.width)).rounded()) < pixelWidth || Int((Float(height) * abs(region.height)).rounded()) < pixelHeight
    }
}
