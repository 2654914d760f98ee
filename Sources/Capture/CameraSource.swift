import CV4L2
import DRM
import Foundation
import Glibc

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
    /// nil: the camera's current size.
    public var size: (width: Int, height: Int)?
    public var rate: Rate

    public init(format: PixelFormat? = nil, compressed: Bool = false, size: (width: Int, height: Int)? = nil, rate: Rate = .current) {
        self.format = format
        self.compressed = compressed
        self.size = size
        self.rate = rate
    }

    public static func == (a: CameraRequest, b: CameraRequest) -> Bool {
        a.format == b.format && a.compressed == b.compressed && a.rate == b.rate && a.size?.width == b.size?.width && a.size?.height == b.size?.height
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

/// A chosen capture mode.
public struct CameraMode: Equatable, Sendable {
    public var format: PixelFormat
    public var fourcc: String
    public var isCompressed: Bool { fourcc == "MJPG" || fourcc == "JPEG" }
    public var width: Int
    public var height: Int
    /// nil leaves the rate as it is.
    public var rate: Double?

    public init(format: PixelFormat, fourcc: String, width: Int, height: Int, rate: Double?) {
        self.format = format
        self.fourcc = fourcc
        self.width = width
        self.height = height
        self.rate = rate
    }

    /// Picks the mode for `request` from what the camera offers.
    public static func choose(_ request: CameraRequest, from formats: [CameraFormat], current: (width: Int, height: Int),
                              path: String = "camera") throws -> CameraMode {
        var usable = formats.filter { f in
            guard f.pixelFormat != nil else { return false }
            if request.compressed { return f.isCompressed }
            return request.format == nil || (f.pixelFormat == request.format && !f.isCompressed)
        }
        // Left to choose, prefer color: GREY is cheapest to upload but loses it.
        if request.format == nil, usable.contains(where: { $0.pixelFormat != .grey }) {
            usable.removeAll { $0.pixelFormat == .grey }
        }
        guard !usable.isEmpty else {
            let offered = formats.map(\.fourcc).joined(separator: ", ")
            if request.compressed {
                throw CaptureError("\(path) does not offer MJPEG; it offers \(offered)")
            }
            if let wanted = request.format {
                throw CaptureError("\(path) does not offer \(wanted.name) (\(wanted.v4l2Codes.joined(separator: "/"))); it offers \(offered)")
            }
            throw CaptureError("\(path) offers no format Kamera reads (\(offered)); Kamera reads \(PixelFormat.validNames)")
        }
        let size = request.size ?? current
        func fits(_ s: CameraSize) -> Bool { request.size == nil && request.rate == .max || (s.width == size.width && s.height == size.height) }
        var candidates: [(CameraFormat, CameraSize)] = []
        for f in usable { for s in f.sizes where fits(s) { candidates.append((f, s)) } }
        if candidates.isEmpty {
            let sizes = Set(usable.flatMap { $0.sizes.map { "\($0.width)x\($0.height)" } }).sorted().joined(separator: ", ")
            throw CaptureError("\(path) does not offer \(size.width)x\(size.height)\(request.format.map { " in \($0.name)" } ?? ""); sizes: \(sizes)")
        }
        // Uncompressed formats by bytes per pixel; MJPEG (decoded on the CPU) last.
        func cost(_ f: CameraFormat) -> Double { f.isCompressed ? 100 : f.pixelFormat!.bytesPerPixel }
        let cheapest: ((CameraFormat, CameraSize), (CameraFormat, CameraSize)) -> Bool = { cost($0.0) < cost($1.0) }
        switch request.rate {
        case .max:
            let best = candidates.max { a, b in
                let ra = a.1.rates.first ?? 0, rb = b.1.rates.first ?? 0
                if ra != rb { return ra < rb }
                if a.1.width * a.1.height != b.1.width * b.1.height { return a.1.width * a.1.height < b.1.width * b.1.height }
                return cheapest(b, a)
            }!
            let rate = best.1.rates.first ?? 0
            guard rate > 30 else {
                throw CaptureError("\(path) offers no rate above 30 fps (the highest is \(formatRate(rate)) fps at \(best.1.width)x\(best.1.height) \(best.0.fourcc))")
            }
            return CameraMode(format: best.0.pixelFormat!, fourcc: best.0.fourcc, width: best.1.width, height: best.1.height, rate: rate)
        case .fps(let fps):
            let withRate = candidates.filter { $0.1.rates.isEmpty || $0.1.rates.contains { abs($0 - fps) < 0.01 } }
            guard let chosen = withRate.sorted(by: cheapest).first else {
                let rates = Set(candidates.flatMap(\.1.rates)).sorted(by: >).map(formatRate).joined(separator: ", ")
                throw CaptureError("\(path) does not offer \(formatRate(fps)) fps at \(size.width)x\(size.height); rates: \(rates)")
            }
            return CameraMode(format: chosen.0.pixelFormat!, fourcc: chosen.0.fourcc, width: chosen.1.width, height: chosen.1.height, rate: fps)
        case .current:
            let chosen = candidates.sorted(by: cheapest).first!
            return CameraMode(format: chosen.0.pixelFormat!, fourcc: chosen.0.fourcc, width: chosen.1.width, height: chosen.1.height, rate: nil)
        }
    }

    /// A rate as people write it: 30, 12.5.
    public static func formatRate(_ r: Double) -> String {
        r == r.rounded() ? String(Int(r)) : String(format: "%.2f", r)
    }
}

/// Frames from a V4L2 camera through mmap streaming: the counterpart of
/// `AVCaptureVideoDataOutput`. Buffers are mapped once and reused; each
/// frame's planes point into the driver's buffer, which is given back to the
/// driver when the next frame is asked for.
public final class CameraSource: FrameSource {
    public let device: CameraDevice
    public let mode: CameraMode
    public let colorSpace: YUVColorSpace
    private var buffers: [UnsafeMutableRawBufferPointer] = []
    private var bufferPlanes: [[Plane]] = []
    /// How the buffers were allocated.
    public private(set) var memory: CameraMemory = .mmap
    private var memoryType = V4L2_MEMORY_MMAP.rawValue
    private var dumbBuffers: [DumbBuffer] = []
    private var exportedFDs: [Int32] = []
    private var decoder: JPEGDecoder?
    /// MJPEG: frames decode into these, and the driver's buffer goes back at
    /// once. A slot stays taken until its frame is handed back; slots are not tied
    /// to buffer indices because some drivers (v4l2loopback) hand out an index
    /// again before it was queued back.
    private var decoded: [FrameBuffer] = []
    private var decodedPlanes: [[Plane]] = []
    private var slotTaken: [Bool] = []
    private let slotLock = NSLock()
    /// MJPEG frames that could not be decoded and were skipped.
    public private(set) var corruptFrames = 0
    private var held: Int?
    private var streaming = false
    private var lastSequence: UInt32?
    /// Frames the driver skipped (gaps in its sequence numbers).
    public private(set) var driverDrops = 0
    public private(set) var framesCaptured = 0
    private var first: (sequence: UInt32, timestamp: UInt64)?
    private var latest: (sequence: UInt32, timestamp: UInt64)?

    /// The driver's frame rate over the frames taken so far, from its sequence
    /// numbers and timestamps (frames dropped on the way count too).
    public var measuredRate: Double? {
        guard let first, let latest, latest.timestamp > first.timestamp else { return nil }
        return Double(latest.sequence - first.sequence) / (Double(latest.timestamp - first.timestamp) / 1e9)
    }
    /// How long `nextFrame` waits for the driver before giving up, in milliseconds.
    public var timeoutMilliseconds: Int32 = 3000

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
        let mode = try CameraMode.choose(request, from: device.formats(),
                                         current: (Int(current.fmt.pix.width), Int(current.fmt.pix.height)), path: path)
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
        let yuv709 = pix.ycbcr_enc == UInt32(V4L2_YCBCR_ENC_709.rawValue)
            || (pix.ycbcr_enc == UInt32(V4L2_YCBCR_ENC_DEFAULT.rawValue) && pix.colorspace == V4L2_COLORSPACE_REC709.rawValue)
        colorSpace = YUVColorSpace(matrix: yuv709 ? .bt709 : .bt601,
                                   range: pix.quantization == UInt32(V4L2_QUANTIZATION_FULL_RANGE.rawValue) ? .full : .limited)
        let placement = mode.isCompressed ? .mmap : try memory(mode)
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
    }

    private func streamOff() {
        guard streaming else { return }
        var type = Int32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
        V4L2.ioctl(device.fd, KAMERA_VIDIOC_STREAMOFF, &type)
        streaming = false
    }

    public var summary: String {
        "\(device.path) \(mode.width)x\(mode.height) \(mode.fourcc)\(mode.rate.map { " at \(CameraMode.formatRate($0)) fps" } ?? "") (\(colorSpace))"
    }

    private func allocateBuffers(count: Int, bytesPerRow: Int, imageSize: Int, memory placement: CameraMemory) throws {
        var request = v4l2_requestbuffers()
        request.count = UInt32(count)
        request.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        if case .drm = placement { memoryType = V4L2_MEMORY_DMABUF.rawValue }
        request.memory = memoryType
        let e = V4L2.ioctl(device.fd, KAMERA_VIDIOC_REQBUFS, &request)
        guard e == 0, request.count > 0 else {
            if memoryType == V4L2_MEMORY_DMABUF.rawValue {
                throw CaptureError("\(device.path) does not take dma-buf buffers (V4L2_MEMORY_DMABUF): \(e == 0 ? "the driver gave none" : V4L2.message(e))")
            }
            throw CaptureError("\(device.path): cannot get capture buffers: \(e == 0 ? "the driver gave none" : V4L2.message(e))")
        }
        memory = placement
        let layouts = mode.format.planeLayouts(width: mode.width, height: mode.height)
        if case .drm(let node) = placement {
            let drm = try DRMNode(path: node)
            let needed = max(imageSize, layouts.reduce(0) { $0 + max(bytesPerRow, $1.bytesPerRow) * $1.rows })
            for index in 0..<request.count {
                let buffer = try DumbBuffer(device: drm, size: needed)
                dumbBuffers.append(buffer)
                buffers.append(buffer.bytes)
                bufferPlanes.append(planes(in: buffer.bytes, layouts: layouts, bytesPerRow: bytesPerRow, fd: buffer.fd))
                try queue(index)
            }
            return
        }
        if mode.isCompressed {
            // The consumer holds one frame and a queue may hold more: two slots
            // beyond the driver's buffers, as some drivers give as few as two.
            decoder = try JPEGDecoder()
            for _ in 0..<Int(request.count) + 2 {
                let target = FrameBuffer(format: .rgba, width: mode.width, height: mode.height)
                decoded.append(target)
                decodedPlanes.append(target.planes)
                slotTaken.append(false)
            }
        }
        for index in 0..<request.count {
            var buffer = v4l2_buffer()
            buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            buffer.memory = V4L2_MEMORY_MMAP.rawValue
            buffer.index = index
            guard V4L2.ioctl(device.fd, KAMERA_VIDIOC_QUERYBUF, &buffer) == 0 else {
                throw CaptureError("\(device.path): cannot query buffer \(index): \(V4L2.message(errno))")
            }
            let address = mmap(nil, Int(buffer.length), PROT_READ | PROT_WRITE, MAP_SHARED, device.fd, off_t(buffer.m.offset))
            guard let address, address != MAP_FAILED else {
                throw CaptureError("\(device.path): cannot map buffer \(index): \(V4L2.message(errno))")
            }
            let memory = UnsafeMutableRawBufferPointer(start: address, count: Int(buffer.length))
            buffers.append(memory)
            if mode.isCompressed {
                bufferPlanes.append([])
                try queue(index)
                continue
            }
            guard layouts.reduce(0, { $0 + max(bytesPerRow, $1.bytesPerRow) * $1.rows }) <= memory.count else {
                throw CaptureError("\(device.path): buffer of \(memory.count) bytes is too small for \(mode.width)x\(mode.height) \(mode.fourcc)")
            }
            var fd: Int32?
            if placement == .exported {
                var export = v4l2_exportbuffer()
                export.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
                export.index = index
                export.flags = UInt32(O_CLOEXEC | O_RDONLY)
                let e = V4L2.ioctl(device.fd, KAMERA_VIDIOC_EXPBUF, &export)
                guard e == 0 else { throw CaptureError("\(device.path): cannot export buffer \(index) (VIDIOC_EXPBUF): \(V4L2.message(e))") }
                exportedFDs.append(export.fd)
                fd = export.fd
            }
            bufferPlanes.append(planes(in: memory, layouts: layouts, bytesPerRow: bytesPerRow, fd: fd))
            try queue(index)
        }
    }

    /// Planes follow each other in one buffer (single-planar API); chroma rows
    /// of NV12 have the luma stride.
    private func planes(in memory: UnsafeMutableRawBufferPointer, layouts: [(bytesPerRow: Int, rows: Int)], bytesPerRow: Int, fd: Int32?) -> [Plane] {
        var offset = 0
        var planes: [Plane] = []
        for layout in layouts {
            let stride = max(bytesPerRow, layout.bytesPerRow)
            let size = min(stride * layout.rows, memory.count - offset)
            planes.append(Plane(bytes: UnsafeRawBufferPointer(rebasing: memory[offset..<offset + max(0, size)]), bytesPerRow: stride,
                                dmabuf: fd.map { DMABufPlane(fd: $0, offset: offset) }))
            offset += stride * layout.rows
        }
        return planes
    }

    private func queue(_ index: UInt32) throws {
        var buffer = v4l2_buffer()
        buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        buffer.memory = memoryType
        buffer.index = index
        if !dumbBuffers.isEmpty {
            buffer.m.fd = dumbBuffers[Int(index)].fd
            buffer.length = UInt32(dumbBuffers[Int(index)].bytes.count)
        }
        let e = V4L2.ioctl(device.fd, KAMERA_VIDIOC_QBUF, &buffer)
        guard e == 0 else { throw disconnected(e, "cannot queue a buffer") }
    }

    private func disconnected(_ e: Int32, _ what: String) -> CaptureError {
        e == ENODEV || e == EIO || e == EPIPE
            ? CaptureError("\(device.path): the camera stopped (\(V4L2.message(e))): unplugged or driver error")
            : CaptureError("\(device.path): \(what): \(V4L2.message(e))")
    }

    public func nextFrame() throws -> Frame? {
        if let index = held {
            held = nil
            try requeue(index)
        }
        guard let (frame, index) = try dequeue(timeout: timeoutMilliseconds) else {
            throw CaptureError("\(device.path): no frame from the camera in \(timeoutMilliseconds) ms")
        }
        held = index
        return frame
    }

    /// Hands back the frame `dequeue` gave with `ticket`: the driver's buffer, or
    /// for MJPEG the decoded frame's slot.
    public func requeue(_ ticket: Int) throws {
        if decoder != nil {
            slotLock.lock()
            slotTaken[ticket] = false
            slotLock.unlock()
        } else {
            try queue(UInt32(ticket))
        }
    }

    private func takeSlot() -> Int? {
        slotLock.lock()
        defer { slotLock.unlock() }
        guard let slot = slotTaken.firstIndex(of: false) else { return nil }
        slotTaken[slot] = true
        return slot
    }

    /// Takes the next frame and a ticket to hand it back with (`requeue`); the
    /// frame stays valid until then. Nil when none came within `timeout` ms.
    public func dequeue(timeout: Int32) throws -> (Frame, Int)? {
        var buffer = v4l2_buffer()
        var ticket = 0
        var waited = timespec()
        clock_gettime(CLOCK_MONOTONIC, &waited)
        let deadline = Int64(waited.tv_sec) * 1000 + Int64(waited.tv_nsec) / 1_000_000 + Int64(timeout)
        while true {
            // Frames skipped below (errors, no free slot) must not keep this past `timeout`.
            clock_gettime(CLOCK_MONOTONIC, &waited)
            let left = deadline - (Int64(waited.tv_sec) * 1000 + Int64(waited.tv_nsec) / 1_000_000)
            var poller = pollfd(fd: device.fd, events: Int16(POLLIN), revents: 0)
            let ready = left > 0 ? poll(&poller, 1, Int32(left)) : 0
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { return nil }
            if poller.revents & Int16(POLLERR | POLLHUP) != 0 && poller.revents & Int16(POLLIN) == 0 {
                throw disconnected(ENODEV, "stream error")
            }
            buffer = v4l2_buffer()
            buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            buffer.memory = memoryType
            let e = V4L2.ioctl(device.fd, KAMERA_VIDIOC_DQBUF, &buffer)
            if e == EAGAIN { continue }
            guard e == 0 else { throw disconnected(e, "cannot take a frame") }
            if buffer.flags & UInt32(V4L2_BUF_FLAG_ERROR) != 0 {
                try queue(buffer.index)
                continue
            }
            ticket = Int(buffer.index)
            if let decoder {
                let index = Int(buffer.index)
                let used = buffer.bytesused > 0 ? min(Int(buffer.bytesused), buffers[index].count) : buffers[index].count
                guard let slot = takeSlot() else {
                    // Every decoded frame is still held by the consumer: this one is dropped.
                    try queue(buffer.index)
                    continue
                }
                do {
                    try decoder.decode(UnsafeRawBufferPointer(rebasing: buffers[index][0..<used]), into: decoded[slot])
                } catch {
                    corruptFrames += 1
                    try requeue(slot)
                    try queue(buffer.index)
                    continue
                }
                try queue(buffer.index)
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
        let planes = decoder != nil ? decodedPlanes[ticket] : bufferPlanes[ticket]
        let frame = Frame(format: mode.format, width: mode.width, height: mode.height, planes: planes,
                          timestamp: timestamp, sequence: UInt64(buffer.sequence), colorSpace: colorSpace, storage: self)
        return (frame, ticket)
    }

    /// The processes that have `path` open, e.g. "kamera (pid 123)", when /proc tells.
    public static func holders(of path: String) -> String? {
        guard let proc = opendir("/proc") else { return nil }
        defer { closedir(proc) }
        var found: [String] = []
        let me = getpid()
        while let entry = readdir(proc) {
            guard let pid = Int32(V4L2.string(entry.pointee.d_name)), pid != me else { continue }
            guard let fds = opendir("/proc/\(pid)/fd") else { continue }
            defer { closedir(fds) }
            while let fd = readdir(fds) {
                var target = [CChar](repeating: 0, count: 256)
                let n = readlink("/proc/\(pid)/fd/\(V4L2.string(fd.pointee.d_name))", &target, 255)
                guard n > 0, String(cString: target) == path else { continue }
                let comm = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
                found.append("\(comm) (pid \(pid))")
                break
            }
        }
        return found.isEmpty ? nil : found.joined(separator: ", ")
    }
}

extension CameraSource {
    /// The camera's own zoom control (`zoom_absolute`), when it has one.
    public var hardwareZoom: CameraControl? {
        device.controls().first { $0.name == "zoom_absolute" && !$0.readOnly }
    }

    /// Sets the hardware zoom for `factor` in `range`: factor 1 is the control's
    /// minimum, the range's maximum factor its maximum, linear in between.
    public func setHardwareZoom(_ factor: Double, range: ZoomRange, control: CameraControl) throws {
        let fraction = range.maxFactor > 1 ? (range.clamp(factor) - 1) / (range.maxFactor - 1) : 0
        var value = control.minimum + Int64((Double(control.maximum - control.minimum) * fraction).rounded())
        if control.step > 1 { value = control.minimum + (value - control.minimum) / control.step * control.step }
        try device.setControl("zoom_absolute=\(value)")
    }
}
