import CPNG

/// How hard PNG encoding works for a smaller file: the row filters libpng
/// tries and zlib's level.
public enum PNGCompression: String, CaseIterable, Sendable {
    /// No row filter (ffmpeg's encoder's default) and zlib level 1: the
    /// quickest, with larger files.
    case fast
    /// No row filter, zlib level 4 (the fastest of its lazy-matching levels):
    /// files within a few percent of ffmpeg's (no filter, level 6) at a third
    /// of its time on camera pictures. The "up" filter, better on clean
    /// synthetic images, makes sensor noise larger and slower to compress.
    case `default`
    /// Every filter tried on every row (libpng's adaptive choice), level 9.
    case small

    var filters: Int32 {
        switch self {
        case .fast: kamera_png_filter_none
        case .default: kamera_png_filter_none
        case .small: kamera_png_all_filters
        }
    }

    var level: Int32 {
        switch self {
        case .fast: 1
        case .default: 4
        case .small: 9
        }
    }
}

/// Encodes RGBA pixels to PNG bytes in memory through libpng. The buffer is
/// allocated for the largest PNG of the size and reused from frame to frame.
public final class PNGEncoder {
    public let compression: PNGCompression
    private var buffer = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    private var message = [CChar](repeating: 0, count: 256)

    public init(compression: PNGCompression = .default) {
        self.compression = compression
    }

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
        var size = 0
        let failed = message.withUnsafeMutableBufferPointer { text in
            kamera_png_encode(pixels.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt32(width), UInt32(height), width * 4,
                              compression.filters, compression.level, buffer.baseAddress!.assumingMemoryBound(to: UInt8.self),
                              buffer.count, &size, text.baseAddress)
        }
        guard failed == 0 else {
            let text = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw OutputError("cannot encode a \(width)x\(height) PNG: \(text)")
        }
        return UnsafeRawBufferPointer(rebasing: buffer[0..<size])
    }
}
