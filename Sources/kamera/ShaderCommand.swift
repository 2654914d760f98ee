import CommandLineSupport
import ArgumentParser
import Filters
import Foundation
import GPU
import Lifecycle
import Output
import Pipeline
import Pixels
import ShaderHarness

struct ShaderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shader",
        abstract: "Shader development: run a .frag (Kamera's, glslViewer's or Shadertoy's convention) over the frame, to PNG or on the console, with hot reload and golden-image checks.",
        discussion: """
        The convention is told from the source: mainImage() is Shadertoy (iTime, iResolution, iChannel0..3,
        iFrame, iMouse, iDate); a shader sampling u_texture is Kamera's own; any other is glslViewer's
        (u_time, u_resolution, u_tex0, v_texcoord). Channel 0 is the frame (test pattern, --input or --camera).
        Time is frame-exact in exports: frame N is at N / --fps seconds.
        Live keys (-o kms): \(ShaderControls.help).
        Examples:
          kamera shader \(ExamplesFolder.path)/Shaders/ripple.frag --time 1.5 -o still.png
          kamera shader \(ExamplesFolder.path)/Shaders/ripple.frag --frames 0..59 --fps 30 -o wave-%04d.png
          kamera shader \(ExamplesFolder.path)/Shaders/ripple.frag --time 1.5 --size 240x240 --expect \(ExamplesFolder.path)/Shaders/ripple-1.5s.png --tolerance 2
          kamera shader \(ExamplesFolder.path)/Shaders/trails.frag --buffer A=\(ExamplesFolder.path)/Shaders/trails-buffer.frag --channel 1=A --frames 0..9 -o f-%02d.png
          kamera shader \(ExamplesFolder.path)/Shaders/ripple.frag --watch -o wave.png   # re-renders on every save
          kamera shader \(ExamplesFolder.path)/Shaders/ripple.frag -o kms --camera /dev/video0 --watch
        """)

    @Argument(help: "The fragment shader.", completion: Completions.shader)
    var shader: String

    @Option(name: .shortAndLong, parsing: .unconditionalSingleValue,
            help: "Output, repeatable: kms (full screen on the console), a PNG, a %d sequence, NAME.y4m or - (default kamera.png; none with --expect alone).", completion: Completions.anyFile)
    var output: [String] = []

    @Option(parsing: .unconditional, help: "Frames to render: N (0 to N-1) or A..B (A to B, inclusive); time = frame / --fps.")
    var frames: String?

    @Option(parsing: .unconditional, help: "Render one still at this time in seconds and exit.", transform: ArgumentValue.real("a time in seconds, 0 or more"))
    var time: Double?

    @Option(parsing: .unconditional, help: "Golden PNG (or %d sequence) each frame must match; exit 1 with the differing pixels and a diff image otherwise.", completion: Completions.png)
    var expect: String?

    @Option(parsing: .unconditional, help: "Largest difference allowed per channel with --expect, 0-255.", transform: ArgumentValue.integer("a whole number from 0 to 255"))
    var tolerance = 0

    @Option(name: .customLong("buffer"), parsing: .unconditionalSingleValue, help: "A buffer pass, NAME=FILE.frag with NAME A-D (repeatable), rendered each frame before the image.")
    var buffers: [String] = []

    @Option(name: .customLong("channel"), parsing: .unconditionalSingleValue, help: "iChannelN / u_texN: N=camera, N=A..D (a buffer) or N=FILE.png (repeatable; default 0=camera).")
    var channels: [String] = []

    @Option(name: .customShort("D"), parsing: .unconditionalSingleValue, help: "Define NAME or NAME=VALUE for the shader (repeatable).")
    var defines: [String] = []

    @Option(name: .customShort("I"), parsing: .unconditionalSingleValue, help: "Folder searched by #include after the including file's own (repeatable).")
    var includePaths: [String] = []

    @Option(name: .customLong("uniform"), parsing: .unconditionalSingleValue, help: "Set a uniform: NAME=1.5, NAME=1,0,0 (vec3), NAME=3 (int), NAME=true (repeatable).")
    var uniforms: [String] = []

    @Flag(help: "Print the active uniforms, their types and where their values come from, and exit.")
    var listUniforms = false

    @Flag(help: "Recompile on every save of the shader or a file it includes; a save that does not compile keeps the last good shader.")
    var watch = false

    @Option(parsing: .unconditional, help: "With -o kms: stop after this many seconds.", transform: ArgumentValue.seconds())
    var duration: Double?

    @Option(parsing: .unconditional, help: "With -o kms: seconds between status lines (default 2).", transform: ArgumentValue.real("a number of seconds above 0"))
    var statusEvery = 2.0

    @OptionGroup var pipeline: PipelineOptions

    @OptionGroup var outputOptions: OutputOptions

    @OptionGroup var display: DisplayOptions

    @OptionGroup var gpuOptions: GPUOptions
    @OptionGroup var configOption: ConfigOption

    func run() throws {
        do {
            try runHarness()
        } catch let error as ShaderCompileError {
            Self.printCompilerLines(error.description)
            throw ExitCode(1)
        }
    }

    /// As a compiler prints them: one `file:line: message` per line, for
    /// editors to jump to; control bytes (in file names too) escaped.
    static func printCompilerLines(_ text: String) {
        let lines = text.split(separator: "\n").map { TerminalText.oneLine(String($0)) }
        FileHandle.standardError.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    }

    private func makeConfiguration() throws -> ShaderHarnessConfiguration {
        var configuration = ShaderHarnessConfiguration(main: shader)
        configuration.buffers = try buffers.map { try .init(parsing: $0) }
        for option in [("--channel", channels.map { $0.split(separator: "=").first.map(String.init) ?? $0 }),
                       ("--uniform", uniforms.map { $0.split(separator: "=").first.map(String.init) ?? $0 })] {
            if let twice = Dictionary(grouping: option.1, by: { $0 }).first(where: { $0.value.count > 1 })?.key {
                throw UsageError("\(option.0) \(excerpt(twice)) given twice; give each once")
            }
        }
        for folder in includePaths {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
                throw UsageError("-I \(excerpt(folder)): no such folder; give a folder that holds included files")
            }
        }
        if let duplicate = Dictionary(grouping: configuration.buffers, by: \.name).first(where: { $0.value.count > 1 }) {
            throw UsageError("--buffer \(duplicate.key) given twice; each of A-D once")
        }
        for text in channels {
            let (index, source) = try ShaderHarnessConfiguration.channel(parsing: text)
            configuration.channels[index] = source
        }
        configuration.defines = try defines.map { try ShaderDefine(parsing: $0) }
        configuration.includePaths = includePaths
        configuration.uniforms = try uniforms.map { try ShaderUniformValue(parsing: $0) }
        configuration.frameFit = try pipeline.fitMode()
        return configuration
    }

    /// `N` or `A..B` as the first frame and the count.
    private func frameRange() throws -> (start: Int, count: Int) {
        guard let frames else { return (0, 1) }
        let parts = frames.components(separatedBy: "..")
        let numbers = parts.map { Int($0.trimmingCharacters(in: .whitespaces)) }
        let most = FrameLimits.maxFrames
        if parts.count == 1, let n = numbers[0], n >= 1, n <= most { return (0, n) }
        if parts.count == 2, let a = numbers[0], let b = numbers[1], a >= 0, b >= a, b < most { return (a, b - a + 1) }
        throw UsageError("--frames \(excerpt(frames)) is not valid; give a count such as 60 (at most \(most)), or a range A..B such as 0..59 (B at least A, below \(most))")
    }

    private func runHarness() throws {
        let configuration = try makeConfiguration()
        let outputs = output.isEmpty && expect == nil ? ["kamera.png"] : output
        var description = try describeRun(pipeline, outputs: outputs, outputOptions, display, gpuOptions)
        let live = description.showsOnDisplay
        if frames != nil && time != nil { throw UsageError("--frames and --time both given; --time renders one still, --frames a sequence") }
        if let time, !(0...FrameLimits.maxSeconds).contains(time) { throw UsageError("--time \(time) is out of range; use 0 to 1000000000 seconds") }
        if live && (expect != nil || time != nil || frames?.contains("..") == true) {
            throw UsageError("-o kms runs live on the clock; --time, --expect and --frames A..B are for file output (--frames N stops after N frames)")
        }
        if !live && duration != nil { throw UsageError("--duration is for -o kms") }
        if let duration, duration <= 0 { throw UsageError("--duration \(duration) must be above 0 seconds") }
        guard statusEvery > 0 else { throw UsageError("--status-every \(statusEvery) must be above 0 seconds") }
        guard (0...255).contains(tolerance) else { throw UsageError("--tolerance \(tolerance) is out of range; use 0 to 255") }
        if tolerance != 0 && expect == nil { throw UsageError("--tolerance is for --expect; add --expect golden.png") }
        if watch && (frames != nil || expect != nil) { throw UsageError("--watch re-renders one picture on each save; leave out --frames and --expect") }
        let range = try frameRange()
        let fps = description.settings.rate
        let mode: ShaderClock.Mode = live ? .live : time.map { .still($0) } ?? .exact(start: range.start)
        // The frame number of the first picture: where exports start, and the input with them.
        if let time, time * fps >= Double(FrameLimits.maxFrames) {
            throw UsageError("--time \(time) at \(fps) fps is frame \(Int(min(time * fps, 1e15))), past the last frame Kamera numbers (\(FrameLimits.maxFrames - 1)); use a smaller --time")
        }
        description.firstNumber = live ? 0 : time.map { Int(($0 * fps).rounded(.down)) } ?? range.start
        let count = watch && !live ? nil : (live && frames == nil ? nil : range.count)
        description.frames = count
        if live {
            // A live run keeps its PNGs current, as the preview does.
            description.output.every = 1
            description.paced = true
        }
        if let expect {
            let golden = try OutputPattern(expect)
            if (count ?? 1) > 1 && !golden.isSequence {
                throw UsageError("--expect \(expect) names one file but --frames gives \(count ?? 1); put %d in the name, e.g. golden-%04d.png")
            }
            description.expectation = .init(golden: golden, tolerance: tolerance)
        }
        let builder = try RunBuilder(description)
        let logger = gpuOptions.makeLogger()
        let keys = live ? KeyReader() : nil
        defer { keys?.restore() }
        let status = StatusLine(style: gpuOptions.quiet ? .quiet : .status)
        let thread = RenderThread()
        defer { thread.shutdown() }
        let summary = try thread.sync { () -> String? in
            var made: ShaderHarness?
            let run = try builder.build(logger: logger) { context in
                let harness = try ShaderHarness(configuration: configuration, clock: ShaderClock(mode: mode, fps: fps), context: context)
                made = harness
                return [harness]
            }
            let harness = made!
            if listUniforms {
                print(harness.uniformListing)
                return nil
            }
            for warning in harness.warnings { status.show("warning: \(warning)") }
            logger.info("\(shader): \(harness.convention.rawValue) convention; files: \(harness.files.joined(separator: ", "))")
            let loop = run.loop
            if watch {
                let watcher = FileWatcher(files: harness.files, folders: configuration.includePaths)
                harness.watcher = watcher
                harness.onMessage = { status.show($0) }
                harness.onError = { Self.printCompilerLines($0) }
                if !live {
                    // One picture per save: after each frame, sleep until a file changes.
                    loop.onFrame = { _ in
                        builder.flush()
                        status.show("rendered; watching \(harness.files.count) file(s), Ctrl-C stops")
                        _ = watcher.wait(timeout: .infinity) { StopSignal.isRequested }
                    }
                }
            }
            if live {
                loop.keys = keys?.next
                let controls = ShaderControls(harness: harness, renderer: run.renderer)
                controls.onMessage = status.show
                loop.controls = controls
                loop.statusInterval = statusEvery
                loop.onStatus = { s in
                    status.show(String(format: "%.1f fps, %.1f ms/frame CPU, time %.2f s%@", s.recentFPS, s.cpuMillisecondsPerFrame,
                                       harness.clock.tick(index: 0).time, harness.clock.paused ? " (paused)" : ""))
                }
            }
            do {
                try loop.run(frames: count, duration: duration)
            } catch {
                builder.saveAfterFailure()
                throw error
            }
            if let screen = run.display { return loop.statistics.summary(verb: "showed") + " on \(screen.summary)" }
            if let count, StopSignal.isRequested, !live {
                FileHandle.standardError.write(Data("kamera: interrupted after \(loop.statistics.frames) of \(count) frame(s); every file written is complete\n".utf8))
            } else if let count, loop.statistics.frames < count, !builder.endedByOnce {
                FileHandle.standardError.write(Data("kamera: the input ended after \(loop.statistics.frames) of \(count) frames\n".utf8))
            }
            if let expectation = builder.expectation {
                return "checked \(expectation.checked) frame(s) against \(expectation.golden.pattern): all within \(tolerance)"
            }
            return nil
        }
        if let summary { status.finish(summary) }
    }
}
