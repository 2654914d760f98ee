import Messages
import Render
import Capture
import CFFmpeg
import Foundation
import Lifecycle
import Pixels

/// `-o NAME.mp4|.mov|.mkv|.webm`: every rendered frame, encoded on a thread
/// of its own behind a queue of a few frames. When the encoder falls behind,
/// a live run drops the frame (counted; the picture keeps its rate) and an
/// offline run waits, so an export holds every frame.
///
/// The file appears under its name once it holds the first frame whole, and
/// plays at every moment after: fragmented MP4/MOV and Matroska, a fragment
/// (cluster) cut after the first frame and then every half second of
/// picture, each flushed as it is complete, so a run killed outright leaves
/// what it recorded up to the last cut (live runs' encoders hold no frames
/// back for look-ahead), and an older file under the name stays until
/// then. The trailer (index, duration) is written on every other way out;
/// after a failure (a full disk) the file is cut back to its last whole
/// fragment. With `--faststart` an MP4 is one plain file, put in place
/// whole at the end instead.
public final class VideoRecording: FrameSink {
    public let path: String
    public let container: VideoContainer
    public let settings: VideoSettings
    /// The encoder chosen, `libx264`.
    public let encoderName: String
    private let codec: VideoCodec
    /// Stamped from the source's clock (a camera's timestamps, first frame at
    /// 0, so a dropped frame leaves a gap in time) rather than at the rate.
    public let live: Bool
    /// Frames a second, for frame-exact stamps and the encoder's rate control.
    public var rate: Double
    /// Hears each message worth a line (the file in place, its summary).
    public var onNote: ((String) -> Void)?

    private final class Slot {
        var pixels = UnsafeMutableRawBufferPointer(start: nil, count: 0)
        var width = 0, height = 0
        var pts: Int64 = 0
        /// Planar 4:2:0 in the encoder's color space rather than RGBA.
        var planar = false
        var busy = false
        deinit { pixels.deallocate() }
    }

    private let lock = ConditionLock()
    private let slots: [Slot]
    private var queue: [Int] = []
    private var ending = false
    private var failure: Error?
    private var thread: JoinableThread?
    private var droppedFrames = 0, encodedFrames = 0, planarFrames = 0, framesReadInPlace = 0
    /// The color space of the 4:2:0 frames the encoder takes, for the last frame height seen.
    private var planarSpace: (height: Int, space: YUVColorSpace?)?
    private var storedFormat = ""
    private var finished = false
    /// Once the encoder thread is done: what the file holds, finished or (after a failure) cut back; no frames: nothing kept.
    private var kept: VideoEncoder.WholePart?
    /// Whether `kept` is a file cut back after a failure, rather than finished.
    private var cutBack = false

    /// `--audio`: the sound captured beside the picture, into the same file.
    public let sound: AudioCapture?
    /// Sound chunks waiting for the encoder thread.
    private var soundRing: SoundRing?
    /// The picture's time 0 on the monotonic clock (nanoseconds): the first frame's.
    private var origin: UInt64?
    /// The end of the picture in seconds, once the last frame is in.
    private var pictureEnd = Double.infinity
    private var lastPTS: Int64 = 0
    /// The end in seconds of the newest frame queued: sound is encoded up to
    /// it and waits beyond it, so a stop between frames never leaves sound
    /// running past the picture's last frame.
    private var pictureHorizon = 0.0
    private var encoderOpen = false
    private var soundSummary = ""

