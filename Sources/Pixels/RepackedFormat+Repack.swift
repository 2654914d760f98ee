/// The CPU repack: each layout's bytes moved into its `native` one, row by
/// row at each plane's stride, converting no color.
extension RepackedFormat {
    /// Repacks the frame in `planes` (this layout, each plane with its own
    /// stride) into `target`, a buffer of `native` of the same size.
    public func repack(_ planes: [Plane], into target: FrameBuffer) {
        precondition(target.format == native && planes.count == planeLayouts(width: target.width, height: target.height).count)
        let width = target.width, height = target.height, pairs = (width + 1) / 2
        func row(_ plane: Int, _ r: Int) -> UnsafePointer<UInt8> {
            (planes[plane].bytes.baseAddress! + r * planes[plane].bytesPerRow).assumingMemoryBound(to: UInt8.self)
        }
        func out(_ plane: Int, _ r: Int) -> UnsafeMutablePointer<UInt8> {
            UnsafeMutablePointer(mutating: (target.planes[plane].bytes.baseAddress! + r * target.planes[plane].bytesPerRow)
                .assumingMemoryBound(to: UInt8.self))
        }
        switch self {
        case .uyvy, .yvyu, .vyuy:
            // Each pair as one little-endian word, its bytes moved to Y0 U Y1 V
            // by shifts and masks (a loop the compiler vectorizes).
            for r in 0..<height {
                let s = UnsafeRawPointer(row(0, r)), d = UnsafeMutableRawPointer(out(0, r))
                switch self {
                case .uyvy: Self.moveWords(s, d, pairs) { ($0 & 0x00FF_00FF) << 8 | ($0 >> 8) & 0x00FF_00FF }
                case .yvyu: Self.moveWords(s, d, pairs) { $0 & 0x00FF_00FF | ($0 & 0x0000_FF00) << 16 | ($0 >> 16) & 0x0000_FF00 }
                default: Self.moveWords(s, d, pairs) { $0 >> 8 | $0 << 24 }
                }
            }
        case .nv21:
            Self.copyRows(planes[0], into: target.planes[0], width: width, rows: height)
            for r in 0..<(height + 1) / 2 {
                let s = row(1, r), d = out(1, r)
                for i in 0..<pairs { (d[2 &* i], d[2 &* i &+ 1]) = (s[2 &* i &+ 1], s[2 &* i]) }
            }
        case .yu12, .yv12:
            Self.copyRows(planes[0], into: target.planes[0], width: width, rows: height)
            let (up, vp) = self == .yu12 ? (1, 2) : (2, 1)
            for r in 0..<(height + 1) / 2 {
                let u = row(up, r), v = row(vp, r), d = out(1, r)
                for i in 0..<pairs { (d[2 &* i], d[2 &* i &+ 1]) = (u[i], v[i]) }
            }
        case .yuv422p:
            for r in 0..<height {
                let y = row(0, r), u = row(1, r), v = row(2, r), d = out(0, r)
                for i in 0..<pairs {
                    let second = Swift.min(2 &* i &+ 1, width - 1)
                    (d[4 &* i], d[4 &* i &+ 1], d[4 &* i &+ 2], d[4 &* i &+ 3]) = (y[2 &* i], u[i], y[second], v[i])
                }
            }
        case .nv16, .nv61:
            let (u, v) = self == .nv16 ? (0, 1) : (1, 0)
            for r in 0..<height {
                let y = row(0, r), c = row(1, r), d = out(0, r)
                for i in 0..<pairs {
                    let second = Swift.min(2 &* i &+ 1, width - 1)
                    (d[4 &* i], d[4 &* i &+ 1], d[4 &* i &+ 2], d[4 &* i &+ 3]) = (y[2 &* i], c[2 &* i &+ u], y[second], c[2 &* i &+ v])
                }
            }
        case .bgr24:
            for r in 0..<height {
                let s = row(0, r), d = out(0, r)
                for i in 0..<width { (d[3 &* i], d[3 &* i &+ 1], d[3 &* i &+ 2]) = (s[3 &* i &+ 2], s[3 &* i &+ 1], s[3 &* i]) }
            }
        case .rgb565:
            for r in 0..<height {
                let s = row(0, r), d = out(0, r)
                for i in 0..<width {
                    (d[3 &* i], d[3 &* i &+ 1], d[3 &* i &+ 2]) = Self.widenRGB565(s, at: i)
                }
            }
        case .y10, .y12, .y16:
            for r in 0..<height {
                let s = row(0, r), d = out(0, r)
                // The depth as a constant in each call, so that the division is a multiplication.
                switch self {
                case .y10: Self.widenGray(s, d, width, top: 1023)
                case .y12: Self.widenGray(s, d, width, top: 4095)
                default: Self.widenGray(s, d, width, top: 65535)
                }
            }
        case .rgbx, .bgrx, .xbgr, .abgr, .argb, .xrgb:
            // Each pixel as one little-endian word, moved to R G B A.
            for r in 0..<height {
                let s = UnsafeRawPointer(row(0, r)), d = UnsafeMutableRawPointer(out(0, r))
                switch self {
                case .rgbx: Self.moveWords(s, d, width) { $0 | 0xFF00_0000 }
                case .bgrx: Self.moveWords(s, d, width) { ($0 & 0xFF) << 16 | $0 & 0xFF00 | ($0 >> 16) & 0xFF | 0xFF00_0000 }
                case .xbgr: Self.moveWords(s, d, width) { $0.byteSwapped | 0xFF00_0000 }
                case .abgr: Self.moveWords(s, d, width) { $0.byteSwapped }
                case .argb: Self.moveWords(s, d, width) { $0 >> 8 | $0 << 24 }
                default: Self.moveWords(s, d, width) { $0 >> 8 | 0xFF00_0000 }
                }
            }
        default:
            preconditionFailure("a Bayer mosaic is demosaiced by BayerISP, not repacked")
        }
    }

