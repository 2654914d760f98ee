import Analysis
import Capture
import Foundation
import GPU
import Logging
import Messages
import Output
import Pixels
import Render

/// Makes a run from its description, in two steps: `init` checks what can be
/// checked before any frame (the outputs, their folders, names that clash)
/// and makes the file outputs; `build` then makes, on the render thread, the
/// GPU context (on the display's card for `kms`), the renderer, the source,
/// the sinks and the frame loop.
public final class RunBuilder {
    public let description: RunDescription
    /// Each `-o`'s sink, in order.
    public let sinks: [FrameSink]
    public let expectation: ExpectationSink?

    public init(_ description: RunDescription) throws {
        self.description = description
        sinks = try Self.makeSinks(description)
        expectation = try Self.makeExpectation(description)
        if description.settings.filters.followsFaces && !description.finds.contains(.faces) {
            throw PipelineError("@faces filters the faces found in each frame; add \(Setting.detect) faces")
        }
        analyzers = try description.analyzers.map { try $0.make() }
        if analyzers.isEmpty && (description.metadata != nil || description.analyzeRate != nil) {
            throw PipelineError("metadata needs an analyser; add one")
        }
        if let rate = description.analyzeRate, !(rate > 0 && rate <= 1000) {
            throw PipelineError("an analysis rate of \(rate) frames a second is out of range; use more than 0, at most 1000")
        }
        // Standard output carries the JSON lines (by default with --analyze), or the scanner's lines.
        let metadataPath = description.metadata ?? (description.analyzers.contains { $0.finds.isEmpty } ? "-" : nil)
        let stdoutTaken = description.outputs.contains(where: \.isStandardOutput) || description.saveInput.map(OutputFile.isStandardOutput) == true
        let metadataToStandardOutput = metadataPath.map(OutputFile.isStandardOutput) ?? false
        if metadataToStandardOutput && stdoutTaken {
            throw PipelineError("standard output takes the frames; write the metadata to a file instead")
        }
        if let metadataPath, !metadataToStandardOutput {
            try OutputFile.check(metadataPath, example: "out.jsonl")
            if description.outputs.contains(where: { OutputFile.sameFile($0.name, metadataPath) }) {
                throw PipelineError("the metadata file \(metadataPath) is also an output; give it another name")
            }
        }
        if description.once && (metadataToStandardOutput || stdoutTaken) {
            throw PipelineError("\(Setting.once) prints the code on standard output, which \(stdoutTaken ? "the frames take" : "the metadata takes"); write \(stdoutTaken ? "the frames" : "the metadata") to a file")
        }
        let codes = description.finds.contains(.codes)
        scanner = codes && !metadataToStandardOutput && !stdoutTaken ? CodeScanner(once: description.once) : nil
        metadata = try metadataPath.map { try MetadataWriter(path: $0) }
        noSignal = try Self.makeNoSignal(description)
    }

    /// `--persistent`: asked for, or by default with a camera written to a virtual camera.
    private static func makeNoSignal(_ description: RunDescription) throws -> NoSignal? {
        let camera = description.source.camera != nil
        if !description.composed.isEmpty {
            if description.persistent == true || description.fallbackImage != nil {
                throw PipelineError("\(Setting.persistent) keeps one camera's run going; several sources composed do not take it yet")
            }
            return nil
        }
        if description.persistent == true && !camera {
            throw PipelineError("\(Setting.persistent) keeps a camera's run going when the camera is lost; add \(Setting.camera)")
        }
        if let image = description.fallbackImage {
            guard camera, description.persistent != false else {
                throw PipelineError("\(Setting.fallbackImage) \(image) is shown while a camera is lost; it needs \(Setting.camera) and \(Setting.persistent)")
            }
        }
        let virtualCamera = description.outputs.contains { $0.kind is VirtualCameraSink.Type }
        guard camera, description.persistent ?? (virtualCamera || description.fallbackImage != nil) else { return nil }
        return try NoSignal(fallback: description.fallbackImage)
    }

    /// Keeps a camera's run through its loss; nil without `--persistent`.
    public let noSignal: NoSignal?

