import Pixels

/// A format as `--format` names it, by how Kamera gets its frames into one
/// of its own layouts. Files and the test pattern take the first two;
/// cameras take all four.
public enum InputFormat: Equatable, Sendable {
    /// Read as it is (`yuyv`, `nv12`, `rgba`, ...).
    case native(PixelFormat)
    /// Repacked on the CPU (`uyvy`, `nv21`, raw Bayer, ...).
    case repacked(RepackedFormat)
    /// Decoded on the CPU or by a V4L2 decoder: a camera's Motion-JPEG, H.264, HEVC or FWHT.
    case compressed(CompressedFormat)
    /// A camera format Kamera does not read itself, by its V4L2 code without
    /// spaces (`HSV3`, `Y16-BE`), converted to RGB24 by libv4l.
    case libV4L(String)

    /// Parses a name as a user types it. With `camera`, compressed formats
    /// and any other V4L2 code (four characters, or a big-endian one such as
    /// `Y16-BE`) are taken too.
    public init?(name: String, camera: Bool) {
        if let f = SourceFormat(name: name) {
            self.init(f)
        } else if camera, let c = CompressedFormat(name: name) {
            self = .compressed(c)
        } else if camera, name.count == 4 || ((6...7).contains(name.count) && name.hasSuffix("-BE")) {
            self = .libV4L(name.filter { $0 != " " })
        } else {
            return nil
        }
    }

    public init(_ format: SourceFormat) {
        switch format {
        case .native(let f): self = .native(f)
        case .repacked(let f): self = .repacked(f)
        }
    }

    /// The name a user gives for it.
    public var name: String {
        switch self {
        case .native(let f): f.name
        case .repacked(let f): f.name
        case .compressed(let c): c.rawValue
        case .libV4L(let code): code
        }
    }

    /// The layout of raw frames in a file, nil for the camera-only formats.
    public var raw: SourceFormat? {
        switch self {
        case .native(let f): .native(f)
        case .repacked(let f): .repacked(f)
        case .compressed, .libV4L: nil
        }
    }

    /// The mosaic of a raw Bayer format, nil for the others.
    public var mosaic: BayerMosaic? {
        if case .repacked(let f) = self { f.mosaic } else { nil }
    }

    public var isLibV4L: Bool {
        if case .libV4L = self { true } else { false }
    }
}

extension InputFormat {
    /// The layout frames are handed on in.
    public var decoded: PixelFormat {
        switch self {
        case .native(let f): f
        case .repacked(let f): f.native
        case .compressed(let c): c.decoded
        case .libV4L: .rgb24
        }
    }

    /// What choosing a camera's format weighs: bytes a pixel for what is read
    /// as it is, half a byte more for a repack (a pass over each frame on the
    /// CPU), then decoding (MJPEG before H.264 and HEVC: a JPEG decodes on its
    /// own, a stream waits for its key frame), then libv4l's conversion, the fallback.
    public var cost: Double {
        switch self {
        case .native(let f): f.bytesPerPixel
        case .repacked(let f): f.native.bytesPerPixel + 0.5
        case .compressed(let c): c == .mjpeg ? 100 : 110
        case .libV4L: 120
        }
    }

    /// How Kamera reads it, for listings: "read as yuyv", "decoded to nv12 on the CPU"...
    public var howRead: String {
        switch self {
        case .native(let f): "read as \(f.name)"
        case .repacked(let f) where f.mosaic != nil: "demosaiced on the GPU, or to \(decoded.name) on the CPU with a software renderer"
        case .repacked(let f) where f.readOnGPU != nil: "converted on the GPU as it is, or repacked to \(decoded.name) on the CPU with a software renderer"
        case .repacked: "repacked to \(decoded.name) on the CPU"
        case .compressed: "decoded to \(decoded.name) on the CPU"
        case .libV4L: "converted to \(decoded.name) by libv4l on the CPU"
        }
    }
}

extension CameraFormat {
    /// How Kamera reads this format, nil when it cannot.
    public var reading: InputFormat? {
        if let c = compressed { return c.decodesOnCPU || hardwareDecoder != nil ? .compressed(c) : nil }
        if let r = repacked { return .repacked(r) }
        if let f = PixelFormat(v4l2Code: fourcc) { return .native(f) }
        return viaLibV4L ? .libV4L(fourcc.filter { $0 != " " }) : nil
    }

    /// The layout Kamera hands frames on in, nil when it cannot read the format.
    public var pixelFormat: PixelFormat? { reading?.decoded }

    /// How Kamera reads this format, for listings: `reading`'s, or the hardware decoder that decodes it.
    public var howRead: String {
        guard let reading else { return compressed == nil ? "not read by Kamera" : "not read by Kamera: no V4L2 decoder of it here" }
        if let hardwareDecoder {
            return "decoded to \(reading.decoded.name) by \(hardwareDecoder)\(compressed?.decodesOnCPU == true ? ", or on the CPU" : "")"
        }
        return reading.howRead
    }
}
