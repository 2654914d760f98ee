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

    /// One format's row: its V4L2 code, the layout the CPU repacks it into,
    /// the layout the GPU reads it in as the camera gave it (nil: raw Bayer,
    /// whose layout follows from its mosaic), and the other names users type
    /// for it (ffmpeg's among them) besides the case name and the code.
    private var row: (fourcc: String, native: PixelFormat, gpu: PixelFormat?, aliases: [String]) {
        switch self {
        case .uyvy: ("UYVY", .yuyv, .uyvy, ["uyvy422"])
        case .yvyu: ("YVYU", .yuyv, .yvyu, ["yvyu422"])
        case .vyuy: ("VYUY", .yuyv, .vyuy, [])
        case .nv21: ("NV21", .nv12, .nv21, [])
        case .nv16: ("NV16", .yuyv, .nv16, [])
        case .nv61: ("NV61", .yuyv, .nv61, [])
        case .yu12: ("YU12", .nv12, .yu12, ["i420", "yuv420p"])
        case .yv12: ("YV12", .nv12, .yv12, [])
        case .yuv422p: ("422P", .yuyv, .yuv422p, [])
        case .bgr24: ("BGR3", .rgb24, .bgr24, ["bgr"])
        case .rgb565: ("RGBP", .rgb24, .rgb565, ["rgb565le"])
        case .y10: ("Y10 ", .grey, .y10, ["gray10le", "grey10", "gray10"])
        case .y12: ("Y12 ", .grey, .y12, ["gray12le", "grey12", "gray12"])
        case .y16: ("Y16 ", .grey, .y16, ["gray16le", "grey16", "gray16"])
        case .rgbx: ("XB24", .rgba, .rgbx, ["rgb0"])
        case .bgrx: ("XR24", .rgba, .bgrx, ["bgr0"])
        case .xbgr: ("RX24", .rgba, .xbgr, ["0bgr"])
        case .abgr: ("RA24", .rgba, .abgr, [])
        case .argb: ("BA24", .rgba, .argb, [])
        case .xrgb: ("BX24", .rgba, .xrgb, ["0rgb"])
        case .bggr8: ("BA81", .rgb24, nil, [])
        case .gbrg8: ("GBRG", .rgb24, nil, [])
        case .grbg8: ("GRBG", .rgb24, nil, [])
        case .rggb8: ("RGGB", .rgb24, nil, [])
        case .bggr10: ("BG10", .rgb24, nil, [])
        case .gbrg10: ("GB10", .rgb24, nil, [])
        case .grbg10: ("BA10", .rgb24, nil, [])
        case .rggb10: ("RG10", .rgb24, nil, [])
        case .bggr12: ("BG12", .rgb24, nil, [])
        case .gbrg12: ("GB12", .rgb24, nil, [])
        case .grbg12: ("BA12", .rgb24, nil, [])
        case .rggb12: ("RG12", .rgb24, nil, [])
        case .bggr16: ("BYR2", .rgb24, nil, [])
        case .gbrg16: ("GB16", .rgb24, nil, [])
        case .grbg16: ("GR16", .rgb24, nil, [])
        case .rggb16: ("RG16", .rgb24, nil, [])
        case .bggr10p: ("pBAA", .rgb24, nil, [])
        case .gbrg10p: ("pGAA", .rgb24, nil, [])
        case .grbg10p: ("pgAA", .rgb24, nil, [])
        case .rggb10p: ("pRAA", .rgb24, nil, [])
        case .bggr12p: ("pBCC", .rgb24, nil, [])
        case .gbrg12p: ("pGCC", .rgb24, nil, [])
        case .grbg12p: ("pgCC", .rgb24, nil, [])
        case .rggb12p: ("pRCC", .rgb24, nil, [])
        }
    }

    /// The V4L2 four-character code, as `v4l2-ctl --list-formats` prints it.
    public var fourcc: String { row.fourcc }

    /// The layout the frame is repacked into (raw Bayer: demosaiced into).
    public var native: PixelFormat { row.native }

    /// The layout the GPU's conversion reads this format in as the camera gave
    /// it, with no repack: packed 4:2:2 in any byte order, semi-planar and
    /// planar 4:2:0 and 4:2:2 in either chroma order, RGB in any byte order,
    /// RGB565, 10- to 16-bit gray, and raw Bayer (8 bits, in 16-bit words, MIPI-packed).
    public var readOnGPU: PixelFormat? {
        row.gpu ?? RawBayer.pixelFormat(of: self)
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

    /// Parses a name as a user types it: Kamera's names, the V4L2 code
    /// (`UYVY`, `YU12`, `Y16`) and ffmpeg's pixel format names (`uyvy422`, `yuv420p`).
    public init?(name: String) {
        // Exactly as V4L2 spells it first: pGAA and pgAA differ only in case.
        if let f = Self.allCases.first(where: { $0.fourcc.filter { $0 != " " } == name.filter { $0 != " " } }) {
            self = f
            return
        }
        let text = name.filter { $0 != " " }.lowercased()
        if let f = Self(rawValue: text)
            ?? Self.allCases.first(where: { $0.fourcc.filter { $0 != " " }.lowercased() == text || $0.row.aliases.contains(text) }) {
            self = f
            return
        }
        // ffmpeg's Bayer names: bayer_rggb8, bayer_bggr16le.
        guard text.hasPrefix("bayer_") else { return nil }
        let rest = text.dropFirst(6)
        guard let f = Self(rawValue: String(rest.hasSuffix("le") ? rest.dropLast(2) : rest)), f.mosaic != nil else { return nil }
        self = f
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
            if isMIPIPacked, let bits = mosaic?.bits { return [(PixelFormat.mipiRowBytes(width: width, bits: bits), height)] }
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
}