    /// Checks the container, codec and settings, and that the folder takes
    /// the file; nothing is written before the first frame.
    public init(path: String, settings: VideoSettings, live: Bool, rate: Double, queueLength: Int = 4, sound: AudioCapture? = nil) throws {
        guard let container = VideoContainer(fileExtension: fileExtension(path)) else {
            throw OutputError("\(excerpt(path)): not a video container Kamera writes; use .mp4, .mov, .mkv or .webm")
        }
        if try OutputPattern(path).isSequence {
            throw OutputError("\(excerpt(path)): a video is one file; leave %d out of its name")
        }
        try OutputFile.check(path, example: "clip.\(fileExtension(path))")
        if (try? OutputFile.kind(of: path))?.isInPlace == true, container.isISO, settings.faststart {
            throw OutputError("\(excerpt(path)): \(Setting.faststart) rewrites the file at the end, which a FIFO, a device or a descriptor cannot take; write a file by its name")
        }
        let choice = try Self.encoder(for: settings.codec, container: container)
        if let crf = settings.crf {
            let range = VideoSettings.crfRange(for: choice.codec)
            guard range.contains(crf) else {
                throw OutputError(choice.codec == .ffv1 ? "\(Setting.crf) is for lossy codecs; FFV1 keeps every pixel"
                                  : "\(Setting.crf) \(crf) is out of range for \(choice.codec.rawValue); use \(range.lowerBound) to \(range.upperBound) (lower is better)")
            }
        }
        if let preset = settings.preset, let (problem, remedy) = VideoSettings.presetProblem(preset, encoder: choice.encoder) {
            throw OutputError(.preset, excerpt(preset), is: problem, remedy)
        }
        if let bitrate = settings.bitrate, !(1_000...1_000_000_000).contains(bitrate) {
            throw OutputError(.bitrate, "\(bitrate)", is: "out of range", "use 1k to 1000M bits a second, e.g. 4M")
        }
        if let gop = settings.gop, !(1...10_000).contains(gop.frames(at: rate)) {
            throw OutputError(.gop, gop.text, is: "out of range", "use 1 (every frame a key frame) to 10000 frames, or seconds such as 2s")
        }
        if settings.faststart && !container.isISO {
            throw OutputError(.faststart, is: "for .mp4 and .mov", "Matroska and WebM need no rewrite")
        }
        self.path = path
        self.container = container
        self.settings = settings
        self.encoderName = choice.encoder
        self.codec = choice.codec
        self.live = live
        self.rate = rate
        slots = (0..<max(2, queueLength)).map { _ in Slot() }
        queue.reserveCapacity(slots.count)
        try AudioTrack.checkCodec(settings.audioCodec, hasSound: sound != nil, container: container, purpose: "recording")
        if let sound {
            // Ten seconds of 10 ms chunks (about 2 MB in stereo), allocated once: sound is
            // not dropped while the encoder thread catches up. Two seconds were not enough
            // on a slow machine (a CI run in the VM lost 4.75 s of sound, the tone with it).
            soundRing = SoundRing(for: sound, seconds: 10)
        }
        self.sound = sound
        sound?.subscribe { [weak self] chunk in self?.takeSound(chunk) }
    }

    /// On the capture thread: keeps the chunk for the encoder thread (the oldest goes when the ring is full).
    private func takeSound(_ chunk: AudioCapture.Chunk) {
        lock.withLock {
            guard let soundRing else { return }
            soundRing.push(chunk)
            if encoderOpen { lock.broadcast() }
        }
    }

    deinit { stopThread() }

    /// The encoder for `--codec` (a codec, an encoder name, or nil for the
    /// container's default) in `container`; the error lists what is installed.
    public static func encoder(for name: String?, container: VideoContainer) throws -> (codec: VideoCodec, encoder: String) {
        let requested = name?.lowercased()
        if let requested, let codec = VideoCodec.codec(ofEncoder: requested) {
            guard container.codecs.contains(codec) else { throw containerError(codec, container) }
            guard VideoCodec.isInstalled(requested) else {
                throw OutputError(.codec, "\(requested)", because: "the installed FFmpeg libraries have no such encoder", "installed for \(codec.rawValue): \(installed(codec))")
            }
            return (codec, requested)
        }
        let codec: VideoCodec
        if let requested {
            guard let named = VideoCodec(rawValue: requested == "h265" ? "hevc" : requested == "avc" ? "h264" : requested) else {
                throw OutputError("\(Setting.codec) \(excerpt(requested)) is not a codec Kamera writes; use one of \(VideoCodec.allCases.map(\.rawValue).joined(separator: ", ")) (kamera codecs lists what this machine has)")
            }
            codec = named
        } else {
            codec = container.defaultCodec
        }
        guard container.codecs.contains(codec) else { throw containerError(codec, container) }
        guard let encoder = codec.installedEncoder else {
            throw OutputError("\(Setting.codec) \(codec.rawValue): the installed FFmpeg libraries have no \(codec.rawValue) encoder (\(codec.softwareEncoders.joined(separator: ", "))); install the Debian package libavcodec-extra, or use \(VideoCodec.allCases.filter { $0.installedEncoder != nil && container.codecs.contains($0) }.map(\.rawValue).joined(separator: ", "))")
        }
        return (codec, encoder)
    }

