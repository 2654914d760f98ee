import CPNG

/// Encodes RGBA pixels to PNG bytes in memory through libpng. The buffer is
/// allocated for the largest PNG of the size and reused from frame to frame.
public final class PNGEncoder {
    private var buffer = UnsafeMutableRawBufferPointer(start: nil, count: 0)

    public init() {}

    deinit { buffer.deallocate() }

    /// The PNG of `width` x `height` RGBA pixels (rows top first, tightly
    /// packed); valid until the next call.
    public func encode(_ pixels: UnsafeRawBufferPointer, width: Int, height: Int) throws -> UnsafeRawBufferPointer {
        precondition(pixels.count >= width * height * 4)
        var image = png_image()
        image.version = kamera_png_image_version
        image.width = png_uint_32(width)
        image.height = png_uint_32(height)
        image.format = kamera_png_format_rgba
        let needed = Int(kamera_png_size_max(image))
        if buffer.count < needed {
            buffer.deallocate()
            buffer = .allocate(byteCount: needed, alignment: 64)
        }
        var size = png_alloc_size_t(buffer.count)
        guard png_image_write_to_memory(&image, buffer.baseAddress, &size, 0, pixels.baseAddress, Int32(width * 4), nil) != 0 else {
            let message = withUnsafeBytes(of: &image.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            png_image_free(&image)
            throw OutputError("cannot encode a \(width)x\(height) PNG: \(message)")
        }
        return UnsafeRawBufferPointer(rebasing: buffer[0..<Int(size)])
    }
}
