import Capture
import Foundation
import GPU
import Logging
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
    public let pngOutputs: [PNGOutput]
    public let y4mOutputs: [Y4MOutput]
    public let jpegOutputs: [JPEGOutput]
    public let recordings: [VideoRecording]
    public let expectation: ExpectationSink?

    public init(_ description: RunDescription) throws {
        self.description = description
        let frames = description.frames ?? 1
        var names: [String] = []
        var png: [PNGOutput] = [], y4m: [Y4MOutput] = [], jpeg: [JPEGOutput] = [], videos: [VideoRecording] = []
        let sound = try Self.openSound(description)
        // Cameras are stamped by their clock; files, the test pattern and exports frame by frame.
        let live = description.source.camera != nil || ProcessInfo.processInfo.environment["KAMERA_TEST_LIVE_STAMPS"] != nil
        for output in description.outputs {
            if names.contains(output.name) || names.contains(where: { OutputFile.sameFile($0, output.name) }) {
                throw PipelineError("\(output.name) is named as an output twice; give each output once")
            }
            names.append(output.name)
            switch output {
            case .display:
                break
            case .png(let pattern):
                if description.pngEvery != nil && pattern.isSequence {
                    throw PipelineError("\(pattern.pattern): a live run keeps one PNG up to date; give a name without %d")
                }
                // A live run's picture is encoded on a thread of its own, so that the frame loop keeps the camera's pace.
                let threads = description.pngEvery != nil ? 1 : frames > 1 ? ProcessInfo.processInfo.activeProcessorCount : 0
                let output = try PNGOutput(pattern, frames: frames, compression: description.pngCompression, encoderThreads: threads)
                if description.pngEvery == nil && frames > 1 && !pattern.isSequence && !output.isStream {
                    throw PipelineError("\(pattern.pattern) names one file but \(frames) frames are rendered; put %d in the name, e.g. frames/out-%03d.png")
                }
                output.firstNumber = description.firstNumber
                png.append(output)
            case .y4m(let pattern):
                let output = try Y4MOutput(pattern, frames: frames, rate: description.settings.rate, colorSpace: description.source.colorSpace,
                                           chroma: description.y4mChroma)
                output.firstNumber = description.firstNumber
                y4m.append(output)
            case .jpeg(let pattern):
                if description.pngEvery != nil && pattern.isSequence {
                    throw PipelineError("\(pattern.pattern): a live run keeps one JPEG up to date; give a name without %d")
                }
                let output = try JPEGOutput(pattern, frames: frames, settings: description.jpeg)
                if description.pngEvery == nil && frames > 1 && !pattern.isSequence {
                    throw PipelineError("\(pattern.pattern) names one file but \(frames) frames are rendered; put %d in the name, e.g. shot-%02d.jpg")
                }
                output.firstNumber = description.firstNumber
                jpeg.append(output)
            case .video(let path):
                videos.append(try VideoRecording(path: path, settings: description.video, live: live, rate: description.settings.rate, sound: sound))
            }
        }
        let inputToStandardOutput = description.saveInput.map(OutputFile.isStandardOutput) ?? false
        if description.outputs.filter(\.isStandardOutput).count + (inputToStandardOutput ? 1 : 0) > 1 {
            throw PipelineError("standard output (-) is named more than once; it can take one stream")
        }
        if let saveInput = description.saveInput {
            try OutputFile.check(saveInput)
            for case .png(let p) in description.outputs where OutputFile.sameFile(saveInput, p.path(for: description.firstNumber))
                || (frames > 1 && OutputFile.sameFile(saveInput, p.path(for: description.firstNumber + frames - 1))) {
                throw PipelineError("the raw input copy \(saveInput) is also where an output writes; give it another name")
            }
        }
        if let e = description.expectation {
            var info = stat()
            let first = e.golden.path(for: description.firstNumber)
            if stat(first, &info) == 0, (info.st_mode & S_IFMT) != S_IFREG {
                throw PipelineError("golden image \(first): must be a regular PNG file, not a FIFO, device or folder")
            }
            // Beside the first output that is a file of its own; beside the golden when the outputs
            // are a display, standard output, a FIFO or a device (`-o /dev/null-diff.png` is no place).
            let beside = description.outputs.first { output in
                guard output != .display, !output.isStandardOutput else { return false }
                var info = stat()
                return stat(output.name, &info) != 0 || (info.st_mode & S_IFMT) == S_IFREG
            }
            let diffs = try OutputPattern(Self.diffName(for: beside?.name ?? e.golden.pattern))
            for case .png(let pattern) in description.outputs {
                try Self.refuseOverwriting(golden: e.golden, with: pattern, numbers: description.firstNumber..<(description.firstNumber + frames))
            }
            let sink = ExpectationSink(golden: e.golden, tolerance: e.tolerance, diffs: diffs)
            sink.firstNumber = description.firstNumber
            expectation = sink
        } else {
            expectation = nil
        }
        pngOutputs = png
        y4mOutputs = y4m
        jpegOutputs = jpeg
        recordings = videos
        if description.settings.filters.followsFaces && description.detection?.faces != true {
            throw PipelineError("@faces filters the faces found in each frame; add --detect faces")
        }
        var analyzers = try AnalyzerRegistry.analyzers(description.analyzers)
        if let detection = description.detection { analyzers.append(try ObjectDetector(detection)) }
        self.analyzers = analyzers
        if analyzers.isEmpty && (description.metadata != nil || description.analyzeRate != nil) {
            throw PipelineError("metadata needs an analyser; valid analysers: \(AnalyzerRegistry.validNames)")
        }
        if let rate = description.analyzeRate, !(rate > 0 && rate <= 1000) {
            throw PipelineError("an analysis rate of \(rate) frames a second is out of range; use more than 0, at most 1000")
        }
        // Standard output carries the JSON lines (by default with --analyze), or the scanner's lines.
        let metadataPath = description.metadata ?? (description.analyzers.isEmpty ? nil : "-")
        let stdoutTaken = description.outputs.contains(where: \.isStandardOutput) || inputToStandardOutput
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
            throw PipelineError("--once prints the code on standard output, which \(stdoutTaken ? "the frames take" : "the metadata takes"); write \(stdoutTaken ? "the frames" : "the metadata") to a file")
        }
        let codes = description.detection.map { !$0.codeFormats.isEmpty } ?? false
        scanner = codes && !metadataToStandardOutput && !stdoutTaken ? CodeScanner(once: description.once) : nil
        metadata = try metadataPath.map { try MetadataWriter(path: $0) }
    }

    /// The codes' lines on standard output, with `--detect codes`.
    public let scanner: CodeScanner?

    /// Whether `--once` read its code, and so ended the run before its frames were done.
    public var endedByOnce: Bool { scanner.map { $0.once && $0.found } ?? false }

    /// The analysers named, made once.
    public let analyzers: [FrameAnalyzer]
    /// Where their records go.
    public let metadata: MetadataWriter?

    /// Builds the run on the calling thread, which then owns its GL context.
    /// `stages` makes the stages drawn after the filters (the shader
    /// harness's passes) on the new context.
    public func build(logger: Logger? = nil, stages: ((GPUContext) throws -> [RenderStage])? = nil) throws -> Run {
        var settings = description.settings
        let context: GPUContext?
        var display: KMSDisplay?
        if description.showsOnDisplay {
            let (card, choice) = try description.display.choose()
            let scanout = try GPUContext(version: description.gles, logger: logger, card: card.node)
            context = scanout
            settings.outputSize = (choice.mode.width, choice.mode.height)
            let screen = try KMSDisplay(context: scanout, card: card, choice: choice)
            logger?.info("display: \(screen.summary)")
            screen.onNote = { note in logger?.info("\(note)") }
            display = screen
        } else if stages == nil && opensGPUWhenNeeded {
            context = nil
            logger?.info("GL context: opened when a frame needs the GPU (none found here: frames are converted on the CPU)")
        } else {
            context = try GPUContext(platform: description.platform, version: description.gles, logger: logger)
        }
        let renderer: FrameRenderer
        if let context {
            renderer = try FrameRenderer(context: context, settings: settings)
            renderer.customStages = try stages?(context) ?? []
        } else {
            let (platform, gles) = (description.platform, description.gles)
            renderer = FrameRenderer(context: DeferredGPUContext(expectsSoftware: true) {
                try GPUContext(platform: platform, version: gles, logger: logger)
            }, settings: settings)
        }
        let custom = renderer.customStages
        renderer.drawsFirstFrame = description.paced
        let session = try SourceSession(renderer: renderer, configuration: description.source) { note in logger?.info("\(note)") }
        let source = try session.runningSource()
        if let note = source.camera?.mode.note { logger?.notice("\(note)") }
        logger?.info("source: \(source.summary); filters: \(renderer.settings.filters.summary)")
        try startInput(at: description.firstNumber, of: source)
        for output in y4mOutputs { output.rate = renderer.settings.rate }
        for recording in recordings {
            recording.rate = renderer.settings.rate
            recording.onNote = { logger?.notice("\($0)") }
        }
        let stills = StillFacts(session: session, software: description.software)
        let facts: (RenderedFrame) -> StillMetadata? = { _ in stills.metadata() }
        for output in pngOutputs { output.metadata = stills.metadata }
        var sinks: [FrameSink] = []
        var png = pngOutputs.makeIterator(), y4m = y4mOutputs.makeIterator(), jpeg = jpegOutputs.makeIterator()
        var videos = recordings.makeIterator()
        for output in description.outputs {
            switch output {
            case .display: sinks.append(display!)
            case .png: sinks.append(PNGSink(png.next()!, every: description.pngEvery))
            case .y4m: sinks.append(Y4MSink(y4m.next()!))
            case .jpeg: sinks.append(JPEGSink(jpeg.next()!, every: description.pngEvery, metadata: facts))
            case .video: sinks.append(videos.next()!)
            }
        }
        if let logger, logger.logLevel <= .info {
            for output in pngOutputs { output.onWrite = { logger.info("wrote \($0)") } }
            for output in jpegOutputs { output.onWrite = { logger.info("wrote \($0)") } }
            for output in y4mOutputs { output.onWrite = { logger.info("wrote \($0)") } }
            expectation?.onResult = { logger.info("\($0)") }
        }
        if let expectation { sinks.append(expectation) }
        if let metadata { sinks.append(MetadataSink(metadata)) }
        let loop = FrameLoop(session: session, sinks: sinks)
        for case let detector as ObjectDetector in analyzers { detector.onNote = { logger?.warning("\($0)") } }
        if !analyzers.isEmpty {
            // Live runs never wait for the analysers; offline runs analyse every frame.
            let live = description.paced || description.source.camera != nil
            let analysis = FrameAnalysis(analyzers: analyzers, whenBusy: live ? .skip : .wait, rate: description.analyzeRate)
            let (metadata, scanner) = (metadata, scanner)
            analysis.onRecord = { record in
                try metadata?.write(record)
                if try scanner?.take(record) == .done { loop.stop() }
            }
            loop.analysis = analysis
            if description.settings.filters.followsFaces {
                // Offline runs draw each frame through its own faces; live runs through the newest found.
                renderer.faces = { index in
                    (analysis.record(for: index)?.result("objects") as? DetectedObjects)?.objects.filter { $0.type == "face" }.map(\.bounds) ?? []
                }
            }
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
                let drawn = try DetectionOverlay(analysis: analysis, labels: overlay == .labels, font: font)
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
        loop.paced = description.paced
        loop.warmup = description.warmup
        loop.recorder = try description.saveInput.map { try RawFrameWriter(path: $0) }
        if let zoom = description.zoom {
            loop.zoom.setSlider(zoom)
            try loop.zoom.apply(to: renderer)
            logger?.info("zoom \(String(format: "%.2f", loop.zoom.currentFactor))x (\(loop.zoom.usesHardware ? "camera zoom_absolute" : "digital"))")
        }
        return Run(renderer: renderer, session: session, loop: loop, display: display, customStages: custom)
    }

    /// True when the GL context may wait for a frame that needs it: an
    /// offline run of a file or the test pattern with nothing else drawn on
    /// it, on a machine whose GL would be Mesa's software renderer. Its
    /// frames may then never need it (see `DeferredGPUContext`).
    private var opensGPUWhenNeeded: Bool {
        !description.paced && description.source.camera == nil && description.platform == .auto && overlay == .none
            && DeferredGPUContext.expectsSoftwareRendering
    }

    /// What `--detect` draws over the frames: `--overlay`, by default labels
    /// on a live preview and nothing on an offline run.
    private var overlay: DetectionOverlay.Mode {
        guard description.detection != nil else { return .none }
        return description.overlay ?? (description.paced ? .labels : .none)
    }

    /// `--audio`: the capture device opened and set up, so that a missing or
    /// busy device or a rate it refuses is said before any file is made.
    private static func openSound(_ description: RunDescription) throws -> AudioCapture? {
        guard let device = description.audio else { return nil }
        guard description.outputs.contains(where: { if case .video = $0 { true } else { false } }) else {
            throw PipelineError("--audio records into a video file; add -o clip.mp4 (or .mkv, .mov, .webm)")
        }
        guard description.source.camera != nil || description.paced else {
            throw PipelineError("--audio records live runs: a camera (--camera), or the preview (kamera preview); an export from a file or the test pattern renders faster than sound comes")
        }
        if device.isEmpty { throw PipelineError("--audio is empty; give a capture device such as default or hw:1,0 (kamera devices --audio lists them)") }
        return try AudioCapture(device: device, rate: description.audioRate, channels: description.audioChannels)
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

    /// Writes the PNGs the encoder threads still hold, whole.
    public func writePending() {
        for output in pngOutputs { try? output.writePending() }
    }

    /// After a failure: every frame rendered before it written, whole, and files put in place.
    public func saveAfterFailure() {
        writePending()
        for output in y4mOutputs { try? output.finish() }
        for recording in recordings { try? recording.finish() }
        try? metadata?.finish()
    }

    /// Frames the first file output wrote.
    public var written: Int {
        pngOutputs.first?.written ?? y4mOutputs.first?.written ?? jpegOutputs.first?.written ?? recordings.first?.encoded ?? 0
    }

    /// What the first file output wrote, for a message after a failure.
    public var writtenSummary: String? {
        pngOutputs.first?.writtenSummary ?? y4mOutputs.first?.writtenSummary ?? jpegOutputs.first?.writtenSummary ?? recordings.first?.writtenSummary
    }

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

    init(renderer: FrameRenderer, session: SourceSession, loop: FrameLoop, display: KMSDisplay?, customStages: [RenderStage]) {
        self.renderer = renderer
        self.session = session
        self.loop = loop
        self.display = display
        self.customStages = customStages
    }
}