    private static func containerError(_ codec: VideoCodec, _ container: VideoContainer) -> OutputError {
        let homes = VideoContainer.allCases.filter { $0.codecs.contains(codec) }.map { "." + $0.rawValue }.joined(separator: ", ")
        return OutputError("\(codec.rawValue) does not go in .\(container.rawValue); .\(container.rawValue) holds \(container.codecs.map(\.rawValue).joined(separator: ", ")), and \(codec.rawValue) goes in \(homes)")
    }

    private static func installed(_ codec: VideoCodec) -> String {
        let names = (codec.softwareEncoders + codec.hardwareEncoders).filter(VideoCodec.isInstalled)
        return names.isEmpty ? "none" : names.joined(separator: ", ")
    }

    // MARK: The render thread's side

    public func consume(_ frame: RenderedFrame) throws {
        if let failure = lock.withLock({ self.failure }) { throw failure }
        if thread == nil {
            lock.withLock { origin = live ? frame.input.timestamp : UInt64(MonotonicClock.nanoseconds) }
            startThread()
            sound?.start()
        }
        // `origin` is set on this thread, above, before the encoder thread starts.
        let pts = live ? Int64((frame.input.timestamp &- origin!) / 1000) * 9 / 100 : Int64(frame.index)
        let drops = settings.drop.map { $0 == .late } ?? live
        let free: Slot? = lock.withLock {
            while true {
                if let slot = slots.first(where: { !$0.busy }) { return slot }
                if drops || failure != nil {
                    droppedFrames += drops ? 1 : 0
                    return nil
                }
                lock.wait()
            }
        }
        guard let slot = free else {
            if let failure = lock.withLock({ self.failure }) { throw failure }
            return
        }
        // Room for either picture: the planes are converted straight into it, the RGBA one copied.
        if slot.pixels.count < frame.width * frame.height * 4 {
            slot.pixels.deallocate()
            slot.pixels = .allocate(byteCount: frame.width * frame.height * 4, alignment: 64)
        }
        let planar = try planarPicture(frame, into: slot.pixels) != nil
        if !planar {
            let pixels = try frame.pixels()
            slot.pixels.copyMemory(from: UnsafeRawBufferPointer(rebasing: pixels[0..<frame.width * frame.height * 4]))
        }
        (slot.width, slot.height, slot.pts, slot.planar) = (frame.width, frame.height, pts, planar)
        // The sound ends with the last frame recorded, not with one dropped after it.
        lastPTS = pts
        lock.withLock {
            pictureHorizon = seconds(pts)
            slot.busy = true
            queue.append(slots.firstIndex { $0 === slot }!)
            lock.broadcast()
        }
    }

    /// The frame as the encoder's 4:2:0 planes when they can be had without
    /// RGB between (a CPU-converted YUV frame; see `RenderedFrame.yuv420(in:into:)`), written into `destination`.
    private func planarPicture(_ frame: RenderedFrame, into destination: UnsafeMutableRawBufferPointer) throws -> UnsafeRawBufferPointer? {
        guard settings.encoderInput == .auto, case .inMemory = frame.picture else { return nil }
        if planarSpace?.height != frame.height {
            planarSpace = (frame.height, VideoEncoder.planarColorSpace(encoder: encoderName, codec: codec, height: frame.height))
        }
        guard let space = planarSpace?.space else { return nil }
        return try frame.yuv420(in: space, into: destination)
    }

