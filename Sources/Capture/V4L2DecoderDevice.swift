import CV4L2
import Foundation
import Glibc
import Lifecycle
import Pixels

/// A V4L2 memory-to-memory decoder on this machine (a SoC's video decoder,
/// or the kernel's virtual codec vicodec): a /dev/videoN that takes a
/// compressed format on its OUTPUT queue and gives NV12 pictures on its CAPTURE queue.
public struct V4L2DecoderDevice: Equatable, Sendable, CustomStringConvertible {
    public let path: String
    public let card: String
    /// Uses the multi-planar API (`V4L2_CAP_VIDEO_M2M_MPLANE`).
    public let multiPlanar: Bool

    public var description: String { "\(path) (\(card))" }

    /// The V4L2 codes of the NV12 pictures Kamera takes: one plane, or Y and CbCr in two (multi-planar only).
    static let pictureCodes = ["NV12", "NM12"]

    /// The device at `path` when it is a memory-to-memory decoder of `format`; nil otherwise.
    public static func at(_ path: String, decoding format: CompressedFormat) -> V4L2DecoderDevice? {
        let fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var cap = v4l2_capability()
        guard V4L2.ioctl(fd, KAMERA_VIDIOC_QUERYCAP, &cap) == 0 else { return nil }
        let caps = cap.capabilities & UInt32(V4L2_CAP_DEVICE_CAPS) != 0 ? cap.device_caps : cap.capabilities
        let multiPlanar = caps & UInt32(V4L2_CAP_VIDEO_M2M_MPLANE) != 0
        guard multiPlanar || caps & UInt32(V4L2_CAP_VIDEO_M2M) != 0, caps & UInt32(V4L2_CAP_STREAMING) != 0 else { return nil }
        let output = multiPlanar ? V4L2_BUF_TYPE_VIDEO_OUTPUT_MPLANE : V4L2_BUF_TYPE_VIDEO_OUTPUT
        let capture = multiPlanar ? V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE : V4L2_BUF_TYPE_VIDEO_CAPTURE
        guard codes(fd, output.rawValue).contains(where: format.v4l2Codes.contains) else { return nil }
        // Before a stream's first header a decoder may list no picture formats yet; those are checked once it has one.
        let pictures = codes(fd, capture.rawValue)
        guard pictures.isEmpty || pictures.contains(where: pictureCodes.contains) else { return nil }
        return V4L2DecoderDevice(path: path, card: V4L2.string(cap.card), multiPlanar: multiPlanar)
    }

    /// The first memory-to-memory decoder of `format`, in device number order; nil when the machine has none.
    /// Looked for once a process: each look opens every /dev/videoN, which wakes a sleeping USB camera.
    public static func find(decoding format: CompressedFormat) -> V4L2DecoderDevice? {
        guard !format.v4l2Codes.isEmpty else { return nil }
        return found.lock.withLock {
            if let known = found.devices[format] { return known }
            let device = CameraDevice.nodes().lazy.compactMap { at($0, decoding: format) }.first
            found.devices[format] = .some(device)
            return device
        }
    }

    private final class Found: @unchecked Sendable {
        let lock = Lock()
        var devices: [CompressedFormat: V4L2DecoderDevice?] = [:]
    }
    private static let found = Found()

    private static func codes(_ fd: Int32, _ type: UInt32) -> [String] {
        var desc = v4l2_fmtdesc()
        desc.type = type
        var codes: [String] = []
        while codes.count < 256, V4L2.ioctl(fd, KAMERA_VIDIOC_ENUM_FMT, &desc) == 0 {
            codes.append(FourCC.text(desc.pixelformat))
            desc.index += 1
        }
        return codes
    }
}
