/// `-o clip.mp4` (or `.mov`, `.mkv`, `.webm`): a recording, with the run's sound.
extension VideoRecording: SinkKind {
    public static let forms = OutputForms(name: "video", extensions: VideoContainer.allCases.map(\.rawValue), sequences: false,
                                          help: "a video NAME.mp4|.mov|.mkv|.webm")

    public static func make(_ request: OutputRequest, run: SinkRun) throws -> FrameSink {
        let sound = try run.sound.take(live: run.isLive)
        var settings = run.settings.video
        settings.realTime = run.isLive
        settings.strip = run.settings.strip
        return try VideoRecording(path: request.name, settings: settings, live: run.cameraStamps, rate: run.rate, sound: sound)
    }

    public func start(_ run: SinkStart) throws {
        rate = run.rate
        onNote = run.onNote
    }

    public func saveWritten() { try? finish() }
    public var written: Int? { encoded }
}
