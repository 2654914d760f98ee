import CV4L2
import Glibc
import Lifecycle
import Messages
import Pixels

/// A camera's compressed frames decoded by a V4L2 memory-to-memory decoder
/// (the kernel's stateful decoder interface): each frame goes in on the
/// decoder's OUTPUT queue, its picture comes out in NV12 on the CAPTURE queue
/// and is copied into the frame the camera source hands on. Both queues'
/// buffers are mapped once. The CAPTURE queue is set up when the decoder has
/// read the stream's first header and says so (a source-change event), and
/// again whenever it says so later.
public final class V4L2Decoder: FrameDecoder {
    public let device: V4L2DecoderDevice
    let format: CompressedFormat
    private let fd: Int32
    private let width: Int, height: Int
    private let outputType: UInt32, captureType: UInt32
    /// Each OUTPUT buffer, mapped (one plane).
    private var inputs: [UnsafeMutableRawBufferPointer] = []
    private var inputQueued: [Bool] = []
    /// Each CAPTURE buffer's planes, mapped.
    private var pictures: [[UnsafeMutableRawBufferPointer]] = []
    /// A picture's bytes per row in each plane, and where CbCr starts when it shares Y's plane.
    private var pictureRows: [Int] = []
    private var chromaOffset = 0
    /// The end of the last row each copy reads, from the start of the picture's data in its plane.
    private var lumaEnd = 0, chromaEnd = 0
    private var capturing = false
    /// The decoder said the stream changed while its pictures were set up: they
    /// are taken until the last before the change (flagged LAST), then set up again.
    private var changePending = false
    /// The multi-planar API's plane array, kept for every buffer call.
    private let planes: UnsafeMutablePointer<v4l2_plane>
    private var sequence: Int = 0
    /// How to read the pictures' Y'CbCr, from the decoder's CAPTURE format.
    public private(set) var colorSpace: YUVColorSpace?

    /// How long one frame may take to come out, before it counts as lost.
    static let frameTimeoutMilliseconds: Int64 = 2000
    /// After the decoder took a frame, how long a picture may take to follow.
    static let pictureGraceMilliseconds: Int64 = 50

    /// Opens `device` for a stream of `format` frames of `width`x`height`, each
    /// at most `frameBytes` long (the camera's buffer size).
    public init(_ format: CompressedFormat, width: Int, height: Int, frameBytes: Int, device: V4L2DecoderDevice) throws {
        (self.format, self.width, self.height, self.device) = (format, width, height, device)
        outputType = (device.multiPlanar ? V4L2_BUF_TYPE_VIDEO_OUTPUT_MPLANE : V4L2_BUF_TYPE_VIDEO_OUTPUT).rawValue
        captureType = (device.multiPlanar ? V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE : V4L2_BUF_TYPE_VIDEO_CAPTURE).rawValue
        planes = .allocate(capacity: Int(VIDEO_MAX_PLANES))
        planes.initialize(repeating: v4l2_plane(), count: Int(VIDEO_MAX_PLANES))
        fd = open(device.path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw CaptureError("\(device.path): cannot open the \(format.rawValue) decoder: \(V4L2.message(errno))") }
        try startInput(frameBytes: frameBytes)
    }

    deinit {
        stopCapture()
        var type = Int32(outputType)
        if fd >= 0 { V4L2.ioctl(fd, KAMERA_VIDIOC_STREAMOFF, &type) }
        for b in inputs { munmap(b.baseAddress, b.count) }
        if fd >= 0 { close(fd) }
        planes.deallocate()
    }

    private func fail(_ what: String, _ e: Int32) -> CaptureError {
        CaptureError("\(device.path) (\(device.card)): \(what): \(V4L2.message(e))")
    }

