import Capture

/// Sound chunks waiting for an encoder thread: a ring of slots made once,
/// filled on the capture thread and emptied on the encoder's. Not locked:
/// its owner calls it under its own lock. When full, the oldest chunk goes
/// (counted).
final class SoundRing {
    final class Chunk {
        fileprivate(set) var samples: UnsafeMutableBufferPointer<Int16>
        fileprivate(set) var frames = 0
        fileprivate(set) var timestamp: UInt64 = 0
        init(capacity: Int) { samples = .allocate(capacity: capacity) }
        deinit { samples.deallocate() }

        /// Seconds from `origin` (monotonic nanoseconds) to the chunk's first sample; negative before it.
        func start(after origin: UInt64) -> Double { Double(Int64(bitPattern: timestamp &- origin)) / 1e9 }
    }

    let rate: Int, channels: Int
    /// The samples a chunk holds at most (frames times channels).
    let chunkSamples: Int
    private let slots: [Chunk]
    private var head = 0
    private(set) var count = 0
    /// Chunks lost because the ring was full.
    private(set) var dropped = 0

    /// Room for `seconds` of `capture`'s chunks.
    init(for capture: AudioCapture, seconds: Double) {
        rate = capture.rate
        channels = capture.channels
        chunkSamples = capture.chunkFrames * capture.channels
        let chunks = max(2, Int((seconds * Double(capture.rate) / Double(max(1, capture.chunkFrames))).rounded(.up)))
        slots = (0..<chunks).map { _ in Chunk(capacity: capture.chunkFrames * capture.channels) }
    }

    /// Keeps a copy of `chunk`; the oldest goes when the ring is full.
    func push(_ chunk: AudioCapture.Chunk) {
        if count == slots.count {
            head = (head + 1) % slots.count
            count -= 1
            dropped += 1
        }
        let slot = slots[(head + count) % slots.count]
        let samples = min(chunk.samples.count, slot.samples.count)
        _ = slot.samples.initialize(from: chunk.samples.prefix(samples))
        slot.frames = samples / max(1, channels)
        slot.timestamp = chunk.timestamp
        count += 1
    }

    /// The oldest chunk waiting, left in place.
    var oldest: Chunk? { count > 0 ? slots[head] : nil }

    /// Whether the oldest chunk ends by `horizon` seconds after `origin`.
    func oldestEnds(by horizon: Double, after origin: UInt64) -> Bool {
        guard let chunk = oldest else { return false }
        return chunk.start(after: origin) + Double(chunk.frames) / Double(rate) <= horizon
    }

    /// Copies the oldest chunk's samples into `scratch` (`chunkSamples` long)
    /// and removes it: its frames, and its start in seconds after `origin`.
    func pop(into scratch: UnsafeMutableBufferPointer<Int16>, after origin: UInt64) -> (frames: Int, start: Double)? {
        guard let chunk = oldest else { return nil }
        _ = scratch.initialize(from: chunk.samples.prefix(chunk.frames * channels))
        head = (head + 1) % slots.count
        count -= 1
        return (chunk.frames, chunk.start(after: origin))
    }

    /// Forgets every chunk waiting (not counted as dropped).
    func removeAll() {
        head = 0
        count = 0
    }
}
