import Lifecycle
import Output
import Pixels
import Render

/// Runs analysers on their own thread, beside the frame loop. The loop
/// `offer`s each frame; its luma is copied into one of two buffers made once
/// (and again only when the frame size grows), so the frame's own memory goes
/// straight back to its source and at most two copies exist. A frame that
/// comes sooner than `--analyze-rate` allows is skipped; one that comes while
/// the analysers are still busy with the last is skipped on live runs (the
/// loop never waits), and waited for on offline runs (every frame analysed,
/// the same metadata on every run). Skips are counted. Results go to
/// `onRecord` and to `records`, on the analysis thread. The thread is joined
/// by `finish()`, and in `deinit` on every other path.
public final class FrameAnalysis {
    public enum WhenBusy: Sendable {
        /// Skip the frame: live runs, which must keep their pace.
        case skip
        /// Wait for the analysers: offline runs, which analyse every frame.
        case wait
    }

    public let analyzers: [FrameAnalyzer]
    public let whenBusy: WhenBusy
    /// Seconds of frame time between analysed frames (from the rate), 0 for none.
    public let interval: Double
    /// Hears each record on the analysis thread; an error ends the run at the next `offer` or at `finish`.
    public var onRecord: ((MetadataRecord) throws -> Void)?

    /// Written by the loop's thread while free, read by the analysis thread while taken.
    private let buffers = [LumaBuffer(), LumaBuffer()]
    private let state = ConditionLock()
    // Guarded by `state`.
    private var pending: Job?
    private var analysing: Int?
    private var stopping = false
    private var failure: Error?
    private var newestRecord: MetadataRecord?
    private var counts = (analysed: 0, busy: 0, rate: 0)
    private var lastTime: Double?
    private var lastTaken: Int?
    private var continuation: AsyncStream<MetadataRecord>.Continuation?
    private var thread: JoinableThread?

    private struct Job {
        let buffer: Int
        let width: Int
        let height: Int
        let range: YUVColorSpace.Range
        let frame: Int
        let sequence: UInt64
        let timestamp: Double
        let geometry: OutputGeometry?
    }

    /// `rate`: at most this many frames a second of frame time (nil: as many as they keep up with).
    public init(analyzers: [FrameAnalyzer], whenBusy: WhenBusy, rate: Double? = nil) {
        self.analyzers = analyzers
        self.whenBusy = whenBusy
        interval = rate.map { 1 / $0 } ?? 0
        thread = JoinableThread(name: "kamera.analyse") { [unowned self] in self.work() }
    }

    deinit { stop() }

    /// One copy of a frame's luma, made once and grown when a frame is larger.
    private final class LumaBuffer {
        private(set) var pixels = UnsafeMutableBufferPointer<UInt8>(start: nil, count: 0)

        func reserve(_ count: Int) {
            guard pixels.count < count else { return }
            pixels.deallocate()
            pixels = .allocate(capacity: count)
        }

        deinit { pixels.deallocate() }
    }

    /// The records as an `AsyncSequence`, ending when the analysis finishes; ask before the first frame.
    public lazy var records: AsyncStream<MetadataRecord> = AsyncStream { continuation in
        state.withLock { self.continuation = continuation }
    }

    /// Frames analysed, skipped because the analysers were busy, and skipped for the rate.
    public var statistics: (analysed: Int, skippedBusy: Int, skippedRate: Int) {
        state.withLock { (counts.analysed, counts.busy, counts.rate) }
    }

    /// The newest record, for overlays drawing what was found.
    public var newest: MetadataRecord? { state.withLock { newestRecord } }

    /// The record an overlay draws over frame `index`: on offline runs, that
    /// frame's own once it is analysed (so every run draws the same); on live
    /// runs, and for a frame not taken, the newest there is, without waiting.
    public func record(for index: Int) -> MetadataRecord? {
        state.withLock {
            if whenBusy == .wait && lastTaken == index {
                // A stop asked meanwhile (Ctrl-C) ends the wait: the loop never waits on an analyser then.
                while newestRecord?.frame != index && failure == nil && !stopping && !StopSignal.isRequested { _ = state.wait(seconds: 0.05) }
            }
            return newestRecord
        }
    }

    /// Takes frame `index` for analysis, or skips it (see the type's description);
    /// `geometry`: where its pixels land on the output.
    public func offer(_ frame: Frame, index: Int, geometry: OutputGeometry? = nil) throws {
        let time = Double(frame.timestamp) / 1e9
        let target: Int? = try state.withLock {
            if let failure { throw failure }
            if let last = lastTime, interval > 0, time - last < interval - 1e-9 {
                counts.rate += 1
                return nil
            }
            while pending != nil && whenBusy == .wait && failure == nil && !StopSignal.isRequested { _ = state.wait(seconds: 0.05) }
            if let failure { throw failure }
            if StopSignal.isRequested { return nil }
            if pending != nil {
                counts.busy += 1
                return nil
            }
            // The buffer the analysers are not reading.
            return analysing == 0 ? 1 : 0
        }
        guard let target else { return }
        // Only this thread writes the free buffer; the analysers read the other.
        buffers[target].reserve(frame.width * frame.height)
        LumaCopy.copy(frame, into: buffers[target].pixels.baseAddress!)
        state.withLock {
            lastTime = time
            lastTaken = index
            pending = Job(buffer: target, width: frame.width, height: frame.height, range: LumaCopy.range(of: frame.format, frame.colorSpace),
                          frame: index, sequence: frame.sequence, timestamp: time, geometry: geometry)
            state.broadcast()
        }
    }

    /// Waits for the frames taken, then stops and joins the thread; throws what `onRecord` threw.
    public func finish() throws {
        try state.withLock {
            while (pending != nil || analysing != nil) && failure == nil { state.wait() }
            if let failure { throw failure }
        }
        stop()
    }

    /// Stops the thread after the frame in hand and joins it, dropping a frame not yet taken.
    public func stop() {
        state.withLock {
            stopping = true
            pending = nil
            state.broadcast()
        }
        thread?.join()
        state.withLock {
            continuation?.finish()
            continuation = nil
        }
    }

    private func work() {
        while true {
            let job: Job? = state.withLock {
                while pending == nil && !stopping { state.wait() }
                guard let job = pending, !stopping else { return nil }
                pending = nil
                analysing = job.buffer
                state.broadcast()
                return job
            }
            guard let job else { return }
            let image = LumaImage(width: job.width, height: job.height, pixels: UnsafeBufferPointer(buffers[job.buffer].pixels), range: job.range,
                                  time: job.timestamp, geometry: job.geometry)
            var record = MetadataRecord(frame: job.frame, sequence: job.sequence, timestamp: job.timestamp)
            var error: Error?
            do {
                for analyzer in analyzers { record.results.append((analyzer.name, try analyzer.analyze(image))) }
                try onRecord?(record)
            } catch let e { error = e }
            state.withLock {
                analysing = nil
                counts.analysed += 1
                newestRecord = record
                if failure == nil { failure = error }
                continuation?.yield(record)
                state.broadcast()
            }
        }
    }
}
