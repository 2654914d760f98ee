import CV4L2
import Glibc
import Messages
import Pixels

/// A V4L2 video output device, as v4l2loopback makes one: what is written
/// to it, a frame a write, other programs read as a camera.
public final class VideoOutputDevice {
    public let path: String
    private var fd: Int32
    /// The driver's name for it (`Kamera`, `Dummy video device`), once its format is set.
    public private(set) var card = ""
    /// The size of one frame in the format set, 0 before `setFormat`.
    public private(set) var frameSize = 0

    /// What makes a virtual camera, for messages.
    public static let howToMake = "load v4l2loopback: sudo modprobe v4l2loopback video_nr=10 exclusive_caps=1 card_label=Kamera (see the README on Secure Boot)"

    public init(path: String) throws {
        let fd = try DeviceNode.open(path, missing: "for a virtual camera, \(Self.howToMake)",
                                     notANode: "a virtual camera is a v4l2loopback device such as /dev/video10")
        self.fd = fd
        self.path = path
        // The output's format asked for first: v4l2loopback (0.12) announces its capabilities from its
        // state and the kernel then checks format calls against what it last announced, so a question
        // for capabilities now could shut out the output a writer that only wrote (ffmpeg's) left behind.
        var format = v4l2_format()
        format.type = V4L2_BUF_TYPE_VIDEO_OUTPUT.rawValue
        guard V4L2.ioctl(fd, KAMERA_VIDIOC_G_FMT, &format) == 0 else {
            var cap = v4l2_capability()
            let e = V4L2.ioctl(fd, KAMERA_VIDIOC_QUERYCAP, &cap)
            Glibc.close(fd)
            guard e == 0 else {
                throw CaptureError("\(path): not a V4L2 device (VIDIOC_QUERYCAP: \(V4L2.message(e))); for a virtual camera, \(Self.howToMake)")
            }
            let caps = (cap.capabilities & UInt32(V4L2_CAP_DEVICE_CAPS)) != 0 ? cap.device_caps : cap.capabilities
            let video = UInt32(V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_VIDEO_OUTPUT)
            if V4L2.string(cap.driver) == "v4l2 loopback" && caps & video == 0 {
                throw CaptureError("\(path) (\(V4L2.string(cap.card))): v4l2loopback offers it neither as a camera nor as an output: a writer that "
                                   + "did not start streaming (such as ffmpeg's v4l2 output) left it so; reload the module: sudo modprobe -r v4l2loopback, then \(Self.howToMake)")
            }
            throw CaptureError("\(path) (\(V4L2.string(cap.card))): not a video output but a camera; Kamera reads cameras with \(Setting.camera). "
                               + "For a virtual camera, \(Self.howToMake)")
        }
    }

