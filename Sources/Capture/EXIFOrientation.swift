import Pixels

/// The EXIF orientation of a JPEG (tag 0x0112 in the APP1 "Exif" segment):
/// how the stored pixels must be turned to stand upright, 1 to 8 as cameras
/// write it (`rotated90`: turn a quarter clockwise). Unknown or missing values
/// read as `.upright`.
public enum EXIFOrientation: Int, Sendable {
    case upright = 1, mirrored, rotated180, flipped, transposed, rotated90, transverse, rotated270

    /// True when the upright picture is the stored one turned a quarter: its width and height swap.
    public var swapsSides: Bool { rawValue >= 5 }

    /// Finds the orientation in a JPEG's markers before the image data; `.upright`
    /// when there is none or the segment is damaged (the pixels are still good).
    public static func read(jpeg bytes: UnsafeRawBufferPointer) -> EXIFOrientation {
        var i = 2
        while i + 4 <= bytes.count, bytes[i] == 0xFF {
            let marker = bytes[i + 1]
            if marker == 0xDA || marker == 0xD9 { break }  // image data or end: no more metadata
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            guard length >= 2, i + 2 + length <= bytes.count else { break }
            if marker == 0xE1, length >= 8 {
                let segment = UnsafeRawBufferPointer(rebasing: bytes[(i + 4)..<(i + 2 + length)])
                if let found = fromExif(segment) { return found }
            }
            i += 2 + length
        }
        return .upright
    }

    /// The orientation in an APP1 segment's body ("Exif\0\0" + a TIFF structure).
    private static func fromExif(_ s: UnsafeRawBufferPointer) -> EXIFOrientation? {
        guard s.count >= 14, Array(s[0..<6]) == Array("Exif\0\0".utf8) else { return nil }
        let tiff = 6
        let little: Bool
        switch (s[tiff], s[tiff + 1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= s.count else { return nil }
            return little ? Int(s[at]) | Int(s[at + 1]) << 8 : Int(s[at]) << 8 | Int(s[at + 1])
        }
        func u32(_ at: Int) -> Int? {
            guard let a = u16(at), let b = u16(at + 2) else { return nil }
            return little ? a | b << 16 : a << 16 | b
        }
        guard let ifd = u32(tiff + 4), let count = u16(tiff + ifd) else { return nil }
        for entry in 0..<min(count, 512) {
            let at = tiff + ifd + 2 + entry * 12
            guard let tag = u16(at) else { return nil }
            if tag == 0x0112, let type = u16(at + 2), type == 3, let value = u16(at + 8) {
                return EXIFOrientation(rawValue: value) ?? .upright
            }
        }
        return nil
    }

    /// `source` (RGBA, stored as the file holds it) turned upright into `target`
    /// (RGBA, sides swapped when `swapsSides`).
    public func apply(from source: FrameBuffer, to target: FrameBuffer) {
        let w = source.width, h = source.height
        let from = UnsafeRawBufferPointer(source.allBytes).bindMemory(to: UInt32.self)
        let to = target.allBytes.bindMemory(to: UInt32.self)
        let outWidth = target.width
        for y in 0..<h {
            for x in 0..<w {
                // Where the stored pixel (x, y) lands in the upright picture.
                let (u, v): (Int, Int)
                switch self {
                case .upright: (u, v) = (x, y)
                case .mirrored: (u, v) = (w - 1 - x, y)
                case .rotated180: (u, v) = (w - 1 - x, h - 1 - y)
                case .flipped: (u, v) = (x, h - 1 - y)
                case .transposed: (u, v) = (y, x)
                case .rotated90:  (u, v) = (h - 1 - y, x)
                case .transverse: (u, v) = (h - 1 - y, w - 1 - x)
                case .rotated270: (u, v) = (y, w - 1 - x)
                }
                to[v * outWidth + u] = from[y * w + x]
            }
        }
    }
}
