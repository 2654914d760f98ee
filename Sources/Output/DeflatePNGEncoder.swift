import CDeflate
import Glibc

/// Unfiltered PNGs with libdeflate for the deflate step: the same stream a
/// zlib of the same level makes, within a percent, in half to two thirds of
/// the time. An opaque picture (every alpha 255, what a camera gives) is
/// written as RGB, a quarter fewer bytes to compress and store; any other as
/// RGBA. The PNG around it is four chunks (signature, IHDR, one IDAT, IEND).
/// Buffers and the compressor are made once and reused.
final class DeflatePNGEncoder {
    private let compressor: OpaquePointer
    /// Each row with its filter byte (0, none) in front.
    private var rows = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    private var png = UnsafeMutableRawBufferPointer(start: nil, count: 0)

    /// `level`: libdeflate's, 1 (fastest) to 12.
    init(level: Int32) {
        compressor = libdeflate_alloc_compressor(level)!
    }

    deinit {
        libdeflate_free_compressor(compressor)
        rows.deallocate()
        png.deallocate()
    }

    /// The PNG of `width` x `height` RGBA pixels (rows top first, tightly
    /// packed); valid until the next call.
    func encode(_ pixels: UnsafeRawBufferPointer, width: Int, height: Int) throws -> UnsafeRawBufferPointer {
        guard width > 0, height > 0, width < 1 << 29, height < 1 << 31, pixels.count >= width * 4 * height else {
            throw OutputError("cannot encode a \(width)x\(height) PNG")
        }
        let opaque = Self.isOpaque(pixels, count: width * height)
        let sourceRow = width * 4, rowBytes = opaque ? width * 3 : sourceRow, filtered = height * (rowBytes + 1)
        if rows.count < filtered {
            rows.deallocate()
            rows = .allocate(byteCount: filtered, alignment: 64)
        }
        for y in 0..<height {
            let row = rows.baseAddress! + y * (rowBytes + 1), source = pixels.baseAddress! + y * sourceRow
            if y > 0 && memcmp(source, source - sourceRow, sourceRow) == 0 {
                // The row above again (a mosaic, flat areas, bars): the Up filter, all zeros.
                row.storeBytes(of: 2, as: UInt8.self)
                (row + 1).initializeMemory(as: UInt8.self, repeating: 0, count: rowBytes)
            } else {
                row.storeBytes(of: 0, as: UInt8.self)
                if opaque {
                    Self.dropAlpha(source.assumingMemoryBound(to: UInt8.self), into: (row + 1).assumingMemoryBound(to: UInt8.self), count: width)
                } else {
                    (row + 1).copyMemory(from: source, byteCount: rowBytes)
                }
            }
        }
        let bound = libdeflate_zlib_compress_bound(compressor, filtered)
        let needed = Self.before + bound + Self.after
        guard bound < Int(Int32.max) else { throw OutputError("cannot encode a \(width)x\(height) PNG: too large for one chunk") }
        if png.count < needed {
            png.deallocate()
            png = .allocate(byteCount: needed, alignment: 64)
        }
        let base = png.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let compressed = libdeflate_zlib_compress(compressor, rows.baseAddress, filtered, base + Self.before, bound)
        guard compressed > 0 else { throw OutputError("cannot encode a \(width)x\(height) PNG: deflate found no room") }
        var png = PNGChunkWriter(into: base)
        png.signature()
        png.begin("IHDR", length: 13)
        png.put32(UInt32(width))
        png.put32(UInt32(height))
        png.put8(8)                // bits per channel
        png.put8(opaque ? 2 : 6)   // RGB or RGBA
        png.put("\0\0\0")          // deflate, the adaptive filter method, no interlace
        png.end()
        png.begin("IDAT", length: compressed)
        precondition(png.at == Self.before)
        png.skip(compressed)
        png.end()
        png.begin("IEND", length: 0)
        png.end()
        return UnsafeRawBufferPointer(start: base, count: png.at)
    }

    /// True when every pixel's alpha is 255.
    static func isOpaque(_ pixels: UnsafeRawBufferPointer, count: Int) -> Bool {
        let words = pixels.baseAddress!.assumingMemoryBound(to: UInt32.self)
        var all: UInt32 = 0xFFFF_FFFF
        for i in 0..<count { all &= words[i] }
        return all >> 24 == 0xFF
    }

    /// R, G, B of `count` RGBA pixels, packed.
    @inline(__always)
    static func dropAlpha(_ source: UnsafePointer<UInt8>, into target: UnsafeMutablePointer<UInt8>, count: Int) {
        var s = source, t = target
        for _ in 0..<count {
            t[0] = s[0]
            t[1] = s[1]
            t[2] = s[2]
            s += 4
            t += 3
        }
    }

    /// Bytes before the compressed data (signature, IHDR, IDAT's length and
    /// type) and after it (IDAT's CRC, IEND).
    private static let before = 8 + 25 + 8
    private static let after = 4 + 12
}
