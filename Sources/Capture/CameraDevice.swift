import CV4L2
import Glibc
import Pixels

/// What a V4L2 capture device is: the counterpart of `AVCaptureDevice`.
public struct CameraInfo: Equatable, Sendable, Codable {
    public var path: String
    public var card: String
    public var driver: String
    public var busInfo: String
    /// Capability names, e.g. "video-capture", "streaming".
    public var capabilities: [String]
    /// True when another process is streaming from it.
    public var busy: Bool
}

/// One frame size a camera offers for a format, with its frame rates.
public struct CameraSize: Equatable, Sendable, Codable {
    public var width: Int
    public var height: Int
    /// Frames per second, highest first.
    public var rates: [Double]

    public init(width: Int, height: Int, rates: [Double]) {
        self.width = width
        self.height = height
        self.rates = rates
    }
}

/// One pixel format a camera offers.
public struct CameraFormat: Equatable, Sendable, Codable {
    public var fourcc: String
    public var description: String
    public var sizes: [CameraSize]

    public init(fourcc: String, description: String, sizes: [CameraSize]) {
        self.fourcc = fourcc
        self.description = description
        self.sizes = sizes
    }

    /// True when Kamera does not read this format itself but libv4lconvert converts it (to RGB24).
    public var viaLibV4L = false

    /// The format Kamera repacks these frames from, nil when it reads them as they are.
    public var repacked: RepackedFormat? { RepackedFormat(v4l2Code: fourcc) }

    /// The V4L2 memory-to-memory decoder this machine has for this compressed format, nil when it has none.
    public var hardwareDecoder: String?

    /// The compressed format, decoded on the CPU or by `hardwareDecoder`; nil for the others.
    public var compressed: CompressedFormat? { CompressedFormat(v4l2Code: fourcc) }
    public var isCompressed: Bool { compressed != nil }
}

/// An open V4L2 device node.
public final class CameraDevice {
    public let path: String
    private(set) var fd: Int32

    public init(path: String) throws {
        let fd = try DeviceNode.open(path, missing: "`kamera devices` lists the cameras", notANode: "give a camera such as /dev/video0")
        self.fd = fd
        self.path = path
        var cap = v4l2_capability()
        let e = V4L2.ioctl(fd, KAMERA_VIDIOC_QUERYCAP, &cap)
        guard e == 0 else {
            close()
            throw CaptureError("\(path): not a V4L2 device (VIDIOC_QUERYCAP: \(V4L2.message(e))); `kamera devices` lists the cameras")
        }
    }

    deinit { close() }

