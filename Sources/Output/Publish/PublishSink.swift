import Capture
import CFFmpeg
import Foundation
import Lifecycle
import Messages
import Pixels
import Render

/// `-o rtmp://HOST/APP/KEY`, `-o srt://HOST:PORT`, `-o rtsp://HOST:PORT/PATH`:
/// the picture published live to a media server, H.264 without B-frames
/// (x264 `zerolatency`), key frames `--gop` apart (default one a
/// second), with the run's sound (`--audio`) in AAC beside it, through
/// libavformat on a thread of its own. The render loop
/// never waits for it: a frame it has not taken is replaced by the next
/// (counted). When the server cannot be reached or goes away, the run goes
/// on, frames are counted as dropped, and it connects again (after 1 s,
/// then twice as long each time, at most 10 s), saying so once per change.
public final class PublishSink: FrameSink, SinkKind {
    public static let forms = OutputForms(name: "stream", schemes: ["rtmp", "rtmps", "srt", "rtsp"], sequences: false,
                                          help: "a live stream \(PublishTarget.forms)")

    public static func make(_ request: OutputRequest, run: SinkRun) throws -> FrameSink {
        let target = try PublishTarget(parsing: request.name)
        var settings = run.settings.video
        settings.realTime = true
        settings.strip = run.settings.strip
        if settings.faststart { throw OutputError(.faststart, is: "for .mp4 files", "a live stream has no index to move") }
        let choice = try VideoRecording.encoder(for: settings.codec, container: .mp4)
        guard choice.codec == .h264 else {
            throw OutputError(.codec, choice.codec.rawValue, is: "not what a live stream carries here", "publish H.264 (leave \(Setting.codec) out)")
        }
        let sound = try run.sound.take(live: run.isLive)
        try AudioTrack.checkCodec(settings.audioCodec, hasSound: sound != nil, container: VideoDestination.networkContainer, purpose: "sending")
        return PublishSink(target, settings: settings, rate: run.rate, sound: sound)
    }

    struct Facts {
        var width: Int, height: Int
        var timestamp: UInt64
    }

    private let target: PublishTarget
    private let settings: VideoSettings
    private var rate: Double
    private var onNote: (String) -> Void = { _ in }
    private let slot = LatestFrameSlot<Facts>()
    /// Raised to end libavformat's waits on the network (`kamera_interrupt_callback`).
    private let interrupt = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
    private let lock = ConditionLock()
    private var thread: JoinableThread?
    private var done = false
    private var sentFrames = 0, droppedOffline = 0, connections = 0
    private var connected = false
    /// `--audio`: the sound captured beside the picture, published with it.
    private let sound: AudioCapture?
    /// Sound waiting for the publishing thread (under `lock`); five seconds
    /// ride out a stalled connection before the oldest goes.
    private let soundRing: SoundRing?
    /// Seconds of sound sent, over every connection.
    private var soundSent = 0.0

    init(_ target: PublishTarget, settings: VideoSettings, rate: Double, sound: AudioCapture? = nil) {
        self.target = target
        self.settings = settings
        self.rate = rate
        self.sound = sound
        soundRing = sound.map { SoundRing(for: $0, seconds: 5) }
        interrupt.initialize(to: 0)
        sound?.subscribe { [weak self] chunk in self?.takeSound(chunk) }
    }

    /// On the capture thread: kept for the publishing thread.
    private func takeSound(_ chunk: AudioCapture.Chunk) {
        lock.withLock { soundRing?.push(chunk) }
    }

    deinit {
        stop()
        interrupt.deallocate()
    }

    public func start(_ run: SinkStart) throws {
        rate = run.rate
        onNote = run.onNote
    }

    public func consume(_ frame: RenderedFrame) throws {
        if thread == nil {
            thread = JoinableThread(name: "kamera.publish") { [unowned self] in work() }
            sound?.start()
        }
        let pixels = try frame.pixels()
        slot.offer(UnsafeRawBufferPointer(rebasing: pixels[0..<frame.width * frame.height * 4]),
                   Facts(width: frame.width, height: frame.height, timestamp: frame.input.timestamp))
    }

    public func finish() throws {
        // The sound ends with the picture's last frame.
        sound?.stop()
        stop()
        let (sent, dropped) = counts
        guard sent > 0 || dropped > 0 else { return }
        var text = "\(target.url): \(sent) frames published, \(dropped) dropped"
        if sound != nil {
            let (seconds, lost) = lock.withLock { (soundSent, soundRing?.dropped ?? 0) }
            text += String(format: "; sound %.1f s", seconds) + (lost > 0 ? " (\(lost) chunks dropped while the stream was behind)" : "")
        }
        onNote(text)
    }

    public func saveWritten() { stop() }

    /// Frames sent, and frames dropped (while the stream was behind or the server away).
    public var counts: (sent: Int, dropped: Int) {
        let replaced = slot.replaced
        return lock.withLock { (sentFrames, droppedOffline + replaced) }
    }