    /// Subscribes to source changes, sets the compressed format and maps and starts the OUTPUT queue.
    private func startInput(frameBytes: Int) throws {
        var subscription = v4l2_event_subscription()
        subscription.type = UInt32(V4L2_EVENT_SOURCE_CHANGE)
        var e = V4L2.ioctl(fd, KAMERA_VIDIOC_SUBSCRIBE_EVENT, &subscription)
        guard e == 0 else { throw fail("cannot hear its source-change events", e) }
        let code = FourCC.code(format.v4l2Codes[0])
        var f = v4l2_format()
        f.type = outputType
        if device.multiPlanar {
            f.fmt.pix_mp.pixelformat = code
            (f.fmt.pix_mp.width, f.fmt.pix_mp.height) = (UInt32(width), UInt32(height))
            f.fmt.pix_mp.num_planes = 1
            f.fmt.pix_mp.plane_fmt.0.sizeimage = UInt32(frameBytes)
        } else {
            f.fmt.pix.pixelformat = code
            (f.fmt.pix.width, f.fmt.pix.height) = (UInt32(width), UInt32(height))
            f.fmt.pix.sizeimage = UInt32(frameBytes)
        }
        e = V4L2.ioctl(fd, KAMERA_VIDIOC_S_FMT, &f)
        guard e == 0 else { throw fail("cannot take \(format.v4l2Codes[0]) at \(width)x\(height)", e) }
        let taken = device.multiPlanar ? f.fmt.pix_mp.pixelformat : f.fmt.pix.pixelformat
        guard taken == code else { throw CaptureError("\(device.path) (\(device.card)) does not decode \(format.v4l2Codes[0]) (it set \(FourCC.text(taken)))") }
        let mapped = try mapBuffers(type: outputType, count: 4)
        inputs = mapped.flatMap { $0 }
        guard mapped.allSatisfy({ $0.count == 1 }) else {
            throw CaptureError("\(device): its compressed-frame buffers are not of one plane each, which Kamera needs")
        }
        inputQueued = Array(repeating: false, count: inputs.count)
        var type = Int32(outputType)
        e = V4L2.ioctl(fd, KAMERA_VIDIOC_STREAMON, &type)
        guard e == 0 else { throw fail("cannot start its input", e) }
    }

