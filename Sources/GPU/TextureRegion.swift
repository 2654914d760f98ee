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
