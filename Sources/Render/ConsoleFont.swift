import CDeflate
import Foundation
import Messages

/// A bitmap font of the Linux console (PSF 1 or 2, gzipped or not), as
/// Debian's `console-setup-linux` installs them under /usr/share/consolefonts:
/// each glyph a `width` x `height` bitmap, and the Unicode characters each
/// shows. What overlay labels are drawn with: no window system, no font engine.
public struct ConsoleFont: Sendable {
    public static let defaultPath = "/usr/share/consolefonts/Uni2-Fixed16.psf.gz"

    public let width: Int
    public let height: Int
    /// One byte a pixel (0 or 255), glyph after glyph, rows top first.
    public let glyphs: [UInt8]
    public let count: Int
    private let index: [Unicode.Scalar: Int]

    /// The glyph showing `scalar`; `?`'s (or the first) for a character the font lacks.
    public func glyph(for scalar: Unicode.Scalar) -> Int {
        index[scalar] ?? index["?"] ?? 0
    }

    public init(path: String = ConsoleFont.defaultPath) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FontError("the console font \(path) is missing; install the Debian package console-setup-linux, or use \(Setting.overlay) boxes")
        }
        try self.init(bytes: Array(data), name: path)
    }

    /// A font from the bytes of a PSF file (gzipped or not), `name` for messages.
    public init(bytes file: [UInt8], name: String) throws {
        let bytes = file.starts(with: [0x1F, 0x8B]) ? try Self.gunzip(file, name: name) : file
        func le32(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
        let bad = FontError("\(name): not a PSF console font")
        var map: [Unicode.Scalar: Int] = [:]
        let glyphBytes: Int, start: Int
        if bytes.count >= 4, bytes[0] == 0x36, bytes[1] == 0x04 {
            (width, height) = (8, Int(bytes[3]))
            count = bytes[2] & 1 == 1 ? 512 : 256
            (glyphBytes, start) = (height, 4)
            guard height > 0, bytes.count >= start + count * glyphBytes else { throw bad }
            if bytes[2] & 2 == 2 {
                // Per glyph: UTF-16 values up to 0xFFFF (0xFFFE starts sequences, which are skipped).
                var at = start + count * glyphBytes, glyph = 0, inSequence = false
                while at + 1 < bytes.count && glyph < count {
                    let value = Int(bytes[at]) | Int(bytes[at + 1]) << 8
                    at += 2
                    if value == 0xFFFF { glyph += 1; inSequence = false } else if value == 0xFFFE { inSequence = true }
                    else if !inSequence, let s = Unicode.Scalar(value), map[s] == nil { map[s] = glyph }
                }
            }
        } else if bytes.count >= 32, bytes.starts(with: [0x72, 0xB5, 0x4A, 0x86]) {
            let headerSize = le32(8), flags = le32(12)
            count = le32(16)
            glyphBytes = le32(20)
            (height, width) = (le32(24), le32(28))
            start = headerSize
            guard (1...64).contains(width), (1...64).contains(height), (1...65536).contains(count),
                  glyphBytes == height * ((width + 7) / 8), bytes.count >= start + count * glyphBytes else { throw bad }
            if flags & 1 == 1 {
                // Per glyph: UTF-8 characters up to 0xFF (0xFE starts sequences, which are skipped).
                var at = start + count * glyphBytes, glyph = 0, inSequence = false, pending: [UInt8] = []
                while at < bytes.count && glyph < count {
                    let b = bytes[at]
                    at += 1
                    if b == 0xFF || b == 0xFE {
                        if !inSequence, let s = String(decoding: pending, as: UTF8.self).unicodeScalars.first, map[s] == nil { map[s] = glyph }
                        pending = []
                        if b == 0xFF { glyph += 1; inSequence = false } else { inSequence = true }
                    } else if !inSequence {
                        if b & 0xC0 != 0x80, !pending.isEmpty, let s = String(decoding: pending, as: UTF8.self).unicodeScalars.first, map[s] == nil {
                            map[s] = glyph
                            pending = []
                        }
                        pending.append(b)
                    }
                }
            }
        } else {
            throw bad
        }
        if map.isEmpty { for c in 32..<max(32, min(127, count)) { map[Unicode.Scalar(UInt8(c))] = c } }
        index = map
        let rowBytes = (width + 7) / 8
        var pixels = [UInt8](repeating: 0, count: count * width * height)
        for g in 0..<count {
            for y in 0..<height {
                for x in 0..<width where bytes[start + g * glyphBytes + y * rowBytes + x / 8] & (0x80 >> UInt8(x % 8)) != 0 {
                    pixels[(g * height + y) * width + x] = 255
                }
            }
        }
        glyphs = pixels
    }

    private static func gunzip(_ bytes: [UInt8], name: String) throws -> [UInt8] {
        guard let decompressor = libdeflate_alloc_decompressor() else { throw FontError("out of memory reading \(name)") }
        defer { libdeflate_free_decompressor(decompressor) }
        // Console fonts are tens of kilobytes; a megabyte bounds what a damaged file can ask for.
        var out = [UInt8](repeating: 0, count: 1 << 20)
        var size = 0
        let result = out.withUnsafeMutableBytes { o in
            bytes.withUnsafeBytes { i in libdeflate_gzip_decompress(decompressor, i.baseAddress, i.count, o.baseAddress, o.count, &size) }
        }
        guard result == LIBDEFLATE_SUCCESS else { throw FontError("\(name): not a gzipped PSF console font, or larger than 1 MiB") }
        return Array(out.prefix(size))
    }
}

public struct FontError: LibraryError {
    public let facts: Facts
    public init(facts: Facts) { self.facts = facts }
}
