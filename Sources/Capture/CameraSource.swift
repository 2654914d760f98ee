import CV4L2
import DRM
import Foundation
import Glibc
import Lifecycle
import Messages
import Pixels

/// Frames from a V4L2 camera through streaming I/O: the counterpart of
/// `AVCaptureVideoDataOutput`. Its buffers are mapped, or placed where the
/// GPU imports them (dma-bufs, as a `CameraBufferPlacement` chooses), once,
/// and reused; each frame's planes point into the driver's buffer, which is
/// given back to the driver when the next frame is asked for.
public final class CameraSource: FrameSource, LiveCamera {
    public let device: CameraDevice
    public let mode: CameraMode
    public let colorSpace: YUVColorSpace
    var buffers: [UnsafeMutableRawBufferPointer] = []
    var bufferPlanes: [[Plane]] = []
    /// How the buffers were allocated.
    public internal(set) var memory: CameraMemory = .mmap
    var memoryType = V4L2_MEMORY_MMAP.rawValue
    var dumbBuffers: [DumbBuffer] = []
    var exportedFDs: [Int32] = []
    /// Compressed formats' decoder, or libv4l's conversion for formats Kamera does not read itself.
    var decoder: FrameDecoder?
    /// Why a compressed camera's frames are decoded on the CPU after all (a V4L2 decoder would not
    /// start), or that `--decoder` was given for a camera whose frames are not compressed.
    public internal(set) var decoderNote: String?
    /// The decoder `--decoder` asked for.
    let decoderChoice: DecoderChoice
    /// The summary's words on the decoder (`slotLock`).
    var decodedBy = ""
    /// Repacks (or demosaics) frames of a format Kamera does not read as it is.
    var repacker: FrameRepacker?
    /// A raw Bayer camera's black level when the request gave none, and where it came from.
    public private(set) var sensorBlackLevel: SensorBlackLevel?
    /// MJPEG and repacked formats: frames are decoded or repacked into these,
    /// and the driver's buffer goes back at once. A slot stays taken until its frame is handed back; slots are not tied
    /// to buffer indices because some drivers (v4l2loopback) hand out an index
    /// again before it was queued back.
    var decoded: [FrameBuffer] = []
    var decodedPlanes: [[Plane]] = []
    /// An MJPEG camera's own JPEG of each slot's picture.
    var slotJPEGs: SlotJPEGs?
    var slotTaken: [Bool] = []
    /// For raw Bayer handed on raw (`ISPSettings.onGPU`): how to develop the frame in each slot.
    var slotBayer: [RawBayer?] = []
    /// Frames go into slots of Kamera's own (decoded, repacked, demosaiced on the
    /// CPU); false when the driver's buffers are handed on (`CameraMode.isConverted(convertsOnGPU:)`).
    let intoSlots: Bool
    let slotLock = Lock()
    /// Compressed frames that could not be decoded and were skipped.
    public internal(set) var corruptFrames = 0
    /// H.264 and HEVC frames that gave no picture: those before the stream's first key frame.
    public internal(set) var undecodedFrames = 0
    var held: Int?
    var streaming = false
    var lastSequence: UInt32?
    /// Frames the driver skipped (gaps in its sequence numbers).
    public private(set) var driverDrops = 0
    /// Converted frames dropped because every slot still held a frame the consumer had not given back.
    public private(set) var slotDrops = 0
    public private(set) var framesCaptured = 0
    var first: (sequence: UInt32, timestamp: UInt64)?
    var latest: (sequence: UInt32, timestamp: UInt64)?

    /// The driver's frame rate over the frames taken so far, from its sequence
    /// numbers and timestamps (frames dropped on the way count too).
    public var measuredRate: Double? {
        guard let first, let latest, latest.timestamp > first.timestamp else { return nil }
        return Double(latest.sequence - first.sequence) / (Double(latest.timestamp - first.timestamp) / 1e9)
    }