    /// Encodes what is queued, flushes the encoder, writes the trailer and
    /// puts the file in place; throws what went wrong on the way.
    public func finish() throws {
        guard !finished else { return }
        finished = true
        // The sound ends with the picture's last frame.
        sound?.stop()
        lock.withLock { pictureEnd = seconds(lastPTS) }
        stopThread()
        if let failure = lock.withLock({ self.failure }) { throw failure }
        if encodedFrames > 0 { onNote?(summary) }
    }

    /// The end in seconds of the frame stamped `pts`.
    private func seconds(_ pts: Int64) -> Double {
        (live ? Double(pts) / 90000 : Double(pts) / rate) + 1 / rate
    }

    /// Whether the oldest sound chunk waiting can be encoded: it ends within
    /// the picture queued so far, or the picture has ended. Under `lock`.
    private var soundReady: Bool {
        guard encoderOpen, let origin, let soundRing, soundRing.count > 0 else { return false }
        return pictureEnd.isFinite || soundRing.oldestEnds(by: pictureHorizon, after: origin)
    }

    /// Frames dropped because the encoder was behind (live runs).
    public var dropped: Int { lock.withLock { droppedFrames } }
    /// Frames encoded so far.
    public var encoded: Int { lock.withLock { encodedFrames } }

    public var statusText: String? {
        let (encoded, dropped) = lock.withLock { (encodedFrames, droppedFrames) }
        return "rec \(encoded), dropped \(dropped)"
    }

    /// `clip.mp4: 60 frames, h264 (libx264) yuv420p, 1280x720, fragmented MP4`.
    public var summary: String {
        let (encoded, dropped, stored) = lock.withLock { (encodedFrames, droppedFrames, storedFormat) }
        var text = "\(path): \(encoded) frame\(encoded == 1 ? "" : "s"), \(encoderName) \(stored)"
        text += container.isISO ? (settings.faststart ? ", MP4 with its index first" : ", fragmented \(container.rawValue.uppercased())") : ""
        let planar = lock.withLock { planarFrames }
        if planar > 0 {
            text += "; \(planar) of the frames made 4:2:0 straight from the input's YUV"
            let inPlace = lock.withLock { framesReadInPlace }
            if inPlace > 0 { text += ", \(inPlace) handed to the encoder without a copy" }
        }
        if !soundSummary.isEmpty { text += "; " + soundSummary }
        if dropped > 0 { text += "; \(dropped) dropped while the encoder was behind" }
        return text
    }

    /// For a message after a failure: what the file holds, as a reader finds it.
    public var writtenSummary: String? {
        guard let (kept, cutBack) = lock.withLock({ kept.map { ($0, cutBack) } }) else { return nil }
        guard kept.frames > 0 else {
            return "nothing recorded was kept: \(path) is as it was before the run" + (settings.faststart ? " (with \(Setting.faststart) a recording appears only whole)" : "")
        }
        let frames = kept.frames == 1 ? "1 frame" : "\(kept.frames) frames"
        guard cutBack else { return "\(path) holds the \(frames) recorded before it and plays" }
        return "\(path) holds the \(frames) (\(String(format: "%.1f", kept.seconds)) s) recorded before it, cut back to its last whole \(container.isISO ? "fragment" : "cluster"), and plays"
    }

    // MARK: The encoder thread

    private func startThread() {
        thread = JoinableThread(name: "kamera.video") { [unowned self] in work() }
    }

    private func stopThread() {
        lock.withLock {
            ending = true
            lock.broadcast()
        }
        thread?.join()
        thread = nil
    }