    /// `count` 4-byte words from `source` to `target`, each through `move`.
    @inline(__always)
    private static func moveWords(_ source: UnsafeRawPointer, _ target: UnsafeMutableRawPointer, _ count: Int, _ move: (UInt32) -> UInt32) {
        for i in 0..<count {
            target.storeBytes(of: move(source.loadUnaligned(fromByteOffset: 4 &* i, as: UInt32.self)), toByteOffset: 4 &* i, as: UInt32.self)
        }
    }

    /// 16-bit little-endian gray of depth `top` to bytes, rounded from the
    /// full depth; bits above it (not the format's) read as white.
    @inline(__always)
    static func widenGray(_ source: UnsafePointer<UInt8>, _ target: UnsafeMutablePointer<UInt8>, _ width: Int, top: UInt32) {
        for i in 0..<width {
            let value = Swift.min(UInt32(source[2 &* i]) | UInt32(source[2 &* i &+ 1]) << 8, top)
            target[i] = UInt8(truncatingIfNeeded: (value &* 255 &+ top / 2) / top)
        }
    }

    /// Pixel `i` of a little-endian RGB565 row as 8-bit R, G, B, each field
    /// widened by repeating its top bits: 31 → 255, 63 → 255.
    @inline(__always)
    static func widenRGB565(_ row: UnsafePointer<UInt8>, at i: Int) -> (UInt8, UInt8, UInt8) {
        let word = UInt16(row[2 &* i]) | UInt16(row[2 &* i &+ 1]) << 8
        let (red, green, blue) = (word >> 11, (word >> 5) & 63, word & 31)
        return (UInt8(truncatingIfNeeded: red << 3 | red >> 2), UInt8(truncatingIfNeeded: green << 2 | green >> 4),
                UInt8(truncatingIfNeeded: blue << 3 | blue >> 2))
    }

    /// `rows` rows of `width` bytes from `source` into `target`, each at its own stride.
    static func copyRows(_ source: Plane, into target: Plane, width: Int, rows: Int) {
        for r in 0..<rows {
            UnsafeMutableRawPointer(mutating: target.bytes.baseAddress! + r * target.bytesPerRow)
                .copyMemory(from: source.bytes.baseAddress! + r * source.bytesPerRow, byteCount: width)
        }
    }
}
