import Filters
import Output
import Render

/// What the keys of a live run do, whatever reads them (a terminal, the
/// console under KMS): zoom ramps, next camera, next filter, intensity, cube
/// or preview, a snapshot, quit. Used on the render thread, between frames.
public final class LiveControls: KeyControls {
    public enum Response: Equatable {
        case keepGoing
        case quit
    }

    private let session: SourceSession
    private let zoom: ZoomController
    private var filterNames: [String]
    public private(set) var intensity: Double
    private var presetIndex = -1
    private var previewMode: RenderMode
    private let snapshots: SnapshotWriter
    /// Each snapshot's metadata.
    private let stills: StillFacts
    /// Hears what a key changed, as a short line ("filter: sepia").
    public var onMessage: ((String) -> Void)?
    /// The recording the r key and the server's page start and stop.
    private let recordings: RecordingToggle?
    /// Hears the recording started (its path) or stopped (nil).
    public var onRecording: ((String?) -> Void)?

    /// `filters` and `intensity` as given on the command line, so that
    /// intensity keys rebuild the same chain.
    public init(session: SourceSession, zoom: ZoomController, filters: [String], intensity: Double,
                snapshots: SnapshotWriter, recordings: RecordingToggle? = nil, software: String = "Kamera", strip: Bool = false) {
        self.session = session
        self.recordings = recordings
        self.zoom = zoom
        filterNames = filters
        // `f` goes on from the filter shown: none, or the preset given; from a chain of others, to none first.
        presetIndex = filters.isEmpty ? 0 : FilterPresets.presets.firstIndex { [$0.name] == filters } ?? -1
        self.intensity = intensity
        self.snapshots = snapshots
        stills = StillFacts(session: session, software: software, strip: strip)
        if case .preview = session.renderer.settings.mode {
            previewMode = session.renderer.settings.mode
        } else {
            previewMode = .preview(PreviewLayout())
        }
    }

    /// The keys and what they do, for help texts.
    public static let help = "+ zoom in, - zoom out (ramps; space stops), n next camera, f next filter, [ and ] intensity, c cube or preview, s snapshot (JPEG or PNG), r starts or stops a recording, q quits"

    /// Acts on `key`; `.quit` for q and Escape.
    public func handle(_ key: UInt8) -> Response {
        do {
            switch key {
            case UInt8(ascii: "q"), 27: return .quit
            case UInt8(ascii: "+"), UInt8(ascii: "="): zoom.rampZoom(to: zoom.ramp.range.maxFactor, rate: 1)
            case UInt8(ascii: "-"), UInt8(ascii: "_"): zoom.rampZoom(to: 1, rate: 1)
            case UInt8(ascii: " "): zoom.cancelZoomRamp()
            case UInt8(ascii: "n"): try nextCamera()
            case UInt8(ascii: "f"): try nextFilter()
            case UInt8(ascii: "["): try setIntensity(intensity - 0.1)
            case UInt8(ascii: "]"): try setIntensity(intensity + 0.1)
            case UInt8(ascii: "c"): try toggleCube()
            case UInt8(ascii: "s"): try snapshot()
            case UInt8(ascii: "r"): try record(nil)
            default: break
            }
        } catch {
            onMessage?("\(Character(UnicodeScalar(key))): \(error)")
        }
        return .keepGoing
    }

    public func apply(_ request: ControlRequest) {
        switch request {
        case .filter(let name):
            do {
                presetIndex = FilterPresets.presets.firstIndex { $0.name == name } ?? presetIndex
                filterNames = name == "none" ? [] : [name]
                try applyFilters()
                onMessage?("filter: \(name)")
            } catch {
                onMessage?("filter \(name): \(error)")
            }
        case .record(let start):
            do {
                try record(start)
            } catch {
                onMessage?("record: \(error)")
            }
        }
    }

    /// Starts (true) or stops (false) the recording, or either (nil).
    private func record(_ start: Bool?) throws {
        guard let recordings else { return }
        let recording = recordings.recording
        if let start, start == (recording != nil) {
            onMessage?(recording.map { "already recording \($0)" } ?? "no recording to stop")
            return
        }
        onMessage?(try recordings.toggle())
        onRecording?(recordings.recording)
    }

    private func nextCamera() throws {
        let path = try session.nextCamera()
        zoom.attach(to: session.source)
        onMessage?("camera: \(session.source?.summary ?? path)")
    }

    private func nextFilter() throws {
        let presets = FilterPresets.presets
        presetIndex = (presetIndex + 1) % presets.count
        filterNames = [presets[presetIndex].name]
        try applyFilters()
        onMessage?("filter: \(presets[presetIndex].name)")
    }

    private func setIntensity(_ value: Double) throws {
        intensity = (min(1, max(0, value)) * 10).rounded() / 10
        try applyFilters()
        onMessage?("intensity: \(intensity)")
    }

    private func applyFilters() throws {
        var settings = session.renderer.settings
        settings.filters = try FilterChain(parsing: filterNames, intensity: Float(intensity))
        try session.renderer.update(settings)
    }

    private func toggleCube() throws {
        var settings = session.renderer.settings
        if case .cube = settings.mode {
            settings.mode = previewMode
        } else {
            previewMode = settings.mode
            settings.mode = .cube
        }
        try session.renderer.update(settings)
        onMessage?(settings.mode == .cube ? "cube" : "preview")
    }

    private func snapshot() throws {
        let renderer = session.renderer
        guard let size = renderer.lastOutputSize else { return }
        let path = try snapshots.save(try renderer.readBack(), width: size.width, height: size.height,
                                      metadata: stills.metadata())
        onMessage?("saved \(path)")
    }
}

/// What the keys of a live run do; the frame loop hands it each key.
public protocol KeyControls: AnyObject {
    /// Acts on `key`; `.quit` ends the run.
    func handle(_ key: UInt8) -> LiveControls.Response
    /// Acts on what a client of the server asked.
    func apply(_ request: ControlRequest)
}

extension KeyControls {
    public func apply(_ request: ControlRequest) {}
}
