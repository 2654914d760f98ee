import Glibc
import Lifecycle
import Render

/// The recording started and stopped while a live run goes on (the r key,
/// the server page's Record button). Each start makes the next free
/// `kamera-recording-0001.mp4` (then 0002, …) in the folder, never taking a
/// name a file already has; each stop finishes that file on a thread of its
/// own, so the render loop never waits for the encoder to drain.
public final class RecordingToggle: FrameSink {
    private var names: NumberedNames
    private let settings: VideoSettings
    private let live: Bool
    private var start = SinkStart(rate: 30)
    private var current: VideoRecording?
    /// Recordings being finished, each on its thread.
    private var finishing: [JoinableThread] = []

    /// `settings`: the run's video settings (codec, quality); `live`: frames stamped by the camera's clock.
    public init(folder: String = ".", prefix: String = "kamera-recording-", settings: VideoSettings, live: Bool) {
        names = NumberedNames(folder: folder, prefix: prefix, fileExtension: "mp4")
        var settings = settings
        settings.realTime = true
        self.settings = settings
        self.live = live
    }

    public func start(_ run: SinkStart) throws { start = run }

    /// The file being recorded; nil between recordings.
    public var recording: String? { current?.path }

    /// Starts a recording, or stops the one being made; returns a line saying which.
    public func toggle() throws -> String {
        if let recording = current {
            current = nil
            let note = start.onNote
            finishing.append(JoinableThread(name: "kamera.rec-end") {
                do { try recording.finish() } catch { note("\(error)") }
            })
            return "recording stopped: \(recording.path)"
        }
        let recording = try VideoRecording(path: try freeName(), settings: settings, live: live, rate: start.rate)
        try recording.start(start)
        current = recording
        return "recording \(recording.path)"
    }

    /// The first numbered name no file has.
    private func freeName() throws -> String {
        while let path = names.nextPath() {
            if access(path, F_OK) != 0 { return path }
        }
        throw names.exhausted("recording")
    }

    public func consume(_ frame: RenderedFrame) throws {
        try current?.consume(frame)
    }

    public func flush() throws { try current?.flush() }

    public func finish() throws {
        defer {
            for thread in finishing { thread.join() }
            finishing.removeAll()
        }
        let recording = current
        current = nil
        try recording?.finish()
    }

    public func saveWritten() {
        current?.saveWritten()
        for thread in finishing { thread.join() }
        finishing.removeAll()
    }

    public var statusText: String? { current.map { "rec \($0.encoded) to \($0.path)" } }
}