    /// Each `-o` made into its sink by its kind, after the checks that span
    /// outputs: no name twice, standard output once, sound only where recorded.
    private static func makeSinks(_ description: RunDescription) throws -> [FrameSink] {
        var names: [String] = []
        for output in description.outputs {
            if names.contains(output.name) || names.contains(where: { OutputFile.sameFile($0, output.name) }) {
                throw PipelineError("\(output.name) is named as an output twice; give each output once")
            }
            names.append(output.name)
        }
        var run = SinkRun(settings: description.output)
        run.frames = description.frames ?? 1
        run.firstNumber = description.firstNumber
        run.rate = description.settings.rate
        run.colorSpace = description.source.colorSpace
        // Cameras are stamped by their clock; files, the test pattern and exports frame by frame.
        run.cameraStamps = description.stampsFromSource ?? (description.source.camera != nil)
        run.isLive = description.source.camera != nil || description.paced
        let sinks = try description.outputs.map { try $0.kind.make($0, run: run) }
        if description.output.sound.device != nil && !run.sound.isTaken {
            throw PipelineError(.audio, does: "records into a video file or a live stream", "add \(Setting.output) clip.mp4 (or .mkv, .mov, .webm), or \(Setting.output) rtmp://HOST/APP/KEY")
        }
        let inputToStandardOutput = description.saveInput.map(OutputFile.isStandardOutput) ?? false
        if inputToStandardOutput && description.outputs.contains(where: \.isStandardOutput) {
            throw PipelineError("\(Setting.output) - and \(Setting.saveInput) - cannot both use standard output")
        }
        if description.outputs.filter(\.isStandardOutput).count > 1 {
            throw PipelineError("standard output (-) is named more than once; it can take one stream")
        }
        if let saveInput = description.saveInput {
            try OutputFile.check(saveInput)
            let (first, last) = (description.firstNumber, description.firstNumber + run.frames - 1)
            for pattern in description.outputs.compactMap(\.pattern)
            where OutputFile.sameFile(saveInput, pattern.path(for: first)) || (last > first && OutputFile.sameFile(saveInput, pattern.path(for: last))) {
                throw PipelineError(.saveInput, saveInput, is: "also where \(Setting.output) writes", "give it another name")
            }
        }
        return sinks
    }

    /// `--expect`: each frame compared with its golden image, the differences written beside the first file output.
    private static func makeExpectation(_ description: RunDescription) throws -> ExpectationSink? {
        guard let e = description.expectation else { return nil }
        var info = stat()
        let first = e.golden.path(for: description.firstNumber)
        if stat(first, &info) == 0, (info.st_mode & S_IFMT) != S_IFREG {
            throw PipelineError(.expect, "\(first)", because: "must be a regular PNG file, not a FIFO, device or folder")
        }
        // Beside the first output that is a file of its own; beside the golden when the outputs
        // are a display, standard output, a FIFO or a device (`-o /dev/null-diff.png` is no place).
        let beside = description.outputs.first { output in
            guard output.pattern != nil, !output.isStandardOutput else { return false }
            var info = stat()
            return stat(output.name, &info) != 0 || (info.st_mode & S_IFMT) == S_IFREG
        }
        let diffs = try OutputPattern(Self.diffName(for: beside?.name ?? e.golden.pattern))
        let frames = description.frames ?? 1
        for pattern in description.outputs.compactMap(\.pattern) {
            try Self.refuseOverwriting(golden: e.golden, with: pattern, numbers: description.firstNumber..<(description.firstNumber + frames))
        }
        let sink = ExpectationSink(golden: e.golden, tolerance: e.tolerance, diffs: diffs)
        sink.firstNumber = description.firstNumber
        return sink
    }

    /// The codes' lines on standard output, with `--detect codes`.
    public let scanner: CodeScanner?

    /// Whether `--once` read its code, and so ended the run before its frames were done.
    public var endedByOnce: Bool { scanner.map { $0.once && $0.found } ?? false }

    /// The analysers named, made once.
    public let analyzers: [FrameAnalyzer]
    /// Where their records go.
    public let metadata: MetadataWriter?

    /// Frames are drawn straight onto the screen: it is the only output that takes pictures.
    private var drawsOnScreen: Bool { sinks.allSatisfy { $0 is ScreenSink } && expectation == nil && description.composed.isEmpty }

