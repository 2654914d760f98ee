import CGLES
import Pixels

/// How one plane of a frame lives on the GPU: the texture its bytes are
/// uploaded into (the copy path) and the DRM format its dma-buf is imported
/// as (zero-copy), with the same texels, so that the same shaders read both.
/// Every layout the frame uploader reads is one entry of `init(plane:of:width:height:)`.
struct PlaneTexture {
    /// `glTexImage2D`'s format and type.
    var format: GLenum
    var type = GLenum(GL_UNSIGNED_BYTE)
    /// Bytes of one texel in memory.
    var bytesPerTexel: Int
    var width: Int
    var height: Int
    /// Nearest for packed samples a pass unpacks (YUV, Bayer), linear for a picture sampled as it is.
    var filter: Int32
    /// How a picture's R, G, B and A are read from the texel (RGB in other
    /// byte orders); identity for the others.
    var order = TextureSwizzle.identity
    /// The DRM format of the import and how its channels read as the copy's
    /// (R8 as GL_LUMINANCE...); nil for 24-bit RGB, which is copied (DRM's
    /// RG24 and BG24 are seldom importable).
    var imported: (fourcc: String, swizzle: TextureSwizzle)?

    /// The number of planes of `format`.
    static func count(of format: PixelFormat) -> Int {
        guard let chroma = format.chromaLayout else { return 1 }
        return chroma.planar ? 3 : 2
    }

    /// Plane `index` of a `width`x`height` frame of `format`; `bgraDirect`:
    /// BGRA uploaded as GL_BGRA_EXT rather than reordered. Allocates nothing.
    init(plane index: Int, of format: PixelFormat, width: Int, height: Int, bgraDirect: Bool = false) {
        let (luminance, luminanceAlpha) = (GLenum(GL_LUMINANCE), GLenum(GL_LUMINANCE_ALPHA))
        if let chroma = format.chromaLayout {
            // Semi-planar: the chroma plane's U, V pairs as luminance-alpha texels; planar: U and V a luminance plane each.
            let chromaSize = ((width + 1) / 2, chroma.fullHeight ? height : (height + 1) / 2)
            switch (index, chroma.planar) {
            case (0, _): self.init(format: luminance, bytesPerTexel: 1, width: width, height: height, filter: GL_NEAREST, imported: ("R8  ", .gray))
            case (_, false): self.init(format: luminanceAlpha, bytesPerTexel: 2, width: chromaSize.0, height: chromaSize.1, filter: GL_NEAREST,
                                       imported: ("GR88", .grayAlpha))
            default: self.init(format: luminance, bytesPerTexel: 1, width: chromaSize.0, height: chromaSize.1, filter: GL_NEAREST, imported: ("R8  ", .gray))
            }
            return
        }
        if format.pairOrder != nil {
            // A pair of pixels' 4 bytes as one R G B A texel.
            self.init(format: GLenum(GL_RGBA), bytesPerTexel: 4, width: (width + 1) / 2, height: height, filter: GL_NEAREST, imported: ("AB24", .identity))
            return
        }
        if let bytes = format.rgbBytes {
            // Uploaded and imported as they are (bytes 0, 1, 2, 3 as R, G, B, A), read in their order by swizzle.
            // BGRA and BGRX are imported as AR24 and XR24, DRM's names for their orders, and BGRA is uploaded as
            // GL_BGRA_EXT where the GPU takes that: no swizzle.
            let order = TextureSwizzle(bytes: bytes)
            let imported: (fourcc: String, swizzle: TextureSwizzle)? = switch format {
            case .bgra: ("AR24", .identity)
            case .bgrx: ("XR24", .identity)
            default: bytes.size == 4 ? ("AB24", order) : nil
            }
            let direct = format == .bgra && bgraDirect
            self.init(format: GLenum(direct ? GL_BGRA_EXT : bytes.size == 4 ? GL_RGBA : GL_RGB), bytesPerTexel: bytes.size, width: width, height: height,
                      filter: GL_LINEAR, order: direct ? .identity : order, imported: imported)
            return
        }
        switch format {
        case .rgb565:
            self.init(format: GLenum(GL_RGB), type: GLenum(GL_UNSIGNED_SHORT_5_6_5), bytesPerTexel: 2, width: width, height: height, filter: GL_LINEAR,
                      imported: ("RG16", .identity))
        case .bayer16, .y10, .y12, .y16:
            // Each sample's low and high byte.
            self.init(format: luminanceAlpha, bytesPerTexel: 2, width: width, height: height, filter: GL_NEAREST, imported: ("GR88", .grayAlpha))
        case .bayer10p, .bayer12p:
            // The packed bytes as they are, a texel each; the demosaic shader unpacks the samples.
            self.init(format: luminance, bytesPerTexel: 1, width: PixelFormat.mipiRowBytes(width: width, bits: format.mipiBits!), height: height,
                      filter: GL_NEAREST, imported: ("R8  ", .gray))
        default:
            // GREY, 8-bit Bayer.
            self.init(format: luminance, bytesPerTexel: 1, width: width, height: height, filter: format.isMosaic ? GL_NEAREST : GL_LINEAR,
                      imported: ("R8  ", .gray))
        }
    }

    private init(format: GLenum, type: GLenum = GLenum(GL_UNSIGNED_BYTE), bytesPerTexel: Int, width: Int, height: Int, filter: Int32,
                 order: TextureSwizzle = .identity, imported: (fourcc: String, swizzle: TextureSwizzle)?) {
        (self.format, self.type, self.bytesPerTexel, self.width, self.height) = (format, type, bytesPerTexel, width, height)
        (self.filter, self.order, self.imported) = (filter, order, imported)
    }
}
