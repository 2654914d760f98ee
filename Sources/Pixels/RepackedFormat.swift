/// Layouts that cameras and raw files deliver and Kamera reads by repacking
/// each frame on the CPU into one of its own (`native`), which every later
/// stage takes as it is: other byte orders of packed 4:2:2, NV21, planar
/// 4:2:0, semi-planar 4:2:2, BGR24, RGB565, 32-bit RGB orders (BGRX among them) and 10- to 16-bit gray. A repack
/// moves bytes and converts no color, so the picture is the native one's
/// exactly (gray deeper than 8 bits is rounded to 8 from its full depth).
/// Raw Bayer mosaics are the exception: `BayerISP` demosaics them to RGB24
/// (`FrameRepacker` picks the one or the other).
public enum RepackedFormat: String, CaseIterable, Sendable {
    /// Packed 4:2:2 in other orders: U Y0 V Y1, Y0 V Y1 U, V Y0 U Y1.
    case uyvy, yvyu, vyuy
    /// NV12 with V before U.
    case nv21
    /// Semi-planar 4:2:2: a Y plane and an interleaved UV (NV16) or VU (NV61) plane at full height.
    case nv16, nv61
    /// Planar 4:2:0: Y, then U, then V (YU12, I420), or Y, V, U (YV12).
    case yu12, yv12
    /// Planar 4:2:2: Y, then U, then V, the chroma planes at full height (V4L2 `422P`).
    case yuv422p
    /// 8-bit B, G, R.
    case bgr24
    /// 16-bit little-endian words, R in the top 5 bits, G 6, B 5 (V4L2 `RGBP`).
    case rgb565
    /// Gray in the low 10, 12 or 16 bits of little-endian 16-bit words.
    case y10, y12, y16
    /// 32-bit RGB in other byte orders than RGBA and BGRA, named by their
    /// bytes in memory (x: unused, read as opaque): R G B X, B G R X, X B G R, A B G R, A R G B, X R G B.
    case rgbx, bgrx, xbgr, abgr, argb, xrgb
    /// Raw Bayer, named by the colors of the top-left 2x2 block row by row,
    /// 8 bits a sample or 10, 12, 16 in the low bits of little-endian 16-bit words.
    case bggr8, gbrg8, grbg8, rggb8
    case bggr10, gbrg10, grbg10, rggb10
    case bggr12, gbrg12, grbg12, rggb12
    case bggr16, gbrg16, grbg16, rggb16
    /// Raw Bayer MIPI CSI-2 packed, as CSI receivers deliver it: four 10-bit
    /// samples in 5 bytes (their high 8 bits, then a byte of the four low
    /// pairs) or two 12-bit samples in 3 bytes (high 8 bits each, then the low
    /// nibbles). Unpacked into 16-bit words before the ISP.
    case bggr10p, gbrg10p, grbg10p, rggb10p
    case bggr12p, gbrg12p, grbg12p, rggb12p

    public var name: String { rawValue }

    /// The layout the frame is repacked into.
    public var native: PixelFormat {
        switch self {
        case .uyvy, .yvyu, .vyuy, .nv16, .nv61, .yuv422p: .yuyv
        case .nv21, .yu12, .yv12: .nv12
        case .bgr24, .rgb565: .rgb24
        case .y10, .y12, .y16: .grey
        case .rgbx, .bgrx, .xbgr, .abgr, .argb, .xrgb: .rgba
        default: .rgb24
        }
    }

    /// The layout the GPU's conversion reads this format in as the camera gave
    /// it, with no repack: packed 4:2:2 in any byte order, semi-planar and
    /// planar 4:2:0 and 4:2:2 in either chroma order, RGB in any byte order,
    /// RGB565, 10- to 16-bit gray, and raw Bayer of 8 bits or in 16-bit
    /// words; nil for MIPI-packed Bayer, which is unpacked first.
    public var readOnGPU: PixelFormat? {
        switch self {
        case .uyvy: .uyvy
        case .yvyu: .yvyu
        case .vyuy: .vyuy
        case .nv21: .nv21
        case .nv16: .nv16
        case .nv61: .nv61
        case .yu12: .yu12
        case .yv12: .yv12
        case .yuv422p: .yuv422p
        case .bgr24: .bgr24
        case .rgbx: .rgbx
        case .bgrx: .bgrx
        case .xbgr: .xbgr
        case .abgr: .abgr
        case .argb: .argb
        case .xrgb: .xrgb
        case .rgb565: .rgb565
        case .y10: .y10
        case .y12: .y12
        case .y16: .y16
        default: isMIPIPacked ? nil : mosaic.map(RawBayer.pixelFormat(of:))
        }
    }