    /// Builds the run on the calling thread, which then owns its GL context.
    /// `stages` makes the stages drawn after the filters (the shader
    /// harness's passes) on the new context.
    public func build(logger: Logger? = nil, stages: ((GPUContext) throws -> [RenderStage])? = nil) throws -> Run {
        let renderer = try makeRenderer(logger: logger, stages: stages)
        let custom = renderer.customStages
        renderer.drawsFirstFrame = description.paced
        let session = try SourceSession(renderer: renderer, configuration: description.source) { note in logger?.info("\(note)") }
        let source = try session.runningSource()
        let composition = try description.composed.isEmpty ? nil
            : Composition(sources: description.composed, layout: description.layout, size: description.compositionSize, primary: renderer) { note in logger?.info("\(note)") }
        if composition != nil { renderer.drawsEveryFrame = true }
        if let note = source.camera?.mode.note { logger?.notice("\(note)") }
        logger?.info("source: \(source.summary); filters: \(renderer.settings.filters.summary)")
        try startInput(at: description.firstNumber, of: source)
        let stills = StillFacts(session: session, software: description.software, strip: description.output.strip)
        let wrote: ((String) -> Void)? = logger.flatMap { logger in logger.logLevel <= .info ? { logger.info("wrote \($0)") } : nil }
        let start = SinkStart(rate: renderer.settings.rate, stills: stills.metadata, onWrite: wrote, onNote: { logger?.notice("\($0)") })
        for sink in sinks { try sink.start(start) }
        if let logger, logger.logLevel <= .info { expectation?.onResult = { logger.info("\($0)") } }
        var all = sinks
        if let expectation { all.append(expectation) }
        if let metadata { all.append(MetadataSink(metadata)) }
        // A live preview records when asked (the r key, the server's page), from nothing until then.
        var recordings: RecordingToggle?
        if description.paced {
            var video = description.output.video
            video.strip = description.output.strip
            let toggle = RecordingToggle(settings: video, live: description.stampsFromSource ?? (description.source.camera != nil))
            try toggle.start(start)
            all.append(toggle)
            recordings = toggle
        }
        let loop = FrameLoop(session: session, sinks: all)
        if let composition {
            loop.composition = composition
            logger?.info("composed (\(description.layout.name)) with \(composition.summary)")
        }
        loop.drawsOnScreen = drawsOnScreen
        if !analyzers.isEmpty { try attachAnalysis(to: loop, renderer: renderer, session: session, logger: logger) }
        loop.paced = description.paced
        loop.warmup = description.warmup
        if let noSignal {
            noSignal.note = { logger?.warning("\($0)") }
            loop.noSignal = noSignal
        }
        loop.recorder = try description.saveInput.map { try RawFrameWriter(path: $0) }
        if let zoom = description.zoom {
            loop.zoom.setSlider(zoom)
            try loop.zoom.apply(to: renderer)
            logger?.info("zoom \(String(format: "%.2f", loop.zoom.currentFactor))x (\(loop.zoom.usesHardware ? "camera zoom_absolute" : "digital"))")
        }
        let display = sinks.lazy.compactMap { ($0 as? DisplaySink)?.display }.first
        return Run(renderer: renderer, session: session, loop: loop, display: display, customStages: custom, recordings: recordings)
    }

    /// The GL context and the renderer on it: on the screen's card with a
    /// screen sink, opened when first needed where that may never be, or now.
    /// A screen that is the only output is drawn onto at its size; beside
    /// outputs that take the picture (a recording, stills), the picture is
    /// drawn at its own size and the screen shows it letterboxed.
    private func makeRenderer(logger: Logger?, stages: ((GPUContext) throws -> [RenderStage])?) throws -> FrameRenderer {
        var settings = description.settings
        // Composed, --size is the composed picture's; the first source is drawn at its own.
        if !description.composed.isEmpty { settings.outputSize = nil }
        let context: GPUContext?
        if let screen = sinks.lazy.compactMap({ $0 as? ScreenSink }).first {
            let (card, width, height) = try screen.open()
            let scanout = try GPUContext(version: description.gles, logger: logger, card: card)
            if drawsOnScreen { settings.outputSize = (width, height) }
            try screen.attach(context: scanout)
            if let display = (screen as? DisplaySink)?.display { logger?.info("display: \(display.summary)") }
            context = scanout
        } else if stages == nil && opensGPUWhenNeeded {
            context = nil
            logger?.info("GL context: opened when a frame needs the GPU (none found here: frames are converted on the CPU)")
        } else {
            context = try GPUContext(platform: description.platform, version: description.gles, logger: logger)
        }
        guard let context else {
            let (platform, gles) = (description.platform, description.gles)
            return FrameRenderer(context: DeferredGPUContext(expectsSoftware: true) {
                try GPUContext(platform: platform, version: gles, logger: logger)
            }, settings: settings)
        }
        let renderer = try FrameRenderer(context: context, settings: settings)
        renderer.drawsEveryFrame = sinks.contains { $0 is ScreenSink }
        renderer.customStages = try stages?(context) ?? []
        return renderer
    }