    /// Opens `path` as a writer that streams and closes it again, which
    /// makes v4l2loopback (0.12) offer the device for output once more after
    /// a writer that only wrote (ffmpeg's) went away, provided nobody asked
    /// for its capabilities in between.
    public static func reclaim(_ path: String) {
        let fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return }
        defer { Glibc.close(fd) }
        var format = v4l2_format()
        format.type = V4L2_BUF_TYPE_VIDEO_OUTPUT.rawValue
        guard V4L2.ioctl(fd, KAMERA_VIDIOC_G_FMT, &format) == 0, V4L2.ioctl(fd, KAMERA_VIDIOC_S_FMT, &format) == 0 else { return }
        var type = Int32(V4L2_BUF_TYPE_VIDEO_OUTPUT.rawValue)
        _ = V4L2.ioctl(fd, KAMERA_VIDIOC_STREAMON, &type)
    }

    deinit { close() }

    public func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    /// Sets the frames to `width` x `height` in `format` (one of `RGBAToCameraFormat.formats`),
    /// tightly packed in `size` bytes, at `rate` frames a second; readers see that format.
    public func setFormat(_ format: PixelFormat, width: Int, height: Int, size: Int, rate: Double) throws {
        guard let code = RGBAToCameraFormat.fourcc(of: format) else {
            throw CaptureError("\(path): Kamera writes no V4L2 frames in \(format.name)")
        }
        var f = v4l2_format()
        f.type = V4L2_BUF_TYPE_VIDEO_OUTPUT.rawValue
        f.fmt.pix.width = UInt32(width)
        f.fmt.pix.height = UInt32(height)
        f.fmt.pix.pixelformat = FourCC.code(code)
        f.fmt.pix.field = V4L2_FIELD_NONE.rawValue
        // The first plane's row: planar layouts' luma, a byte a pixel.
        f.fmt.pix.bytesperline = UInt32(width * (format == .rgb24 ? 3 : format == .yuyv ? 2 : 1))
        f.fmt.pix.sizeimage = UInt32(size)
        f.fmt.pix.colorspace = (format == .rgb24 ? V4L2_COLORSPACE_SRGB : V4L2_COLORSPACE_SMPTE170M).rawValue
        let e = V4L2.ioctl(fd, KAMERA_VIDIOC_S_FMT, &f)
        guard e == 0 else {
            throw CaptureError("\(path): cannot take \(width)x\(height) \(code) (VIDIOC_S_FMT: \(V4L2.message(e)))"
                               + (e == EBUSY ? "; another program is writing to it" : ""))
        }
        guard f.fmt.pix.pixelformat == FourCC.code(code), Int(f.fmt.pix.width) == width, Int(f.fmt.pix.height) == height else {
            throw CaptureError("\(path): asked for \(width)x\(height) \(code), it took \(f.fmt.pix.width)x\(f.fmt.pix.height) \(FourCC.text(f.fmt.pix.pixelformat)); "
                               + "a reader may hold it at another format: close the readers and try again")
        }
        frameSize = size
        // Frames go by write(); STREAMON marks Kamera as the writer, so that v4l2loopback offers the
        // device for output again once Kamera closes it (without it, 0.12 stays a camera with no writer).
        var type = Int32(V4L2_BUF_TYPE_VIDEO_OUTPUT.rawValue)
        _ = V4L2.ioctl(fd, KAMERA_VIDIOC_STREAMON, &type)
        var cap = v4l2_capability()
        if V4L2.ioctl(fd, KAMERA_VIDIOC_QUERYCAP, &cap) == 0 { card = V4L2.string(cap.card) }
        var parm = v4l2_streamparm()
        parm.type = V4L2_BUF_TYPE_VIDEO_OUTPUT.rawValue
        let (numerator, denominator) = Self.timePerFrame(rate)
        parm.parm.output.timeperframe = v4l2_fract(numerator: numerator, denominator: denominator)
        // A driver that keeps its own rate still takes the frames.
        _ = V4L2.ioctl(fd, KAMERA_VIDIOC_S_PARM, &parm)
    }

    /// The interval between frames as V4L2's fraction of seconds: 1/30, 1001/30000.
    static func timePerFrame(_ rate: Double) -> (UInt32, UInt32) {
        for numerator: UInt32 in [1, 1001, 100] {
            let d = rate * Double(numerator)
            if abs(d - d.rounded()) < 1e-6 * Double(numerator), d.rounded() >= 1 { return (numerator, UInt32(d.rounded())) }
        }
        return (1000, UInt32(max(1, (rate * 1000).rounded())))
    }

    /// Writes one whole frame. False when the driver could not take it now
    /// (EAGAIN: a frame lost); throws when the device is gone or refuses it.
    public func write(_ frame: UnsafeRawBufferPointer) throws -> Bool {
        while true {
            let n = Glibc.write(fd, frame.baseAddress, frame.count)
            if n == frame.count { return true }
            if n >= 0 { throw CaptureError("\(path): took \(n) of a frame's \(frame.count) bytes") }
            switch errno {
            case EINTR: continue
            case EAGAIN: return false
            case let e: throw CaptureError("\(path): cannot write a frame: \(V4L2.message(e))" + (e == ENODEV ? " (the device went away)" : ""))
            }
        }
    }
}