    /// The counts so far; read them on the thread that dequeues.
    public var statistics: CaptureStatistics {
        CaptureStatistics(framesCaptured: framesCaptured, lateDrops: slotDrops, driverDrops: driverDrops,
                          undecoded: corruptFrames + undecodedFrames, measuredRate: measuredRate)
    }
    /// The camera's format and rate as Kamera found them, put back when it is
    /// done (V4L2 drivers keep the last mode set, so `--fps max` would leave the
    /// next program a tiny picture).
    var foundFormat = v4l2_format()
    var foundRate = v4l2_streamparm()
    var modeRestored = false
    /// How long `nextFrame` waits for the driver before giving up, in
    /// milliseconds: as long as fswebcam's default, because a camera's first
    /// frame can be slow (exposure settling, a loaded machine) and a stop
    /// signal ends the wait at once anyway.
    public var timeoutMilliseconds: Int32 = 10_000

    /// Opens `path`, sets the mode that fits `request` and starts streaming into
    /// buffers placed as `memory` says for the chosen mode.
    public init(path: String, request: CameraRequest = CameraRequest(), bufferCount: Int = 4,
                memory: (CameraMode) throws -> CameraMemory = { _ in .mmap }) throws {
        device = try CameraDevice(path: path)
        let info = try device.info()
        guard info.capabilities.contains("video-capture"), info.capabilities.contains("streaming") else {
            throw CaptureError("\(path) (\(info.card)) cannot stream video capture; `kamera devices` lists the cameras")
        }
        if info.busy {
            throw CaptureError("\(path) is busy: \(CameraSource.holders(of: path).map { "held by \($0)" } ?? "another program is streaming from it")")
        }
        var current = v4l2_format()
        current.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        V4L2.ioctl(device.fd, KAMERA_VIDIOC_G_FMT, &current)
        foundFormat = current
        foundRate.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        V4L2.ioctl(device.fd, KAMERA_VIDIOC_G_PARM, &foundRate)
        let size = (Int(current.fmt.pix.width), Int(current.fmt.pix.height))
        let mode: CameraMode
        do {
            // libv4l's formats are tried only when asked for or when nothing Kamera reads itself fits: each costs a trial conversion.
            mode = try CameraMode.choose(request, from: device.formats(libv4l: request.format?.isLibV4L ?? false), current: size, path: path)
        } catch where request.format == nil {
            mode = try CameraMode.choose(request, from: device.formats(libv4l: true), current: size, path: path)
        }
        if let problem = mode.repacked?.sizeProblem(width: mode.width, height: mode.height) {
            throw CaptureError("\(path): \(problem); choose another size with \(Setting.inputSize) (`\(Setting.cameraFormats)` lists them)")
        }
        var format = v4l2_format()
        format.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        format.fmt.pix.width = UInt32(mode.width)
        format.fmt.pix.height = UInt32(mode.height)
        format.fmt.pix.pixelformat = FourCC.code(mode.fourcc)
        format.fmt.pix.field = V4L2_FIELD_NONE.rawValue
        var e = V4L2.ioctl(device.fd, KAMERA_VIDIOC_S_FMT, &format)
        guard e == 0 else {
            throw CaptureError(e == EBUSY ? "\(path) is busy: \(CameraSource.holders(of: path).map { "held by \($0)" } ?? "another program is using it")"
                                          : "\(path): cannot set \(mode.width)x\(mode.height) \(mode.fourcc): \(V4L2.message(e))")
        }
        let pix = format.fmt.pix
        guard FourCC.text(pix.pixelformat) == mode.fourcc, Int(pix.width) == mode.width, Int(pix.height) == mode.height else {
            throw CaptureError("\(path) gave \(pix.width)x\(pix.height) \(FourCC.text(pix.pixelformat)) instead of \(mode.width)x\(mode.height) \(mode.fourcc)")
        }
        if let rate = mode.rate {
            var parm = v4l2_streamparm()
            parm.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            parm.parm.capture.timeperframe = v4l2_fract(numerator: 1000, denominator: UInt32((rate * 1000).rounded()))
            V4L2.ioctl(device.fd, KAMERA_VIDIOC_S_PARM, &parm)
        }
        self.mode = mode
        intoSlots = mode.isConverted(convertsOnGPU: request.isp.onGPU)
        var isp = request.isp
        if let mosaic = mode.repacked?.mosaic, isp.blackLevel == nil {
            let found = SensorBlackLevel.of(camera: path, bits: mosaic.bits)
            (isp.blackLevel, sensorBlackLevel) = (found.level, found)
        }
        repacker = mode.repacked.map { FrameRepacker(format: $0, isp: isp) }
        if mode.viaLibV4L {
            guard let converter = LibV4LConverter(fd: device.fd) else { throw CaptureError("\(path): libv4lconvert could not start for \(mode.fourcc)") }
            converter.source = format
            decoder = converter
        }
        decoderChoice = request.decoder
        if let codec = mode.compressed {
            let (chosen, note) = try codec.decoder(request.decoder, width: mode.width, height: mode.height, frameBytes: Int(pix.sizeimage))
            (decoder, decoderNote) = (chosen, note)
            decodedBy = Self.decodedBy(chosen, mode)
        } else if request.decoder != .auto {
            decoderNote = "\(Setting.decoder): \(path) streams \(mode.fourcc), which is not compressed; no decoder is used"
        }
        let yuv709 = pix.ycbcr_enc == UInt32(V4L2_YCBCR_ENC_709.rawValue)
            || (pix.ycbcr_enc == UInt32(V4L2_YCBCR_ENC_DEFAULT.rawValue) && pix.colorspace == V4L2_COLORSPACE_REC709.rawValue)
        colorSpace = YUVColorSpace(matrix: yuv709 ? .bt709 : .bt601,
                                   range: pix.quantization == UInt32(V4L2_QUANTIZATION_FULL_RANGE.rawValue) ? .full : .limited)
        // Asked for every mode, so the caller learns why converted ones are copied.
        let asked = try memory(mode)
        let placement = intoSlots ? .mmap : asked
        try allocateBuffers(count: bufferCount, bytesPerRow: Int(pix.bytesperline), imageSize: Int(pix.sizeimage), memory: placement)
        var type = Int32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
        e = V4L2.ioctl(device.fd, KAMERA_VIDIOC_STREAMON, &type)
        guard e == 0 else { throw CaptureError("\(path): cannot start streaming: \(V4L2.message(e))") }
        streaming = true
    }

