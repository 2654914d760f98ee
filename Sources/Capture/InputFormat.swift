import Pixels

/// A format as `--format` names it, by how Kamera gets its frames into one
/// of its own layouts. Files and the test pattern take the first two;
/// cameras take all four.
public enum InputFormat: Equatable, Sendable {
    /// Read as it is (`yuyv`, `nv12`, `rgba`, ...).
    case native(PixelFormat)
    /// Repacked on the CPU (`uyvy`, `nv21`, raw Bayer, ...).
    case repacked(RepackedFormat)
    /// Decoded on the CPU: a camera's Motion-JPEG, H.264 or HEVC.
    case compressed(CompressedFormat)
    /// A camera format Kamera does not read itself, by its V4L2 code (`HSV3`,
    /// `Y16 -BE`), converted to RGB24 by libv4l.
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
            self = .libV4L(name)
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

extension CameraFormat {
    /// True when this is the format `wanted` names.
    public func isFormat(_ wanted: InputFormat) -> Bool {
        switch wanted {
        case .native(let f): !isConverted && pixelFormat == f
        case .repacked(let f): repacked == f
        case .compressed(let c): compressed == c
        case .libV4L(let code): viaLibV4L && fourcc.filter { $0 != " " } == code.filter { $0 != " " }
        }
    }

    /// Frames reach Kamera in memory of its own (decoded, repacked or converted), not in the driver's buffers.
    public var isConverted: Bool { isCompressed || repacked != nil || viaLibV4L }
}