    /// True for raw Bayer packed MIPI CSI-2 style (`bggr10p`...).
    public var isMIPIPacked: Bool { mosaic != nil && rawValue.hasSuffix("p") }

    /// The unpacked format of the same pattern and depth (`bggr10` for
    /// `bggr10p`): what a MIPI-packed frame is once unpacked; itself for the others.
    public var unpacked: RepackedFormat { isMIPIPacked ? Self(rawValue: String(rawValue.dropLast()))! : self }

    /// Why a frame of this size cannot be read, nil when it can: Bayer frames
    /// have whole 2x2 blocks, and 10-bit MIPI-packed rows whole groups of four.
    public func sizeProblem(width: Int, height: Int) -> String? {
        guard let mosaic else { return nil }
        if let problem = BayerMosaic.sizeProblem(width: width, height: height) { return problem }
        if isMIPIPacked, mosaic.bits == 10, width % 4 != 0 {
            return "a 10-bit MIPI-packed Bayer frame has a width that is a multiple of 4 (not \(width))"
        }
        return nil
    }

    /// The Bayer layout, nil for the other formats.
    public var mosaic: BayerMosaic? {
        let name = rawValue
        guard let order = ["bggr": (1, 1), "gbrg": (0, 1), "grbg": (1, 0), "rggb": (0, 0)][String(name.prefix(4))],
              let bits = Int(name.dropFirst(4).filter { $0 != "p" }) else { return nil }
        return BayerMosaic(redColumn: order.0, redRow: order.1, bits: bits)
    }

    /// The V4L2 four-character code, as `v4l2-ctl --list-formats` prints it.
    public var fourcc: String {
        switch self {
        case .uyvy: "UYVY"
        case .yvyu: "YVYU"
        case .vyuy: "VYUY"
        case .nv21: "NV21"
        case .nv16: "NV16"
        case .nv61: "NV61"
        case .yu12: "YU12"
        case .yv12: "YV12"
        case .yuv422p: "422P"
        case .bgr24: "BGR3"
        case .rgb565: "RGBP"
        case .y10: "Y10 "
        case .y12: "Y12 "
        case .y16: "Y16 "
        case .rgbx: "XB24"
        case .bgrx: "XR24"
        case .xbgr: "RX24"
        case .abgr: "RA24"
        case .argb: "BA24"
        case .xrgb: "BX24"
        case .bggr8: "BA81"
        case .gbrg8: "GBRG"
        case .grbg8: "GRBG"
        case .rggb8: "RGGB"
        case .bggr10: "BG10"
        case .gbrg10: "GB10"
        case .grbg10: "BA10"
        case .rggb10: "RG10"
        case .bggr12: "BG12"
        case .gbrg12: "GB12"
        case .grbg12: "BA12"
        case .rggb12: "RG12"
        case .bggr16: "BYR2"
        case .gbrg16: "GB16"
        case .grbg16: "GR16"
        case .rggb16: "RG16"
        case .bggr10p: "pBAA"
        case .gbrg10p: "pGAA"
        case .grbg10p: "pgAA"
        case .rggb10p: "pRAA"
        case .bggr12p: "pBCC"
        case .gbrg12p: "pGCC"
        case .grbg12p: "pgCC"
        case .rggb12p: "pRCC"
        }
    }

    /// Parses a name as a user types it: Kamera's names, the V4L2 code
    /// (`UYVY`, `YU12`, `Y16`) and ffmpeg's pixel format names (`uyvy422`, `yuv420p`).
    public init?(name: String) {
        // Exactly as V4L2 spells it first: pGAA and pgAA differ only in case.
        if let f = Self.allCases.first(where: { $0.fourcc.filter { $0 != " " } == name.filter { $0 != " " } }) {
            self = f
            return
        }
        let text = name.filter { $0 != " " }.lowercased()
        if let f = Self(rawValue: text) ?? Self.allCases.first(where: { $0.fourcc.filter { $0 != " " }.lowercased() == text }) {
            self = f
            return
        }
        switch text {
        case "uyvy422": self = .uyvy
        case "yvyu422": self = .yvyu
        case "i420", "yuv420p": self = .yu12
        case "bgr", "bgr3": self = .bgr24
        case "rgb565le", "rgbp": self = .rgb565
        case "gray10le", "grey10", "gray10": self = .y10
        case "gray12le", "grey12", "gray12": self = .y12
        case "gray16le", "grey16", "gray16": self = .y16
        case "rgb0": self = .rgbx
        case "bgr0": self = .bgrx
        case "0bgr": self = .xbgr
        case "0rgb": self = .xrgb
        case _ where text.hasPrefix("bayer_"):
            // ffmpeg's names: bayer_rggb8, bayer_bggr16le.
            let rest = text.dropFirst(6)
            guard let f = Self(rawValue: String(rest.hasSuffix("le") ? rest.dropLast(2) : rest)), f.mosaic != nil else { return nil }
            self = f
        default: return nil
        }
    }

