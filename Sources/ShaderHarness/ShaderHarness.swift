import Filters
import Foundation
import GPU
import Messages
import Pipeline
import Render

/// Shader development over the frame loop: the user's shader (Kamera's,
/// glslViewer's or Shadertoy's convention, with buffer passes) drawn over
/// each frame as a stage of the renderer (`customStages`), at the output's
/// size and on the clock's time; with a watcher, recompiled on every save on
/// the render thread, the last good shader kept running while a save does
/// not compile.
public final class ShaderHarness: RenderStage {
    public let configuration: ShaderHarnessConfiguration
    public let clock: ShaderClock
    private var graph: ShaderGraph
    private let glesMajor: Int
    private let extensions: Set<String>
    /// When set, checked before each frame; a change recompiles.
    public var watcher: FileWatcher?
    /// Hears reloads and what a failed one means, one line each.
    public var onMessage: ((String) -> Void)?
    /// Hears why a save did not compile: the compiler's lines, `file:line: message` each.
    public var onError: ((String) -> Void)?
    /// The compile error of the last save, nil once it compiles.
    public private(set) var lastError: String?
    public private(set) var reloads = 0
    /// The frame fitted to the output's shape (`frameFit`), drawn only when the shapes differ.
    private var fitter: PreviewRenderer?
    private var fitted: Framebuffer?

    /// Compiles every pass; call on the thread that owns `context`.
    public init(configuration: ShaderHarnessConfiguration, clock: ShaderClock, context: GPUContext) throws {
        self.configuration = configuration
        self.clock = clock
        glesMajor = context.glesMajorVersion
        extensions = context.glExtensions
        graph = try ShaderGraph(configuration, glesMajor: glesMajor, extensions: extensions)
    }

    /// Messages worth showing once, after construction (e.g. the buffer format).
    public var warnings: [String] { graph.warnings }

    /// Every file the shaders were read from, includes too.
    public var files: [String] { graph.files }

    /// The convention the image shader was read in.
    public var convention: ShaderConvention { graph.image.shader.convention }

    public var passes: Int { graph.passes }

    public func render(_ texture: TextureView, _ frame: StageFrame) throws -> TextureView {
        if let watcher, watcher.takeChange() { reload() }
        let tick = clock.tick(index: frame.index)
        var inputs = ShaderInputs()
        inputs.frame = tick.frame
        inputs.time = tick.time
        inputs.delta = tick.delta
        inputs.frameRate = clock.fps
        inputs.date = Self.date(time: tick.time, live: clock.mode == .live)
        return try graph.render(frame: try fit(texture, frame), inputs: inputs, width: frame.outputWidth, height: frame.outputHeight,
                                copier: frame.copier)
    }

    /// The frame as channel 0 sees it: as it is when its shape is the output's
    /// or `frameFit` is `stretch`; otherwise drawn at the output's size with
    /// bars (`contain`) or cropped (`cover`), so shaders see it undistorted.
    private func fit(_ texture: TextureView, _ frame: StageFrame) throws -> TextureView {
        let (w, h) = (frame.outputWidth, frame.outputHeight)
        guard configuration.frameFit != .stretch, texture.pixelWidth * h != texture.pixelHeight * w else { return texture }
        if fitter == nil { fitter = try PreviewRenderer(layout: PreviewLayout(fit: configuration.frameFit)) }
        let target = try Framebuffer.reused(&fitted, width: w, height: h)
        fitter!.draw(texture, matrix: .identity, into: target, frame)
        return target.asTexture
    }

    /// Compiles the files again; on failure keeps the running shader and
    /// reports the error. Returns true when the new shader took over.
    @discardableResult
    public func reload() -> Bool {
        do {
            graph = try ShaderGraph(configuration, glesMajor: glesMajor, extensions: extensions)
            reloads += 1
            lastError = nil
            let saved = watcher?.changed ?? []
            watcher?.watch(graph.files, folders: configuration.includePaths)
            watcher?.anyChangeCounts = false
            onMessage?("reloaded after a save of \(saved.isEmpty ? configuration.main : saved.joined(separator: ", "))")
            return true
        } catch {
            lastError = "\(error)"
            // The fix may be a file not there yet (an include): any change retries.
            watcher?.anyChangeCounts = true
            onError?("\(error)")
            onMessage?("still running the last shader that compiled; fix the file and save again")
            return false
        }
    }

    /// The active uniforms of every pass, their types and where their values come from.
    public var uniformListing: String {
        var lines: [String] = []
        for (name, pass) in graph.buffers.map({ ("buffer \($0.name)", $0.pass) }) + [("image", graph.image)] {
            lines.append("\(name) (\(pass.shader.name), \(pass.shader.convention.rawValue) convention, GLSL ES \(pass.shader.version == 300 ? "3.00" : "1.00")):")
            if pass.uniforms.isEmpty { lines.append("  no active uniforms") }
            for u in pass.uniforms {
                let type = u.size > 1 ? "\(u.typeName)[\(u.size)]" : u.typeName
                lines.append("  \(u.name.padding(toLength: max(20, u.name.count), withPad: " ", startingAt: 0)) \(type.padding(toLength: 10, withPad: " ", startingAt: 0)) \(describe(u.name, in: pass))")
            }
        }
        return lines.joined(separator: "\n")
    }

    private func describe(_ name: String, in pass: ShaderPass) -> String {
        for prefix in ["iChannel", "u_tex"] where name.hasPrefix(prefix) {
            if let index = Int(name.dropFirst(prefix.count)) {
                switch configuration.channels[index] {
                case .frame?: return "channel \(index): the frame"
                case .buffer(let b)?: return "channel \(index): buffer \(b)"
                case .image(let path)?: return "channel \(index): \(path)"
                case nil: return "channel \(index): nothing bound (\(Setting.channel) \(index)=...)"
                }
            }
        }
        return pass.valueSource(of: name)
    }

    /// iDate: the real date when live; in exports 2000-01-01 plus the time, so output is reproducible.
    static func date(time: Double, live: Bool) -> SIMD4<Float> {
        guard live else { return SIMD4(2000, 0, 1, Float(time.truncatingRemainder(dividingBy: 86_400))) }
        let now = Date()
        let c = Calendar(identifier: .gregorian).dateComponents(in: TimeZone.current, from: now)
        let seconds = Double((c.hour ?? 0) * 3600 + (c.minute ?? 0) * 60 + (c.second ?? 0)) + Double(c.nanosecond ?? 0) / 1e9
        return SIMD4(Float(c.year ?? 2000), Float((c.month ?? 1) - 1), Float(c.day ?? 1), Float(seconds))
    }
}
