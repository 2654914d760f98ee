import CV4L2
import Pixels

/// What to ask a camera for.
public struct CameraRequest: Equatable, Sendable {
    public enum Rate: Equatable, Sendable {
        /// Whatever the driver is set to.
        case current
        /// A frame rate in frames per second.
        case fps(Double)
        /// The format and size with the highest rate the camera offers.
        case max
    }

    /// nil: the cheapest format the texture cache reads at that size.
    public var format: PixelFormat?
    /// Ask for Motion-JPEG (decoded to RGBA) instead of `format`.
    public var compressed = false
    /// With `compressed`: which compressed format; nil for any (MJPEG first).
    public var codec: CompressedFormat?
    /// A format Kamera does not read itself, by its V4L2 code, to take through libv4l (`HSV3`).
    public var otherFourcc: String?
    /// Ask for a format Kamera repacks (`UYVY`, `NV21`, ...) instead of `format`.
    public var repacked: RepackedFormat?
    /// How a raw Bayer camera's frames are processed.
    public var isp = ISPSettings()
    /// nil: the camera's current size.
    public var size: (width: Int, height: Int)?
    public var rate: Rate

    public init(format: PixelFormat? = nil, compressed: Bool = false, repacked: RepackedFormat? = nil, size: (width: Int, height: Int)? = nil,
                rate: Rate = .current) {
        self.format = format
        self.repacked = repacked
        self.compressed = compressed
        self.size = size
        self.rate = rate
    }

    public static func == (a: CameraRequest, b: CameraRequest) -> Bool {
        a.format == b.format && a.compressed == b.compressed && a.codec == b.codec && a.otherFourcc == b.otherFourcc && a.repacked == b.repacked && a.isp == b.isp && a.rate == b.rate && a.size?.width == b.size?.width && a.size?.height == b.size?.height
    }
}

/// Where a camera's buffers live.
public enum CameraMemory: Equatable, Sendable, CustomStringConvertible {
    /// The driver's buffers, mapped (`V4L2_MEMORY_MMAP`); frames are uploaded by copy.
    case mmap
    /// The driver's buffers, mapped and also exported as dma-bufs (`VIDIOC_EXPBUF`).
    case exported
    /// Buffers allocated on a DRM device (`/dev/dri/cardN`) and given to the
    /// driver (`V4L2_MEMORY_DMABUF`).
    case drm(String)

    public var description: String {
        switch self {
        case .mmap: "mmap"
        case .exported: "mmap + EXPBUF"
        case .drm(let node): "dma-buf from \(node)"
        }
    }
}
