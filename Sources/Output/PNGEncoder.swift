import CPNG

/// How hard PNG encoding works for a smaller file: the row filters tried and
/// the deflate level.
public enum PNGCompression: String, CaseIterable, Sendable {
    /// No row filter (ffmpeg's encoder's default), libdeflate level 1: the
    /// quickest, with larger files.
    case fast
    /// No row filter, libdeflate level 4: files the size of zlib level 4's
    /// (within a few percent of ffmpeg's: no filter, level 6) in two thirds
    /// of zlib's time. The "up" filter, better on clean synthetic images,
    /// makes sensor noise larger and slower to compress.
    case `default`
    /// The smallest of: every filter tried on every row (libpng's adaptive
    /// choice) at zlib level 9, and no filter at libdeflate's level 12 (or 4,
    /// on tiny pictures). The filters win on clean synthetic pictures, and
    /// lose on sensor noise.
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

/// Encodes RGBA pixels to PNG bytes in memory: unfiltered with libdeflate
/// (`fast`, `default`), through libpng with its filters (`small`). Buffers
/// are allocated for the largest PNG of the size and reused from frame to frame.
public final class PNGEncoder {
    public let compression: PNGCompression
    private var buffer = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    private var message = [CChar](repeating: 0, count: 256)
    private let deflate: DeflatePNGEncoder
    /// For `small`: `default`'s encoder too, whose output is sometimes smaller.
    private let quick: DeflatePNGEncoder?

    public init(compression: PNGCompression = .default) {
        self.compression = compression
        switch compression {
        case .fast: deflate = DeflatePNGEncoder(level: 1)
        case .default: deflate = DeflatePNGEncoder(level: 4)
        case .small: deflate = DeflatePNGEncoder(level: 12)
        }
        quick = compression == .small ? DeflatePNGEncoder(level: 4) : nil
    }

    deinit { buffer.deallocate() }

    /// The PNG of `width` x `height` RGBA pixels (rows top first, tightly
    /// packed); valid until the next call.
    public func encode(_ pixels: UnsafeRawBufferPointer, width: Int, height: Int) throws -> UnsafeRawBufferPointer {
        precondition(pixels.count >= width * height * 4)
        let unfiltered = try deflate.encode(pixels, width: width, height: height)
        guard compression == .small, let quick else { return unfiltered }
        // Level 12 can come out a few bytes above level 4 on tiny pictures.
        let candidates = [unfiltered, try quick.encode(pixels, width: width, height: height),
                          try encodeWithFilters(pixels, width: width, height: height)]
        return candidates.min { $0.count < $1.count }!
    }

    /// Through libpng, with its filters (`compression.filters`) and zlib level.
    private func encodeWithFilters(_ pixels: UnsafeRawBufferPointer, width: Int, height: Int) throws -> UnsafeRawBufferPointer {
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
