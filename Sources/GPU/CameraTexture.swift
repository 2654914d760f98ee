import CGLES

/// A rectangle of a texture in texture coordinates (0...1), y = 0 at the
/// image's top row.
public struct TextureRegion: Equatable, Sendable {
    public var x: Float
    public var y: Float
    public var width: Float
    public var height: Float

    public init(x: Float, y: Float, width: Float, height: Float) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public static let full = TextureRegion(x: 0, y: 0, width: 1, height: 1)
    /// The whole of a texture whose row 0 is the image's bottom (GL's own
    /// orientation, as glslViewer and Shadertoy passes draw).
    public static let bottomUp = TextureRegion(x: 0, y: 1, width: 1, height: -1)

    /// The same rectangle with top and bottom swapped.
    public var flippedVertically: TextureRegion { TextureRegion(x: x, y: y + height, width: width, height: -height) }
}

/// What the texture cache hands the renderer for one frame, as
/// `CVOpenGLESTextureGetTarget`/`GetName` do: an RGBA texture, its size in
/// texels, the region holding the (cropped) image, and the image's size in
/// pixels: the region's size in texels, or larger when the texture holds a
/// reduced copy (a wide blur works at a fraction of the size; the next draw
/// samples it back up).
public struct CameraTexture: Equatable {
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