    /// Closes the node; the driver then frees buffers not mapped anywhere and
    /// another program may stream from the camera.
    public func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    /// Every /dev/videoN, in number order.
    public static func nodes() -> [String] {
        guard let dir = opendir("/dev") else { return [] }
        defer { closedir(dir) }
        var names: [(Int, String)] = []
        while let entry = readdir(dir) {
            let name = V4L2.string(entry.pointee.d_name)
            if name.hasPrefix("video"), let n = Int(name.dropFirst(5)) { names.append((n, "/dev/" + name)) }
        }
        return names.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// Every device that can capture video.
    public static func list() -> [CameraInfo] {
        nodes().compactMap { path in
            guard let device = try? CameraDevice(path: path), let info = try? device.info(),
                  info.capabilities.contains("video-capture") else { return nil }
            return info
        }
    }

    /// The device's names and capabilities. `probingBusy`: whether to find out
    /// if another process holds its buffers, by an empty buffer request; never
    /// on a device this process streams from (v4l2loopback frees the mappings
    /// of every opener on any request, and the next frame fails with EINVAL).
    public func info(probingBusy: Bool = true) throws -> CameraInfo {
        var cap = v4l2_capability()
        let e = V4L2.ioctl(fd, KAMERA_VIDIOC_QUERYCAP, &cap)
        guard e == 0 else { throw CaptureError("\(path): not a V4L2 device (\(V4L2.message(e)))") }
        let caps = (cap.capabilities & UInt32(V4L2_CAP_DEVICE_CAPS)) != 0 ? cap.device_caps : cap.capabilities
        let names: [(UInt32, String)] = [
            (UInt32(V4L2_CAP_VIDEO_CAPTURE), "video-capture"), (UInt32(V4L2_CAP_VIDEO_CAPTURE_MPLANE), "video-capture-mplane"),
            (UInt32(V4L2_CAP_VIDEO_OUTPUT), "video-output"), (UInt32(V4L2_CAP_META_CAPTURE), "metadata-capture"),
            (UInt32(V4L2_CAP_READWRITE), "read-write"), (UInt32(V4L2_CAP_STREAMING), "streaming"),
        ]
        return CameraInfo(path: path, card: V4L2.string(cap.card), driver: V4L2.string(cap.driver),
                          busInfo: V4L2.string(cap.bus_info), capabilities: names.filter { caps & $0.0 != 0 }.map(\.1),
                          busy: probingBusy && isBusy())
    }

    /// Another process holds the buffer queue when even an empty request fails with EBUSY.
    func isBusy() -> Bool {
        var request = v4l2_requestbuffers()
        request.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        request.memory = V4L2_MEMORY_MMAP.rawValue
        request.count = 0
        return V4L2.ioctl(fd, KAMERA_VIDIOC_REQBUFS, &request) == EBUSY
    }

    /// Formats, sizes and rates, as `VIDIOC_ENUM_FMT`, `ENUM_FRAMESIZES` and `ENUM_FRAMEINTERVALS` give them.
    /// The formats the camera offers; with `libv4l`, those Kamera does not
    /// read itself are tried with libv4lconvert (`viaLibV4L`).
    public func formats(libv4l tryLibV4L: Bool = false) -> [CameraFormat] {
        var formats: [CameraFormat] = []
        var desc = v4l2_fmtdesc()
        desc.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        var libv4l: LibV4LConverter?
        while V4L2.ioctl(fd, KAMERA_VIDIOC_ENUM_FMT, &desc) == 0 {
            var format = CameraFormat(fourcc: FourCC.text(desc.pixelformat), description: V4L2.string(desc.description),
                                      sizes: sizes(desc.pixelformat))
            if tryLibV4L, format.pixelFormat == nil, let size = format.sizes.first {
                libv4l = libv4l ?? LibV4LConverter(fd: fd)
                format.viaLibV4L = libv4l?.converts(desc.pixelformat, width: size.width, height: size.height, device: fd) ?? false
            }
            if let codec = format.compressed {
                format.hardwareDecoder = V4L2DecoderDevice.find(decoding: codec)?.description
            }
            desc.index += 1
            formats.append(format)
        }
        return formats
    }

    private func sizes(_ code: UInt32) -> [CameraSize] {
        var sizes: [CameraSize] = []
        var size = v4l2_frmsizeenum()
        size.pixel_format = code
        while V4L2.ioctl(fd, KAMERA_VIDIOC_ENUM_FRAMESIZES, &size) == 0 {
            if size.type == V4L2_FRMSIZE_TYPE_DISCRETE.rawValue {
                let w = Int(size.discrete.width), h = Int(size.discrete.height)
                sizes.append(CameraSize(width: w, height: h, rates: rates(code, w, h)))
            } else {
                // Stepwise or continuous: report the two ends.
                let s = size.stepwise
                for (w, h) in [(Int(s.min_width), Int(s.min_height)), (Int(s.max_width), Int(s.max_height))] {
                    sizes.append(CameraSize(width: w, height: h, rates: rates(code, w, h)))
                }
                break
            }
            size.index += 1
        }
        return sizes
    }

    private func rates(_ code: UInt32, _ width: Int, _ height: Int) -> [Double] {
        var rates: [Double] = []
        var interval = v4l2_frmivalenum()
        interval.pixel_format = code
        interval.width = UInt32(width)
        interval.height = UInt32(height)
        while V4L2.ioctl(fd, KAMERA_VIDIOC_ENUM_FRAMEINTERVALS, &interval) == 0 {
            if interval.type == V4L2_FRMIVAL_TYPE_DISCRETE.rawValue {
                let f = interval.discrete
                if f.numerator > 0 { rates.append(Double(f.denominator) / Double(f.numerator)) }
            } else {
                let s = interval.stepwise
                if s.min.numerator > 0 { rates.append(Double(s.min.denominator) / Double(s.min.numerator)) }
                if s.max.numerator > 0 { rates.append(Double(s.max.denominator) / Double(s.max.numerator)) }
                break
            }
            interval.index += 1
        }
        return rates.sorted(by: >)
    }
}

extension CameraDevice {
    /// The largest frame size (by area) of the formats Kamera reads; what `kamera snap` takes.
    public func largestSize() -> (width: Int, height: Int)? {
        let sizes = formats().filter { $0.pixelFormat != nil }.flatMap(\.sizes)
        return sizes.max { $0.width * $0.height < $1.width * $1.height }.map { ($0.width, $0.height) }
    }
}
