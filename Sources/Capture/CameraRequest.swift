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

    /// nil: the cheapest format Kamera reads at that size; libv4l's
    /// conversions only when none of the others fits.
    public var format: InputFormat?
    /// How a raw Bayer camera's frames are processed.
    public var isp = ISPSettings()
    /// Which decoder a compressed format's frames go through.
    public var decoder = DecoderChoice.auto
    /// nil: the camera's current size.
    public var size: (width: Int, height: Int)?
    public var rate: Rate

    public init(format: InputFormat? = nil, size: (width: Int, height: Int)? = nil, rate: Rate = .current) {
        self.format = format
        self.size = size
        self.rate = rate
    }

    public static func == (a: CameraRequest, b: CameraRequest) -> Bool {
        a.format == b.format && a.isp == b.isp && a.decoder == b.decoder && a.rate == b.rate && a.size?.width == b.size?.width && a.size?.height == b.size?.height
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