    deinit {
        streamOff()
        if dumbBuffers.isEmpty { for b in buffers { munmap(b.baseAddress, b.count) } }
        for fd in exportedFDs { close(fd) }
        // Unmapped, the buffers can be freed (when `stop()` closed the device, they already are).
        var request = v4l2_requestbuffers()
        request.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        request.memory = memoryType
        V4L2.ioctl(device.fd, KAMERA_VIDIOC_REQBUFS, &request)
        device.close()
        restoreFoundMode()
    }

    /// Opens the camera once more, after it was closed, to set the format and
    /// rate it had before Kamera, when they differ from Kamera's.
    private func restoreFoundMode() {
        guard !modeRestored else { return }
        modeRestored = true
        let pix = foundFormat.fmt.pix
        let foundFrame = foundRate.parm.capture.timeperframe
        let sameRate = mode.rate.map { rate in
            foundFrame.numerator > 0 && abs(Double(foundFrame.denominator) / Double(foundFrame.numerator) - rate) < 0.01
        } ?? true
        guard pix.width > 0, Int(pix.width) != mode.width || Int(pix.height) != mode.height
                || FourCC.text(pix.pixelformat) != mode.fourcc || !sameRate else { return }
        let fd = open(device.path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return }
        defer { Glibc.close(fd) }
        var format = foundFormat
        V4L2.ioctl(fd, KAMERA_VIDIOC_S_FMT, &format)
        var rate = foundRate
        if rate.parm.capture.capability & UInt32(V4L2_CAP_TIMEPERFRAME) != 0 { V4L2.ioctl(fd, KAMERA_VIDIOC_S_PARM, &rate) }
    }

