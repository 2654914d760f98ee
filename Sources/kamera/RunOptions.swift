import Analysis
import Analyzers
import BuildInfo
import CommandLineSupport
import Filters
import Output
import Pipeline
import Lifecycle
import Pixels

/// The run every rendering command describes from its options.
func describeRun(_ pipeline: PipelineOptions, outputs: [String], _ options: OutputOptions, _ display: DisplayOptions,
                 _ gpu: GPUOptions) throws -> RunDescription {
    var description = RunDescription()
    (description.source, description.settings) = try pipeline.makePipeline()
    if let composed = try pipeline.composition(CommandLine.arguments, first: description.source, settings: &description.settings) {
        (description.composed, description.layout) = composed
        description.compositionSize = description.settings.outputSize
    }
    description.outputs = try options.requests(outputs)
    description.output = try options.settings(display: display.request)
    description.output.serve.filters = FilterPresets.presets.map(\.name)
    description.output.serve.filter = pipeline.filter.isEmpty ? "none" : pipeline.filter.joined(separator: ",")
    description.software = "Kamera \(kameraVersion)"
    description.platform = try gpu.platform()
    description.gles = try gpu.version()
    GPUWatchdog.frameTimeout = gpu.frameTimeout
    CompileSandbox.install(gpu: gpu.gpu, gles: gpu.gles)
    description.zoom = try pipeline.zoomSlider()
    // `--detect motion` is the motion analyser; the other kinds are the object detector's.
    let words = options.detect.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }.map { $0.trimmingCharacters(in: .whitespaces) }
    let motion = words.contains { $0.lowercased() == "motion" } && !options.analyzers.contains { $0.lowercased().split(separator: ",").contains("motion") }
    let objects = words.filter { $0.lowercased() != "motion" }
    do { description.analyzers = try AnalyzerRegistry.requests(named: options.analyzers + (motion ? ["motion"] : [])) } catch { throw UsageError("\(error)") }
    description.analyzeRate = options.analyzeRate
    description.metadata = options.metadata
    if !objects.isEmpty, let detector = AnalyzerRegistry.kind(named: "objects") {
        do { description.analyzers.append(try detector.request(objects)) } catch { throw UsageError("\(error)") }
    }
    for (option, rate) in [("--analyze-rate", options.analyzeRate), ("--detect-rate", options.detectRate)] {
        if let rate, !(rate > 0 && rate <= 1000) {
            throw UsageError("\(option) \(rate == rate.rounded() && abs(rate) < 1e15 ? String(Int(rate)) : String(rate)) is out of range; give frames a second, more than 0 and at most 1000")
        }
    }
    if let rate = options.detectRate {
        guard !options.detect.isEmpty else { throw UsageError("--detect-rate is for detection; add --detect codes (or faces)") }
        if let other = options.analyzeRate, other != rate {
            throw UsageError("--detect-rate \(rate) and --analyze-rate \(other) differ; detection and analysis share one rate, give one of them")
        }
        description.analyzeRate = rate
    }
    if let overlay = options.overlay {
        guard let mode = DetectionOverlay.Mode(rawValue: overlay) else { throw UsageError("--overlay \(excerpt(overlay)) is not valid; use boxes, labels or none") }
        guard !objects.isEmpty || mode == .none else { throw UsageError("--overlay draws what --detect finds; add --detect faces or --detect codes") }
        description.overlay = mode
    }
    if options.once {
        guard description.finds.contains(.codes) else { throw UsageError("--once prints the first code read; add --detect codes") }
        description.once = true
    }
    if !options.analyzers.isEmpty && OutputFile.isStandardOutput(options.metadata ?? "-") && description.outputs.contains(where: \.isStandardOutput)
        || !options.detect.isEmpty && options.metadata.map(OutputFile.isStandardOutput) == true && description.outputs.contains(where: \.isStandardOutput) {
        throw UsageError("-o - takes standard output; write the metadata to a file with --metadata FILE")
    }
    if options.metadata == "" { throw UsageError("--metadata is empty; give a file such as out.jsonl, or - for standard output") }
    if options.analyzers.isEmpty && options.detect.isEmpty && (options.metadata != nil || options.analyzeRate != nil) {
        throw UsageError("\(options.metadata != nil ? "--metadata" : "--analyze-rate") is for the analysers' results; add --analyze \(AnalyzerRegistry.kinds[0].name)")
    }
    if !description.showsOnDisplay, let option = display.givenWithoutDisplay { throw UsageError("\(option) is for the display; add -o kms") }
    if description.showsOnDisplay, pipeline.size != nil, description.outputs.allSatisfy({ $0.kind is ScreenSink.Type }) {
        throw UsageError("--size is for outputs that take the picture (a recording, stills); -o kms alone shows at the display's mode, chosen with --mode")
    }
    return description
}