    /// Requests `count` buffers of `type` and maps each one's planes.
    private func mapBuffers(type: UInt32, count: UInt32) throws -> [[UnsafeMutableRawBufferPointer]] {
        var request = v4l2_requestbuffers()
        (request.type, request.memory, request.count) = (type, V4L2_MEMORY_MMAP.rawValue, count)
        let e = V4L2.ioctl(fd, KAMERA_VIDIOC_REQBUFS, &request)
        guard e == 0, request.count > 0 else { throw fail("cannot get \(count) buffers", e == 0 ? ENOMEM : e) }
        var mapped: [[UnsafeMutableRawBufferPointer]] = []
        func unmapAll() { for buffer in mapped { for plane in buffer { munmap(plane.baseAddress, plane.count) } } }
        for index in 0..<request.count {
            var buffer = emptyBuffer(type: type, index: index)
            let e = V4L2.ioctl(fd, KAMERA_VIDIOC_QUERYBUF, &buffer)
            guard e == 0 else {
                unmapAll()
                throw fail("cannot query buffer \(index)", e)
            }
            let parts = device.multiPlanar ? (0..<min(Int(buffer.length), Int(VIDEO_MAX_PLANES))).map { (Int(planes[$0].length), off_t(planes[$0].m.mem_offset)) }
                                           : [(Int(buffer.length), off_t(buffer.m.offset))]
            var planesMapped: [UnsafeMutableRawBufferPointer] = []
            for (length, offset) in parts {
                let address = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, offset)
                guard let address, address != MAP_FAILED else {
                    let e = errno
                    mapped.append(planesMapped)
                    unmapAll()
                    throw fail("cannot map buffer \(index)", e)
                }
                planesMapped.append(UnsafeMutableRawBufferPointer(start: address, count: length))
            }
            mapped.append(planesMapped)
        }
        return mapped
    }

    private func emptyBuffer(type: UInt32, index: UInt32 = 0) -> v4l2_buffer {
        var buffer = v4l2_buffer()
        (buffer.type, buffer.memory, buffer.index) = (type, V4L2_MEMORY_MMAP.rawValue, index)
        if device.multiPlanar {
            planes.update(repeating: v4l2_plane(), count: Int(VIDEO_MAX_PLANES))
            buffer.m.planes = planes
            buffer.length = UInt32(VIDEO_MAX_PLANES)
        }
        return buffer
    }

    /// Sets up the CAPTURE queue for the stream the decoder has found: NV12
    /// pictures at least the camera's size, mapped and queued. Throws
    /// `DecoderFailure`: without its pictures the decoder cannot go on.
    private func startCapture() throws {
        do {
            try setUpCapture()
        } catch {
            stopCapture()
            if let failure = error as? DecoderFailure { throw failure }
            throw DecoderFailure(error: error as? CaptureError ?? CaptureError("\(device): \(error)"))
        }
    }

    private func setUpCapture() throws {
        stopCapture()
        var f = v4l2_format()
        f.type = captureType
        var e = V4L2.ioctl(fd, KAMERA_VIDIOC_G_FMT, &f)
        guard e == 0 else { throw fail("cannot read its picture format", e) }
        let nv12 = FourCC.code("NV12"), twoPlanes = FourCC.code("NM12")
        if device.multiPlanar {
            if f.fmt.pix_mp.pixelformat != nv12 && f.fmt.pix_mp.pixelformat != twoPlanes { f.fmt.pix_mp.pixelformat = nv12 }
        } else {
            f.fmt.pix.pixelformat = nv12
        }
        e = V4L2.ioctl(fd, KAMERA_VIDIOC_S_FMT, &f)
        guard e == 0 else { throw fail("cannot set NV12 pictures", e) }
        let code = device.multiPlanar ? f.fmt.pix_mp.pixelformat : f.fmt.pix.pixelformat
        let (w, h) = device.multiPlanar ? (Int(f.fmt.pix_mp.width), Int(f.fmt.pix_mp.height)) : (Int(f.fmt.pix.width), Int(f.fmt.pix.height))
        guard code == nv12 || code == twoPlanes else {
            throw CaptureError("\(device) gives \(FourCC.text(code)) pictures, not the NV12 Kamera takes\(format.decodesOnCPU ? "; use \(Setting.decoder) cpu" : "")")
        }
        // Decoders round the coded size up (1920x1088 for 1080p); the picture is its top-left corner.
        guard w >= width, h >= height, w <= FrameLimits.maxSide, h <= FrameLimits.maxSide else {
            throw CaptureError("\(device): the \(format.rawValue) stream's pictures are \(w)x\(h), not the camera's \(width)x\(height)")
        }
        if device.multiPlanar {
            pictureRows = [Int(f.fmt.pix_mp.plane_fmt.0.bytesperline), Int(f.fmt.pix_mp.plane_fmt.1.bytesperline)]
            if code == nv12 { pictureRows[1] = pictureRows[0] }
        } else {
            pictureRows = [Int(f.fmt.pix.bytesperline), Int(f.fmt.pix.bytesperline)]
        }
        let chromaBytes = (width + 1) / 2 * 2
        guard pictureRows[0] >= width, pictureRows[1] >= chromaBytes, pictureRows.allSatisfy({ $0 <= 4 * FrameLimits.maxSide }) else {
            throw CaptureError("\(device): its pictures' rows of \(pictureRows.map(String.init).joined(separator: " and ")) bytes do not hold \(width)-pixel NV12 rows")
        }
        chromaOffset = code == nv12 ? pictureRows[0] * h : 0
        let (enc, quantization, space) = device.multiPlanar
            ? (UInt32(f.fmt.pix_mp.ycbcr_enc), UInt32(f.fmt.pix_mp.quantization), f.fmt.pix_mp.colorspace)
            : (f.fmt.pix.ycbcr_enc, f.fmt.pix.quantization, f.fmt.pix.colorspace)
        colorSpace = Self.colorSpace(encoding: enc, quantization: quantization, space: space)

        var control = v4l2_control()
        control.id = UInt32(V4L2_CID_MIN_BUFFERS_FOR_CAPTURE)
        let least = V4L2.ioctl(fd, KAMERA_VIDIOC_G_CTRL, &control) == 0 ? Int(control.value) : 2
        pictures = try mapBuffers(type: captureType, count: UInt32(min(max(least, 2) + 2, 32)))
        // The end of the last row each copy reads, in the plane it reads it from.
        lumaEnd = (height - 1) * pictureRows[0] + width
        chromaEnd = chromaOffset + ((height + 1) / 2 - 1) * pictureRows[1] + chromaBytes
        guard pictures.allSatisfy({ $0.count == (code == twoPlanes ? 2 : 1) && lumaEnd <= $0[0].count && chromaEnd <= $0[$0.count - 1].count }) else {
            throw CaptureError("\(device): its picture buffers are smaller than \(w)x\(h) NV12")
        }
        for index in pictures.indices { try queuePicture(index) }
        var type = Int32(captureType)
        e = V4L2.ioctl(fd, KAMERA_VIDIOC_STREAMON, &type)
        guard e == 0 else { throw fail("cannot start its pictures", e) }
        capturing = true
    }

    /// The Y'CbCr the decoder says its pictures are in; nil when it says nothing (the camera's then).
    static func colorSpace(encoding: UInt32, quantization: UInt32, space: UInt32) -> YUVColorSpace? {
        if encoding == 0 && quantization == 0 && space == 0 { return nil }
        if space == V4L2_COLORSPACE_JPEG.rawValue { return YUVColorSpace(matrix: .bt601, range: .full) }
        let bt709 = encoding == UInt32(V4L2_YCBCR_ENC_709.rawValue) || (encoding == 0 && space == V4L2_COLORSPACE_REC709.rawValue)
        return YUVColorSpace(matrix: bt709 ? .bt709 : .bt601, range: quantization == UInt32(V4L2_QUANTIZATION_FULL_RANGE.rawValue) ? .full : .limited)
    }

    private func stopCapture() {
        var type = Int32(captureType)
        if capturing { V4L2.ioctl(fd, KAMERA_VIDIOC_STREAMOFF, &type) }
        capturing = false
        changePending = false
        for picture in pictures { for plane in picture { munmap(plane.baseAddress, plane.count) } }
        pictures.removeAll()
        guard fd >= 0 else { return }
        var request = v4l2_requestbuffers()
        (request.type, request.memory, request.count) = (captureType, V4L2_MEMORY_MMAP.rawValue, 0)
        V4L2.ioctl(fd, KAMERA_VIDIOC_REQBUFS, &request)
    }

    private func queuePicture(_ index: Int) throws {
        var buffer = emptyBuffer(type: captureType, index: UInt32(index))
        if device.multiPlanar { buffer.length = UInt32(pictures[index].count) }
        let e = V4L2.ioctl(fd, KAMERA_VIDIOC_QBUF, &buffer)
        guard e == 0 else { throw DecoderFailure(error: fail("cannot queue picture buffer \(index)", e)) }
    }

    /// Takes back the input buffers the decoder has read.
    private func reclaimInputs() {
        while true {
            var buffer = emptyBuffer(type: outputType)
            guard V4L2.ioctl(fd, KAMERA_VIDIOC_DQBUF, &buffer) == 0, Int(buffer.index) < inputQueued.count else { return }
            inputQueued[Int(buffer.index)] = false
        }
    }

    /// Handles the decoder's pending events: at the stream's first header its
    /// pictures are set up; a later change waits for the pictures before it.
    private func handleEvents() throws {
        var changed = false
        var event = v4l2_event()
        while V4L2.ioctl(fd, KAMERA_VIDIOC_DQEVENT, &event) == 0 {
            if event.type == UInt32(V4L2_EVENT_SOURCE_CHANGE) { changed = true }
        }
        guard changed else { return }
        if capturing { changePending = true } else { try startCapture() }
    }

    /// Copies a finished picture into `target` and gives its buffer back; false
    /// when none is ready. The last picture before a change sets the pictures up again.
    private func takePicture(into target: FrameBuffer) throws -> Bool {
        guard capturing else { return false }
        var buffer = emptyBuffer(type: captureType)
        let e = V4L2.ioctl(fd, KAMERA_VIDIOC_DQBUF, &buffer)
        if e == EAGAIN { return false }
        // Past the last picture before a change: set up for the stream as it is now.
        if e == EPIPE {
            try startCapture()
            return false
        }
        guard e == 0, Int(buffer.index) < pictures.count else { throw DecoderFailure(error: fail("cannot take a picture", e == 0 ? EINVAL : e)) }
        let index = Int(buffer.index)
        let used = device.multiPlanar ? Int(planes[0].bytesused) : Int(buffer.bytesused)
        let damaged = buffer.flags & UInt32(V4L2_BUF_FLAG_ERROR) != 0
        // An empty buffer (the end before a change) is not a picture.
        let picture = used > 0 && !damaged
        if picture {
            // Multi-planar pictures may start past their planes' beginnings (data_offset).
            let last = pictures[index].count - 1
            let (lumaStart, chromaStart) = device.multiPlanar ? (Int(planes[0].data_offset), Int(planes[last].data_offset)) : (0, 0)
            guard lumaStart + lumaEnd <= pictures[index][0].count, chromaStart + chromaEnd <= pictures[index][last].count else {
                throw DecoderFailure(error: CaptureError("\(device): a picture's data starts \(max(lumaStart, chromaStart)) bytes into its buffer, leaving less than \(width)x\(height) NV12"))
            }
            copy(pictures[index], lumaStart: lumaStart, chromaStart: chromaStart, into: target)
        }
        if buffer.flags & UInt32(V4L2_BUF_FLAG_LAST) != 0 || (changePending && used == 0) {
            try startCapture()
        } else {
            try queuePicture(index)
        }
        if damaged { throw CaptureError("a damaged \(format.rawValue) frame: \(device) marked its picture bad") }
        return picture
    }

    /// The camera-sized top-left corner of a picture into `target`, its data
    /// from these offsets in its planes; `takePicture` checked every row's end.
    private func copy(_ picture: [UnsafeMutableRawBufferPointer], lumaStart: Int, chromaStart: Int, into target: FrameBuffer) {
        let luma = target.mutablePlane(0), chroma = target.mutablePlane(1)
        let lumaRow = target.planes[0].bytesPerRow, chromaRow = target.planes[1].bytesPerRow
        let chromaSource = picture[picture.count - 1]
        for y in 0..<height {
            (luma.baseAddress! + y * lumaRow).copyMemory(from: picture[0].baseAddress! + lumaStart + y * pictureRows[0], byteCount: width)
        }
        let chromaBytes = (width + 1) / 2 * 2
        for y in 0..<(height + 1) / 2 {
            (chroma.baseAddress! + y * chromaRow).copyMemory(from: chromaSource.baseAddress! + chromaStart + chromaOffset + y * pictureRows[1], byteCount: chromaBytes)
        }
    }

    /// Milliseconds on the monotonic clock.
    private static func now() -> Int64 { MonotonicClock.nanoseconds / 1_000_000 }

    /// Waits up to `milliseconds` for the decoder (a slice, so that a stop ends the wait).
    private func wait(_ milliseconds: Int64) {
        var poller = pollfd(fd: fd, events: Int16(POLLIN | POLLOUT | POLLPRI), revents: 0)
        let ready = poll(&poller, 1, Int32(max(1, min(milliseconds, 20))))
        // Before its pictures are set up, with its input all read, the decoder answers every poll with POLLERR.
        if ready > 0, poller.revents & Int16(POLLIN | POLLOUT | POLLPRI) == 0 { usleep(2000) }
    }

    public func decodeFrame(_ data: UnsafeRawBufferPointer, into target: FrameBuffer) throws -> Bool {
        precondition(target.format == .nv12 && target.width == width && target.height == height)
        guard data.count <= inputs[0].count else {
            throw CaptureError("a \(format.rawValue) frame of \(data.count) bytes, more than \(device)'s \(inputs[0].count)-byte buffers")
        }
        let deadline = Self.now() + Self.frameTimeoutMilliseconds
        var gotPicture = false
        // A damaged picture of an earlier frame is told after this frame went in, not instead of it.
        var damage: CaptureError?
        func take() throws -> Bool {
            do { return try takePicture(into: target) } catch let error as CaptureError {
                damage = error
                return false
            }
        }
        reclaimInputs()
        var free = inputQueued.firstIndex(of: false)
        while free == nil {
            if StopSignal.isRequested { return false }
            guard Self.now() < deadline else {
                throw DecoderFailure(error: CaptureError("\(device) took no \(format.rawValue) frame in \(Self.frameTimeoutMilliseconds) ms"))
            }
            try handleEvents()
            if try take() { gotPicture = true; continue }
            wait(deadline - Self.now())
            reclaimInputs()
            free = inputQueued.firstIndex(of: false)
        }
        let index = free!
        inputs[index].baseAddress!.copyMemory(from: data.baseAddress!, byteCount: data.count)
        var buffer = emptyBuffer(type: outputType, index: UInt32(index))
        if device.multiPlanar {
            buffer.length = 1
            planes[0].bytesused = UInt32(data.count)
        } else {
            buffer.bytesused = UInt32(data.count)
        }
        sequence += 1
        buffer.timestamp = timeval(tv_sec: sequence / 1_000_000, tv_usec: sequence % 1_000_000)
        let e = V4L2.ioctl(fd, KAMERA_VIDIOC_QBUF, &buffer)
        guard e == 0 else { throw DecoderFailure(error: fail("cannot give it a frame", e)) }
        inputQueued[index] = true

        var readAt: Int64?
        while !StopSignal.isRequested {
            try handleEvents()
            if try take() { return true }
            reclaimInputs()
            let now = Self.now()
            if readAt == nil, !inputQueued[index] { readAt = now }
            // Read, and no picture came of it: a frame the decoder keeps (or needs more stream before);
            // a picture of an earlier frame that came while waiting for a buffer is shown instead.
            if let readAt, now - readAt > Self.pictureGraceMilliseconds {
                if !gotPicture, let damage { throw damage }
                return gotPicture
            }
            guard now < deadline else {
                throw DecoderFailure(error: CaptureError("\(device) read no \(format.rawValue) frame in \(Self.frameTimeoutMilliseconds) ms"))
            }
            wait(deadline - now)
        }
        return gotPicture
    }
}