    public var statusText: String? {
        let (sent, dropped) = counts
        return lock.withLock { connected } ? "live \(sent), dropped \(dropped)" : "live: connecting, dropped \(dropped)"
    }

    /// Ends the thread: the stream finished when the server takes it within 3 s, else cut off.
    private func stop() {
        guard let thread else { return }
        slot.close()
        let ended = lock.withLock { () -> Bool in
            let deadline = MonotonicClock.seconds + 3
            while !done, MonotonicClock.seconds < deadline { lock.wait(seconds: deadline - MonotonicClock.seconds) }
            return done
        }
        if !ended { kamera_raise_flag(interrupt) }
        thread.join()
        self.thread = nil
    }

    // MARK: The publishing thread

    private func work() {
        var encoder: VideoEncoder?
        var origin: UInt64 = 0
        /// The end in seconds of the last frame sent: sound is sent up to it.
        var pictureEnd = 0.0
        let scratch = UnsafeMutableBufferPointer<Int16>.allocate(capacity: soundRing?.chunkSamples ?? 0)
        defer { scratch.deallocate() }
        /// Sends the sound waiting that ends by `horizon` seconds (nothing after `end`).
        func sendSound(upTo horizon: Double, end: Double) throws {
            guard let encoder, let soundRing else { return }
            while let chunk = lock.withLock({ soundRing.oldestEnds(by: horizon, after: origin) ? soundRing.pop(into: scratch, after: origin) : nil }) {
                try encoder.appendSound(UnsafeBufferPointer(rebasing: scratch[0..<(chunk.frames * soundRing.channels)]),
                                        frames: chunk.frames, start: chunk.start, end: end)
            }
        }
        /// Counts the sound an encoder sent before it goes.
        func countSound(_ encoder: VideoEncoder) {
            let seconds = encoder.audio?.seconds ?? 0
            lock.withLock { soundSent += seconds }
        }
        var retryAt = 0.0, backoff = 1.0
        var lastProblem: String?
        let destination = VideoDestination.network(url: target.url, muxer: target.muxer, options: target.options,
                                                   interrupt: kamera_interrupt_callback(interrupt))
        while let (pixels, facts) = slot.take() {
            if encoder == nil {
                let now = MonotonicClock.seconds
                // Sound captured while no server takes it is not kept.
                lock.withLock { soundRing?.removeAll() }
                guard now >= retryAt else {
                    lock.withLock { droppedOffline += 1 }
                    continue
                }
                do {
                    encoder = try VideoEncoder(destination, settings: settings, width: facts.width, height: facts.height, rate: rate, live: true,
                                               sound: sound.map { ($0.rate, $0.channels) })
                    origin = facts.timestamp
                    backoff = 1
                    lastProblem = nil
                    let (first, dropped) = lock.withLock { () -> (Bool, Int) in
                        connections += 1
                        connected = true
                        return (connections == 1, droppedOffline)
                    }
                    onNote(first ? "publishing \(facts.width)x\(facts.height) H.264\(sound == nil ? "" : " with AAC sound") to \(target.url)"
                                 : "publishing to \(target.url) again (\(dropped) frames dropped while it was away)")
                } catch {
                    if interrupt.pointee != 0 { break }
                    let problem = "\(error)"
                    if problem != lastProblem {
                        onNote("\(problem); the run goes on, trying again every \(Int(backoff)) s up to 10 s")
                        lastProblem = problem
                    }
                    retryAt = now + backoff
                    backoff = min(backoff * 2, 10)
                    lock.withLock { droppedOffline += 1 }
                    continue
                }
            }
            let pts = Int64((facts.timestamp &- origin) / 1000) * 9 / 100
            do {
                try encoder!.encode(UnsafeRawBufferPointer(rebasing: pixels[0..<facts.width * facts.height * 4]), pts: pts)
                lock.withLock { sentFrames += 1 }
                pictureEnd = Double(pts) / 90000 + 1 / rate
                try sendSound(upTo: pictureEnd, end: .infinity)
            } catch {
                countSound(encoder!)
                encoder!.abandon()
                encoder = nil
                lock.withLock {
                    connected = false
                    droppedOffline += 1
                }
                if interrupt.pointee != 0 { break }
                let problem = "\(error)"
                onNote("lost \(target.url) (\(problem)); the run goes on, connecting again")
                lastProblem = problem
                retryAt = MonotonicClock.seconds + 1
                backoff = 2
            }
        }
        if let encoder {
            do {
                try sendSound(upTo: .infinity, end: pictureEnd)
                countSound(encoder)
                try encoder.finish(soundEnd: pictureEnd)
            } catch {
                encoder.abandon()
            }
        }
        lock.withLock {
            done = true
            connected = false
            lock.broadcast()
        }
    }
}