    private func work() {
        var file: OutputFile?
        var encoder: VideoEncoder?
        func fail(_ error: Error) {
            lock.withLock {
                if failure == nil { failure = error }
                lock.broadcast()
            }
        }
        let scratch = UnsafeMutableBufferPointer<Int16>.allocate(capacity: soundRing?.chunkSamples ?? 0)
        defer { scratch.deallocate() }
        /// Encodes the sound chunks waiting, up to the picture's end.
        func encodeSound() {
            while let encoder {
                let taken: (frames: Int, start: Double, end: Double)? = lock.withLock {
                    guard soundReady, let origin, let chunk = soundRing?.pop(into: scratch, after: origin) else { return nil }
                    return (chunk.frames, chunk.start, pictureEnd)
                }
                guard let taken else { return }
                do {
                    try encoder.appendSound(UnsafeBufferPointer(rebasing: scratch[0..<(taken.frames * (sound?.channels ?? 1))]),
                                            frames: taken.frames, start: taken.start, end: taken.end)
                } catch {
                    fail(error)
                    return
                }
            }
        }
        while true {
            let next: Slot? = lock.withLock {
                while queue.isEmpty && !ending && !soundReady { lock.wait() }
                return queue.first.map { slots[$0] }
            }
            guard let slot = next else {
                if lock.withLock({ ending }) { break }
                encodeSound()
                continue
            }
            if lock.withLock({ failure == nil }) {
                do {
                    if encoder == nil {
                        let opened = try OutputFile(path: path, example: "clip.\(fileExtension(path))")
                        file = opened
                        encoder = try VideoEncoder(file: opened, container: container, settings: settings, width: slot.width,
                                                   height: slot.height, rate: rate, live: live,
                                                   sound: sound.map { ($0.rate, $0.channels) })
                        lock.withLock {
                            storedFormat = "\(encoder!.pixelFormatName), \(slot.width)x\(slot.height)"
                            encoderOpen = true
                        }
                    }
                    guard slot.width == encoder!.width, slot.height == encoder!.height else {
                        throw OutputError("\(path): the frames changed size from \(encoder!.width)x\(encoder!.height) to \(slot.width)x\(slot.height); a video holds one size")
                    }
                    if slot.planar {
                        try encoder!.encode(planar: UnsafeRawBufferPointer(slot.pixels), pts: slot.pts)
                    } else {
                        try encoder!.encode(UnsafeRawBufferPointer(slot.pixels), pts: slot.pts)
                    }
                    // Under its name once it holds a whole fragment, not before: until then an older file stays.
                    if encoder!.whole.frames > 0 { try file!.publish() }
                    lock.withLock {
                        encodedFrames += 1
                        planarFrames += slot.planar ? 1 : 0
                        framesReadInPlace = encoder!.framesReadInPlace
                    }
                } catch {
                    fail(error)
                }
            }
            lock.withLock {
                queue.removeFirst()
                slot.busy = false
                lock.broadcast()
            }
        }
        // Every way out finishes the file: the trailer written, in place.
        encodeSound()
        let track = encoder?.audio
        defer {
            if let track {
                let dropped = lock.withLock { soundRing?.dropped ?? 0 }
                soundSummary = String(format: "sound %@ %d Hz, %.3f s", track.codecName, track.rate, track.seconds)
                    + (track.resyncs > 0 ? ", \(track.resyncs) resync(s) to the clock" : "") + (dropped > 0 ? ", \(dropped) chunks dropped" : "")
            }
        }
        var finishedWhole = false
        if lock.withLock({ failure == nil }) {
            do {
                try encoder?.finish(soundEnd: lock.withLock { pictureEnd })
                finishedWhole = true
            } catch {
                fail(error)
            }
        }
        if !finishedWhole { encoder?.abandon() }
        let whole = encoder?.whole ?? .init()
        encoder = nil
        do {
            if finishedWhole {
                if encodedFrames > 0 { try file?.commit() } else { file?.discard() }
                let end = lock.withLock { pictureEnd }
                lock.withLock { (kept, cutBack) = (.init(bytes: 0, frames: encodedFrames, seconds: end.isFinite ? end : 0), false) }
            } else {
                try keepWhole(file, whole)
            }
        } catch {
            fail(error)
            file?.discard()
        }
    }

    /// After a failure: the file cut back to its last whole fragment (cluster)
    /// and kept when it was already under its name; else dropped, so that a
    /// file under that name before the run is as it was.
    private func keepWhole(_ file: OutputFile?, _ whole: VideoEncoder.WholePart) throws {
        guard let file, file.isPublished, whole.frames > 0 else {
            file?.discard()
            lock.withLock { kept = .init() }
            return
        }
        lock.withLock { (kept, cutBack) = (whole, true) }
        try file.truncate(to: whole.bytes)
        try file.commit()
    }
}