    /// The analysers beside the loop: their records to the metadata and the
    /// scanner, faces to the filters that follow them, what they found drawn.
    private func attachAnalysis(to loop: FrameLoop, renderer: FrameRenderer, session: SourceSession, logger: Logger?) throws {
        for case let finder as ObjectFinder in analyzers { finder.onNote = { logger?.warning("\($0)") } }
        // Live runs never wait for the analysers; offline runs analyse every frame.
        let live = description.paced || description.source.camera != nil
        let analysis = FrameAnalysis(analyzers: analyzers, whenBusy: live ? .skip : .wait, rate: description.analyzeRate)
        let (metadata, scanner) = (metadata, scanner)
        let server = sinks.lazy.compactMap { $0 as? ServeSink }.first
        analysis.onRecord = { record in
            try metadata?.write(record)
            server?.publish(record)
            if try scanner?.take(record) == .done { loop.stop() }
        }
        loop.analysis = analysis
        loop.followsFaces = description.settings.filters.followsFaces
        if overlay != .none {
            var font: ConsoleFont?
            if overlay == .labels {
                do {
                    font = try ConsoleFont()
                } catch {
                    // Asked for, labels need the font; by default, boxes do without.
                    if description.overlay == .labels { throw error }
                    logger?.notice("\(error); drawing boxes without labels")
                }
            }
            let shown = ShownObjects()
            loop.shown = shown
            let drawn = try DetectionOverlay(shown: shown, labels: overlay == .labels, font: font)
            if case .cube = renderer.settings.mode {
                // On the picture, so that the boxes turn with the cube's faces.
                renderer.customStages.append(DetectionOverlay.OnPicture(drawn))
            } else {
                renderer.overlays = [drawn]
            }
        }
        if let scanner, scanner.once {
            loop.check = {
                guard scanner.found else { throw PipelineError("no code found in \(loop.statistics.frames) frame(s) of \(session.source?.summary ?? "the input")") }
            }
        }
    }

    /// True when the GL context may wait for a frame that needs it: an
    /// offline run of a file or the test pattern with nothing else drawn on
    /// it, on a machine whose GL would be Mesa's software renderer. Its
    /// frames may then never need it (see `DeferredGPUContext`).
    private var opensGPUWhenNeeded: Bool {
        !description.paced && description.source.camera == nil && description.platform == .auto && overlay == .none && description.composed.isEmpty
            && DeferredGPUContext.expectsSoftwareRendering
    }

    /// What `--detect` draws over the frames: `--overlay`, by default labels
    /// on a live preview and nothing on an offline run.
    private var overlay: DetectionOverlay.Mode {
        guard !description.finds.isEmpty else { return .none }
        return description.overlay ?? (description.paced ? .labels : .none)
    }

    /// Frame N of an export shows input frame N, wherever the export starts.
    private func startInput(at first: Int, of source: FrameSource) throws {
        guard first > 0, description.source.camera == nil else { return }
        if let frames = source.inventory?.frames, first >= frames {
            throw PipelineError("\(source.summary) holds \(frames) frames; frame \(first) is past its end")
        }
        let passed = try source.skip(first)
        if passed < first { throw PipelineError("\(source.summary) ended after \(passed) frames, before frame \(first)") }
    }

    /// Writes what the sinks have done so far (PNGs the encoder threads hold), whole.
    public func flush() {
        for sink in sinks { try? sink.flush() }
    }

    /// After a failure: every frame rendered before it written, whole, and files put in place.
    public func saveAfterFailure() {
        for sink in sinks { sink.saveWritten() }
        try? metadata?.finish()
    }

    /// Frames the first output that writes files wrote.
    public var written: Int { sinks.lazy.compactMap(\.written).first ?? 0 }

    /// What the first output that writes files wrote, for a message after a failure.
    public var writtenSummary: String? { sinks.lazy.compactMap(\.writtenSummary).first }

    /// Refuses an output that would replace the golden images it is checked against.
    public static func refuseOverwriting(golden: OutputPattern, with output: OutputPattern, numbers: Range<Int>) throws {
        for n in [numbers.lowerBound, numbers.upperBound - 1] where OutputFile.sameFile(golden.path(for: n), output.path(for: n)) {
            throw PipelineError("\(excerpt(output.pattern)) would write over the golden image \(excerpt(golden.path(for: n))) it is checked against; write the render elsewhere")
        }
        if golden.pattern == output.pattern {
            throw PipelineError("the output and the golden images are both \(excerpt(golden.pattern)); write the render elsewhere")
        }
    }

    /// `out.png` → `out-diff.png`; `out-%04d.png` → `out-%04d-diff.png`.
    public static func diffName(for path: String) -> String {
        let ext = fileExtension(path)
        let stem = ext.isEmpty ? path : String(path.dropLast(ext.count + 1))
        return stem + "-diff.png"
    }
}

/// A run ready to go: its frame loop and the parts a command talks to.
public final class Run {
    public let renderer: FrameRenderer
    public let session: SourceSession
    public let loop: FrameLoop
    /// The console's display, with `-o kms`.
    public let display: KMSDisplay?
    public let customStages: [RenderStage]
    /// What a live preview records when asked (the r key, the server's page).
    public let recordings: RecordingToggle?

    init(renderer: FrameRenderer, session: SourceSession, loop: FrameLoop, display: KMSDisplay?, customStages: [RenderStage],
         recordings: RecordingToggle? = nil) {
        self.recordings = recordings
        self.renderer = renderer
        self.session = session
        self.loop = loop
        self.display = display
        self.customStages = customStages
    }
}
