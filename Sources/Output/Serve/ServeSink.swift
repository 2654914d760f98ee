import Foundation
import Lifecycle
import Messages
import Pixels
import Render

/// Serves the live picture over HTTP (`--serve PORT`, `-o http://HOST:PORT`):
/// MJPEG to any number of clients, each frame encoded once and only while
/// someone watches, off the render thread.
public final class ServeSink: FrameSink, SinkKind {
    public static let forms = OutputForms(name: "server", schemes: ["http"], sequences: false,
                                          help: "http://HOST:PORT (the live picture served, as --serve PORT)")

    public static func make(_ request: OutputRequest, run: SinkRun) throws -> FrameSink {
        let address = try ServeAddress(parsing: request.name)
        let settings = run.settings.serve
        try settings.check()
        if !address.isLoopback && settings.credentials == nil {
            throw OutputError(.serve, address.description, is: "reachable from other machines",
                              "add \(Setting.auth) USER:PASSWORD (clients open http://USER:PASSWORD@HOST:\(address.port)/), or serve on 127.0.0.1")
        }
        return try ServeSink(address: address, settings: settings, jpeg: run.settings.jpeg)
    }

    private let settings: ServeSettings
    private let server: MJPEGServer
    private let encoder: StreamEncoder
    private var rate: RateGate
    private let started = MonotonicClock.seconds
    private let recordLock = Lock()
    private var latestRecord: MetadataRecord?
    /// The recording being made from the page or the r key, under `recordLock`.
    private var recording: String?
    /// Where the server listens (the port the system gave for port 0).
    public var address: ServeAddress { server.address }

    init(address: ServeAddress, settings: ServeSettings, jpeg: JPEGSettings) throws {
        self.settings = settings
        rate = RateGate(fps: settings.fps)
        var quality = jpeg
        quality.subsampling = .s420
        let state = StateText()
        server = try MJPEGServer(address, settings: settings, state: { state.make() })
        encoder = try StreamEncoder(stream: server.stream, settings: quality)
        state.make = { [unowned self] in stateJSON() }
    }

    public func start(_ run: SinkStart) throws {
        run.onNote("serving \(server.address) (the stream at \(server.address)stream, a snapshot at \(server.address)snapshot)")
    }

    public func consume(_ frame: RenderedFrame) throws {
        guard server.stream.isWanted, rate.isDue() else { return }
        let facts = StreamEncoder.Facts(width: frame.width, height: frame.height, timestamp: Double(frame.input.timestamp) / 1e9)
        if let jpeg = frame.cameraJPEG, let length = JPEGImage.passableLength(jpeg) {
            // An MJPEG camera's picture that nothing changed: its own JPEG, not decoded and encoded again.
            try encoder.offer(jpeg: UnsafeRawBufferPointer(rebasing: jpeg[0..<length]), facts)
        } else {
            try encoder.offer(try frame.pixels(), facts)
        }
    }

    /// From the analysis thread: the analysers' record of a frame, for `/events`
    /// and, the latest, for `/state` (which the page shows).
    public func publish(_ record: MetadataRecord) {
        recordLock.withLock { latestRecord = record }
        guard server.stream.hasListeners else { return }
        server.stream.publish(event: record.json)
    }

    /// From the render thread: the recording started (its path) or stopped (nil), for `/state`.
    public func recordingChanged(_ path: String?) { recordLock.withLock { recording = path } }

    /// From the render thread: what a client asked to change, oldest first.
    public func takeRequest() -> ControlRequest? { server.stream.takeRequest() }

    public func finish() throws { stop() }
    public func saveWritten() { stop() }

    public var statusText: String? {
        let counts = encoder.counts
        return "served \(counts.encoded) to \(server.stream.clientCount)"
    }

    private func stop() {
        encoder.stop()
        server.stop()
    }

    deinit { stop() }

    /// What `/state` answers, set once the sink is whole.
    private final class StateText: @unchecked Sendable {
        var make: () -> String = { "{}" }
    }

    /// `/state`: the picture's size, frames a second encoded since the start, clients, drops, the encoder
    /// and the analysers' latest record (null without analysers).
    private func stateJSON() -> String {
        let counts = encoder.counts
        // On the event loop, where the latest part lives: its size is the picture's.
        let (width, height) = server.stream.latest.map { ($0.width, $0.height) } ?? (0, 0)
        let seconds = max(MonotonicClock.seconds - started, 1e-3)
        let stream = server.stream
        let (record, recording) = recordLock.withLock { (latestRecord, self.recording) }
        return """
        {"width": \(width), "height": \(height), "fps": \(JSONNumber.format(Double(counts.encoded) / seconds, decimals: 2)), \
        "clients": \(stream.clientCount), "connections": \(stream.connections), "frames": \(counts.encoded), \
        "dropped": \(counts.replaced + stream.allClientDrops), "encoder_dropped": \(counts.replaced), "client_dropped": \(stream.allClientDrops), \
        "stalled_closed": \(stream.stalledClosed), "filter": \(JSONText.quoted(stream.filter)), \
        "filters": [\(settings.filters.map(JSONText.quoted).joined(separator: ", "))], "encoder": "libjpeg-turbo", "quality": \(encoder.quality), "passed_through": \(counts.passed), \
        "encode_ms": \(JSONNumber.format(counts.encoded > 0 ? counts.seconds * 1000 / Double(counts.encoded) : 0, decimals: 3)), \
        "recording": \(recording.map(JSONText.quoted) ?? "null"), "analysis": \(record?.json ?? "null")}
        """
    }
}
