import CV4L2
import Glibc
import Pixels

/// The fallback for camera formats Kamera does not read itself: libv4lconvert
/// (v4l-utils' conversion library, the one libv4l2 applications go through)
/// turns each frame into RGB24 on the CPU. Kamera keeps its own ioctls for
/// capture; only the conversion is libv4l's.
final class LibV4LConverter: FrameDecoder {
    private let data: OpaquePointer
    /// The layout the driver was set to, for `decodeFrame`.
    var source = v4l2_format()

    /// A converter for the camera open on `fd`; nil when libv4lconvert cannot start.
    init?(fd: Int32) {
        guard let data = v4lconvert_create(fd) else { return nil }
        self.data = data
    }

    deinit { v4lconvert_destroy(data) }

    /// True when libv4lconvert converts `code` frames of this size: tried on
    /// a blank frame in the layout the camera says it would use (TRY_FMT).
    func converts(_ code: UInt32, width: Int, height: Int, device fd: Int32) -> Bool {
        var source = v4l2_format()
        source.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        source.fmt.pix.width = UInt32(width)
        source.fmt.pix.height = UInt32(height)
        source.fmt.pix.pixelformat = code
        source.fmt.pix.field = V4L2_FIELD_NONE.rawValue
        guard V4L2.ioctl(fd, KAMERA_VIDIOC_TRY_FMT, &source) == 0, source.fmt.pix.pixelformat == code,
              source.fmt.pix.sizeimage > 0, source.fmt.pix.sizeimage <= 1 << 28 else { return false }
        let blank = UnsafeMutableRawBufferPointer.allocate(byteCount: Int(source.fmt.pix.sizeimage), alignment: 64)
        defer { blank.deallocate() }
        blank.initializeMemory(as: UInt8.self, repeating: 0)
        let target = FrameBuffer(format: .rgb24, width: Int(source.fmt.pix.width), height: Int(source.fmt.pix.height))
        return (try? convert(UnsafeRawBufferPointer(blank), from: source, into: target)) != nil
    }

    /// Converts one frame in the driver's layout (`source`) into `target`, an RGB24 buffer of its size.
    func decodeFrame(_ data: UnsafeRawBufferPointer, into target: FrameBuffer) throws -> Bool {
        try convert(data, from: source, into: target)
        return true
    }

    /// Converts one frame in `source`'s layout into `target`, an RGB24 buffer of its size.
    func convert(_ bytes: UnsafeRawBufferPointer, from source: v4l2_format, into target: FrameBuffer) throws {
        var from = source
        var to = source
        to.fmt.pix.pixelformat = FourCC.code("RGB3")
        to.fmt.pix.bytesperline = UInt32(target.planes[0].bytesPerRow)
        to.fmt.pix.sizeimage = UInt32(target.planes[0].bytes.count)
        let out = target.mutablePlane(0)
        let written = v4lconvert_convert(data, &from, &to, UnsafeMutablePointer(mutating: bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)),
                                         Int32(bytes.count), out.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(out.count))
        guard written >= 0 else {
            throw CaptureError("libv4l could not convert a \(FourCC.text(source.fmt.pix.pixelformat)) frame: \(String(cString: v4lconvert_get_error_message(data)))")
        }
    }
}
