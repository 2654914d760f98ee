import Lifecycle
import NIOCore

/// Encodes frames for the stream on a thread of its own, one at a time:
/// the render thread copies a frame in and goes on; a frame still waiting
/// when the next comes is replaced (counted), so the render loop never
/// waits for the encoder. Each frame is encoded once, whatever the number
/// of clients, or not at all when it comes as the camera's own JPEG of the
/// picture (passed through); buffers are reused, so a steady stream allocates nothing.
final class StreamEncoder: @unchecked Sendable {
    struct Facts {
        var width: Int, height: Int
        var timestamp: Double
        /// The bytes are this many of the camera's JPEG, sent as they are; 0: RGBA to encode.
        var jpegCount = 0
    }

    private let stream: LiveStream
    private let encoder: JPEGEncoder
    private let slot = LatestFrameSlot<Facts>()
    private let lock = Lock()
    private var failure: Error?
    private var encodedCount = 0
    private var passedCount = 0
    private var secondsSpent = 0.0
    /// Parts handed to clients; one is reused once every client is done with it.
    private var parts: [ByteBuffer]
    private var nextPart = 0
    private var thread: JoinableThread?

    init(stream: LiveStream, settings: JPEGSettings) throws {
        self.stream = stream
        encoder = try JPEGEncoder(settings: settings)
        parts = (0..<4).map { _ in ByteBuffer() }
        thread = JoinableThread(name: "kamera.serve.jpeg") { [unowned self] in run() }
    }

    deinit { stop() }

    var quality: Int { encoder.settings.quality }

    /// Frames sent (encoded or passed through), those of them passed through as the camera's
    /// JPEG, frames replaced before the encoder took them, and the encoder's busy seconds.
    var counts: (encoded: Int, passed: Int, replaced: Int, seconds: Double) {
        let replaced = slot.replaced
        return lock.withLock { (encodedCount, passedCount, replaced, secondsSpent) }
    }

    /// From the render thread: copies the frame for the encoder; throws what made the encoder stop.
    func offer(_ pixels: UnsafeRawBufferPointer, _ facts: Facts) throws {
        if let failure = lock.withLock({ failure }) { throw failure }
        slot.offer(pixels, facts)
    }

    /// From the render thread: copies the camera's JPEG of the picture, to be sent as it is.
    func offer(jpeg: UnsafeRawBufferPointer, _ facts: Facts) throws {
        if let failure = lock.withLock({ failure }) { throw failure }
        var facts = facts
        facts.jpegCount = jpeg.count
        slot.offer(jpeg, facts)
    }

    /// Ends the thread after the frame it is encoding, if any; joined before it returns.
    func stop() {
        slot.close()
        thread?.join()
        thread = nil
    }

    private func run() {
        while let (pixels, facts) = slot.take() {
            let start = MonotonicClock.seconds
            do {
                let jpeg = facts.jpegCount > 0 ? UnsafeRawBufferPointer(rebasing: pixels[0..<facts.jpegCount])
                    : try encoder.encode(UnsafeRawBufferPointer(rebasing: pixels[0..<(facts.width * facts.height * 4)]),
                                         width: facts.width, height: facts.height, metadata: nil)
                var bytes = ByteBuffer()
                swap(&bytes, &parts[nextPart])
                let (offset, length) = StreamPart.write(jpeg: jpeg, timestamp: facts.timestamp, into: &bytes)
                parts[nextPart] = bytes
                nextPart = (nextPart + 1) % parts.count
                let part = StreamPart(bytes: bytes, jpegOffset: offset, jpegCount: length, timestamp: facts.timestamp,
                                      width: facts.width, height: facts.height, madeAt: MonotonicClock.seconds)
                lock.withLock {
                    encodedCount += 1
                    if facts.jpegCount > 0 { passedCount += 1 }
                    secondsSpent += MonotonicClock.seconds - start
                }
                stream.publish(part)
            } catch {
                lock.withLock { failure = error }
                return
            }
        }
    }
}
