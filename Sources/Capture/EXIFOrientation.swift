import CEXIF
import Pixels

/// The EXIF orientation of a JPEG (tag 0x0112 in the APP1 "Exif" segment):
/// how the stored pixels must be turned to stand upright, 1 to 8 as cameras
/// write it (`rotated90`: turn a quarter clockwise). Unknown or missing values
/// read as `.upright`.
public enum EXIFOrientation: Int, Sendable {
    case upright = 1, mirrored, rotated180, flipped, transposed, rotated90, transverse, rotated270

    /// True when the upright picture is the stored one turned a quarter: its width and height swap.
    public var swapsSides: Bool { rawValue >= 5 }

    /// The orientation in a JPEG's EXIF block, read by libexif; `.upright`
    /// when there is none or it is damaged (the pixels are still good).
    public static func read(jpeg bytes: UnsafeRawBufferPointer) -> EXIFOrientation {
        guard let base = bytes.baseAddress, bytes.count > 2, bytes.count <= Int(UInt32.max) else { return .upright }
        let value = kamera_exif_orientation(base.assumingMemoryBound(to: UInt8.self), UInt32(bytes.count))
        return EXIFOrientation(rawValue: Int(value)) ?? .upright
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