    /// Stops streaming and closes the device, so that another program (or
    /// another source) can use the camera. Frames already taken stay readable
    /// until this source is freed; no new ones come.
    public func stop() {
        streamOff()
        guard device.fd >= 0 else { return }
        // A mapping keeps the device open after close(); swap each one for
        // private memory holding the same bytes, so held frames stay readable.
        if dumbBuffers.isEmpty {
            for b in buffers {
                guard let base = b.baseAddress else { continue }
                let saved = UnsafeMutableRawBufferPointer.allocate(byteCount: b.count, alignment: 64)
                saved.copyMemory(from: UnsafeRawBufferPointer(b))
                mmap(base, b.count, PROT_READ | PROT_WRITE, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                b.copyMemory(from: UnsafeRawBufferPointer(saved))
                saved.deallocate()
            }
        }
        for fd in exportedFDs { close(fd) }
        exportedFDs.removeAll()
        device.close()
        restoreFoundMode()
    }

    private func streamOff() {
        guard streaming else { return }
        var type = Int32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
        V4L2.ioctl(device.fd, KAMERA_VIDIOC_STREAMOFF, &type)
        streaming = false
    }

    /// The layout of the frames handed out: the mode's, or what its frames are repacked into.
    var frameFormat: PixelFormat { repacker?.output ?? mode.format }

    /// Itself: a camera read directly, without a capture thread.
    public var camera: LiveCamera? { self }

    public var summary: String {
        "\(device.path) \(mode.width)x\(mode.height) \(mode.fourcc)\(mode.rate.map { " at \(CameraMode.formatRate($0)) fps" } ?? "") (\(colorSpace))\(repacker.map { ", " + $0.path } ?? "")\(mode.viaLibV4L ? ", converted to rgb24 by libv4l" : "")\(decoding)"
    }

    /// How a compressed camera's frames are decoded, for the summary; read under `slotLock`,
    /// as the capture thread changes it when a V4L2 decoder fails under `--decoder auto`.
    private var decoding: String {
        slotLock.withLock { decodedBy }
    }

    static func decodedBy(_ decoder: FrameDecoder?, _ mode: CameraMode) -> String {
        guard let codec = mode.compressed else { return "" }
        if let hardware = decoder as? V4L2Decoder { return ", decoded by \(hardware.device)" }
        return ", decoded on the CPU (\(codec == .mjpeg ? "libjpeg-turbo" : "libavcodec"))"
    }

    func disconnected(_ e: Int32, _ what: String) -> CaptureError {
        e == ENODEV || e == EIO || e == EPIPE
            ? CaptureError("\(device.path): the camera stopped (\(V4L2.message(e))): unplugged or driver error")
            : CaptureError("\(device.path): \(what): \(V4L2.message(e))")
    }

    public func nextFrame() throws -> Frame? {
        if let index = held {
            held = nil
            try requeue(index)
        }
        let undecodedBefore = statistics.undecoded
        guard let (frame, index) = try dequeue(timeout: timeoutMilliseconds) else {
            if StopSignal.isRequested { return nil }
            throw noFrame(undecoded: statistics.undecoded - undecodedBefore)
        }
        held = index
        return frame
    }

    /// Hands back the frame `dequeue` gave with `ticket`: the driver's buffer, or
    /// for frames decoded or repacked into memory of Kamera's own the slot holding the frame.
    public func requeue(_ ticket: Int) throws {
        if intoSlots {
            slotLock.withLock { slotTaken[ticket] = false }
        } else {
            try queue(UInt32(ticket))
        }
    }

    /// The error for a wait that ran out; `undecoded`: compressed frames that
    /// came in the wait but gave no picture.
    func noFrame(undecoded: Int) -> CaptureError {
        CaptureError("\(device.path): no frame from the camera in \(timeoutMilliseconds) ms"
                     + (undecoded > 0 ? " (\(undecoded) came but could not be decoded)" : ""))
    }

    /// Takes the next frame and a ticket to hand it back with (`requeue`); the
    /// frame stays valid until then. Nil when none came within `timeout` ms,
    /// or sooner once a stop signal came.
    public func dequeue(timeout: Int32) throws -> (Frame, Int)? {
        var buffer = v4l2_buffer()
        var ticket = 0
        // For raw Bayer handed on in the driver's buffer: how to develop it.
        var bayer: RawBayer?
        var waited = timespec()
        // v4l2loopback (0.12) now and then answers EINVAL for a buffer whose mapping it has just forgotten
        // (its issue 459): skipped as a lost frame, unless the driver keeps refusing.
        var refused = 0
        clock_gettime(CLOCK_MONOTONIC, &waited)
        let deadline = Int64(waited.tv_sec) * 1000 + Int64(waited.tv_nsec) / 1_000_000 + Int64(timeout)
        while true {
            // Frames skipped below (errors, no free slot) must not keep this past `timeout`.
            clock_gettime(CLOCK_MONOTONIC, &waited)
            let left = deadline - (Int64(waited.tv_sec) * 1000 + Int64(waited.tv_nsec) / 1_000_000)
            var poller = pollfd(fd: device.fd, events: Int16(POLLIN), revents: 0)
            // In slices, so that a stop signal (delivered to any thread) ends the wait.
            if StopSignal.isRequested { return nil }
            let ready = left > 0 ? poll(&poller, 1, Int32(min(left, 100))) : 0
            if ready < 0 && errno == EINTR || ready == 0 && left > 100 { continue }
            guard ready > 0 else { return nil }
            if poller.revents & Int16(POLLERR | POLLHUP) != 0 && poller.revents & Int16(POLLIN) == 0 {
                throw disconnected(ENODEV, "stream error")
            }
            buffer = v4l2_buffer()
            buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            buffer.memory = memoryType
            let e = V4L2.ioctl(device.fd, KAMERA_VIDIOC_DQBUF, &buffer)
            if e == EAGAIN { continue }
            if e == EINVAL && refused < 3 {
                refused += 1
                continue
            }
            guard e == 0 else { throw disconnected(e, "cannot take a frame") }
            if buffer.flags & UInt32(V4L2_BUF_FLAG_ERROR) != 0 {
                try queue(buffer.index)
                continue
            }
            ticket = Int(buffer.index)
            if let repacker, !intoSlots {
                bayer = repacker.rawBayer(for: bufferPlanes[ticket][0], width: mode.width, height: mode.height)
            }
            if intoSlots {
                // Into a slot of Kamera's own; the driver's buffer goes straight back. A frame
                // that reached Kamera moves the sequence on even when dropped: not the driver's loss.
                guard let slot = takeSlot() else {
                    // Every slot still holds a frame the consumer has not given back: dropped as a late frame.
                    framesCaptured += 1
                    slotDrops += 1
                    lastSequence = buffer.sequence
                    try queue(buffer.index)
                    continue
                }
                let filled: Bool
                if let decoder { filled = try decode(buffer, with: decoder, into: slot) } else { repack(buffer, with: repacker!, into: slot); filled = true }
                try queue(buffer.index)
                guard filled else {
                    lastSequence = buffer.sequence
                    try requeue(slot)
                    continue
                }
                ticket = slot
            }
            break
        }
        if let last = lastSequence, buffer.sequence > last + 1 { driverDrops += Int(buffer.sequence - last - 1) }
        lastSequence = buffer.sequence
        framesCaptured += 1
        let timestamp = UInt64(buffer.timestamp.tv_sec) * 1_000_000_000 + UInt64(buffer.timestamp.tv_usec) * 1000
        if first == nil { first = (buffer.sequence, timestamp) }
        latest = (buffer.sequence, timestamp)
        let planes = intoSlots ? decodedPlanes[ticket] : bufferPlanes[ticket]
        var frame = Frame(format: frameFormat, width: mode.width, height: mode.height, planes: planes,
                          timestamp: timestamp, sequence: UInt64(buffer.sequence),
                          colorSpace: decoder?.colorSpace ?? colorSpace, storage: self)
        if repacker != nil { frame.bayer = intoSlots ? slotBayer[ticket] : bayer }
        if intoSlots, let slotJPEGs { frame.jpeg = slotJPEGs.jpeg(in: ticket) }
        return (frame, ticket)
    }
}
