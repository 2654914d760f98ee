import Capture
import Lifecycle
import Messages
import Pixels
import Render

/// `-o /dev/videoN`: the picture as a camera other programs read (video-call
/// apps, browsers), through a v4l2loopback device. The format is set on the
/// first frame (`--v4l2-format`, YUYV by default; even sizes, the run's
/// rate) and each frame written whole, converted and written on a thread of
/// its own: the render loop never waits for the device, a frame the writer
/// has not taken is replaced by the next (counted).
public final class VirtualCameraSink: FrameSink, SinkKind {
    public static let forms = OutputForms(name: "virtual camera", videoDevices: true, sequences: false,
                                          help: "/dev/videoN (a v4l2loopback virtual camera)")

    public static func make(_ request: OutputRequest, run: SinkRun) throws -> FrameSink {
        let format = run.settings.v4l2Format
        guard RGBAToCameraFormat.formats.contains(format) else {
            throw OutputError(.v4l2Format, format.name, is: "not one a virtual camera writes", "use \(RGBAToCameraFormat.names)")
        }
        return VirtualCameraSink(device: try VideoOutputDevice(path: request.name), format: format, rate: run.rate)
    }

    struct Facts {
        var width: Int, height: Int
    }

    private let device: VideoOutputDevice
    private let converter: RGBAToCameraFormat
    private var rate: Double
    private var onNote: (String) -> Void = { _ in }
    private let slot = LatestFrameSlot<Facts>()
    private let lock = Lock()
    private var thread: JoinableThread?
    private var size: (width: Int, height: Int)?
    private var failure: Error?
    private var writtenFrames = 0, refused = 0

    init(device: VideoOutputDevice, format: PixelFormat, rate: Double) {
        self.device = device
        converter = RGBAToCameraFormat(format)
        self.rate = rate
    }

    deinit { stop() }

    public func start(_ run: SinkStart) throws {
        rate = run.rate
        onNote = run.onNote
    }

    public func consume(_ frame: RenderedFrame) throws {
        if let failure = lock.withLock({ failure }) { throw failure }
        if let size, size != (frame.width, frame.height) {
            throw OutputError("\(device.path): the frames changed size from \(size.width)x\(size.height) to \(frame.width)x\(frame.height); a camera keeps one size (fix it with \(Setting.size))")
        }
        if size == nil {
            let format = converter.format
            if format != .rgb24 && (frame.width % 2 != 0 || frame.height % 2 != 0) {
                throw OutputError("\(device.path): the picture is \(frame.width)x\(frame.height); a \(RGBAToCameraFormat.name(of: format)) camera takes even sizes: "
                                  + "\(Setting.size) \(frame.width & ~1)x\(frame.height & ~1)")
            }
            try device.setFormat(format, width: frame.width, height: frame.height,
                                 size: converter.frameSize(width: frame.width, height: frame.height), rate: rate)
            size = (frame.width, frame.height)
            thread = JoinableThread(name: "kamera.v4l2") { [unowned self] in work() }
            onNote("\(device.path) (\(device.card)): a camera of \(frame.width)x\(frame.height) \(RGBAToCameraFormat.name(of: format)) at \(JSONNumber.format(rate, decimals: 2)) fps")
        }
        let pixels = try frame.pixels()
        slot.offer(UnsafeRawBufferPointer(rebasing: pixels[0..<frame.width * frame.height * 4]), Facts(width: frame.width, height: frame.height))
    }

    public func finish() throws {
        stop()
        if let failure = lock.withLock({ failure }) { throw failure }
        let (written, dropped) = counts
        if written > 0 || dropped > 0 { onNote("\(device.path): \(written) frames written, \(dropped) dropped") }
    }

    public func saveWritten() { stop() }

    /// Frames written, and frames dropped (replaced before the writer took them, or refused by the driver).
    public var counts: (written: Int, dropped: Int) {
        let replaced = slot.replaced
        return lock.withLock { (writtenFrames, refused + replaced) }
    }

    public var statusText: String? {
        let (written, dropped) = counts
        return "camera \(written), dropped \(dropped)"
    }


    private func stop() {
        slot.close()
        thread?.join()
        thread = nil
        device.close()
    }

    // MARK: The writing thread

    private func work() {
        while let (pixels, facts) = slot.take() {
            converter.convert(pixels, width: facts.width, height: facts.height)
            do {
                let took = try device.write(UnsafeRawBufferPointer(converter.bytes))
                lock.withLock { if took { writtenFrames += 1 } else { refused += 1 } }
            } catch {
                lock.withLock { failure = error }
                return
            }
        }
    }
}