    /// The format with V4L2 code `code`, nil when Kamera does not repack it.
    /// `BGR4`, V4L2's older code for B G R and a byte it leaves undefined, is
    /// read as `bgrx`: drivers (vivid among them) write 0 there, not an alpha.
    public init?(v4l2Code code: String) {
        guard let f = Self.allCases.first(where: { $0.fourcc == code }) ?? (code == "BGR4" ? .bgrx : nil) else { return nil }
        self = f
    }

    public static var validNames: String { allCases.map(\.rawValue).joined(separator: ", ") }

    /// The tight layout of each plane of a frame of the given size.
    public func planeLayouts(width: Int, height: Int) -> [(bytesPerRow: Int, rows: Int)] {
        let pairs = (width + 1) / 2
        switch self {
        case .uyvy, .yvyu, .vyuy: return [(pairs * 4, height)]
        case .nv21: return [(width, height), (pairs * 2, (height + 1) / 2)]
        case .nv16, .nv61: return [(width, height), (pairs * 2, height)]
        case .yu12, .yv12: return [(width, height), (pairs, (height + 1) / 2), (pairs, (height + 1) / 2)]
        case .yuv422p: return [(width, height), (pairs, height), (pairs, height)]
        case .bgr24: return [(width * 3, height)]
        case .rgb565, .y10, .y12, .y16: return [(width * 2, height)]
        case .rgbx, .bgrx, .xbgr, .abgr, .argb, .xrgb: return [(width * 4, height)]
        default:
            if isMIPIPacked, let bits = mosaic?.bits { return [((width * bits + 7) / 8, height)] }
            return [(width * (mosaic?.bytesPerSample ?? 1), height)]
        }
    }

    /// Bytes in one tightly packed frame.
    public func frameSize(width: Int, height: Int) -> Int {
        planeLayouts(width: width, height: height).reduce(0) { $0 + $1.bytesPerRow * $1.rows }
    }

    /// Each plane's stride and rows in one buffer, one plane after the other,
    /// the first plane's rows `bytesPerRow` apart (nil: tight) and a chroma
    /// plane's stride scaled from it as its width is (half for YU12's U and
    /// V, the same for NV21's interleaved pairs), as V4L2's single-planar API
    /// lays a frame out.
    public func planeStrides(width: Int, height: Int, bytesPerRow: Int? = nil) -> [(stride: Int, rows: Int)] {
        let layouts = planeLayouts(width: width, height: height)
        let first = bytesPerRow ?? layouts[0].bytesPerRow
        // The ratio at an even width: at an odd one a chroma row rounds up (63
        // pixels: 64 bytes of NV21 pairs), which is not how a padded stride scales.
        let even = planeLayouts(width: (width + 1) / 2 * 2, height: 2)
        return zip(layouts, even).map { layout, ratio in
            (max(layout.bytesPerRow, first * ratio.bytesPerRow / even[0].bytesPerRow), layout.rows)
        }
    }

    /// The planes of a frame of this format in `memory`, laid out as
    /// `planeStrides` says; `memory` holds at least the bytes they add up to.
    public func planes(in memory: UnsafeRawBufferPointer, width: Int, height: Int, bytesPerRow: Int? = nil) -> [Plane] {
        var offset = 0
        return planeStrides(width: width, height: height, bytesPerRow: bytesPerRow).map { plane in
            defer { offset += plane.stride * plane.rows }
            return Plane(bytes: UnsafeRawBufferPointer(rebasing: memory[offset..<offset + plane.stride * plane.rows]), bytesPerRow: plane.stride)
        }
    }

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
