import CGLES
import Filters
import GPU
import Messages
import Shaders

/// The compiled passes of a harness run: buffer passes (Shadertoy's Buffer
/// A-D, glslViewer's `u_buffer0...` and `u_doubleBuffer0...`), each drawing
/// every frame into one of two textures in turn so that it can read its own
/// previous frame, then the image pass.
final class ShaderGraph {
    final class BufferPass {
        let name: String
        let pass: ShaderPass
        var targets: [Framebuffer] = []
        /// The target holding the last complete frame.
        var front = 0

        init(name: String, pass: ShaderPass) {
            self.name = name
            self.pass = pass
        }

        var output: TextureView? {
            guard targets.count == 2 else { return nil }
            return pass.shader.convention.isBottomUp ? targets[front].asBottomUpTexture : targets[front].asTexture
        }
    }

    let image: ShaderPass
    private(set) var buffers: [BufferPass] = []
    /// Every file the shaders were read from.
    let files: [String]
    private(set) var warnings: [String] = []
    private let channels: [Int: ShaderHarnessConfiguration.ChannelSource]
    private var images: [String: ChannelImage] = [:]
    /// Buffers for glslViewer's sampler names.
    private var samplerBuffers: [String: BufferPass] = [:]
    private let bufferFormat: Framebuffer.Format
    private var frameCopy: Framebuffer?
    private var output: Framebuffer?

    init(_ configuration: ShaderHarnessConfiguration, glesMajor: Int, extensions: Set<String>) throws {
        let preprocessor = ShaderPreprocessor(includePaths: configuration.includePaths)
        let mainBody = try preprocessor.load(configuration.main)
        var files = mainBody.files
        // Uniforms given for one pass need not exist in every pass: set them where active.
        func compileTolerant(_ body: ShaderBody, defines: [ShaderDefine] = [], opaque: Bool) throws -> ShaderPass {
            let prepared = try PreparedShader(body, defines: configuration.defines + defines, glesMajor: glesMajor, opaque: opaque)
            for file in body.files where !files.contains(file) { files.append(file) }
            let probe = try ShaderPass(prepared)
            let active = Set(probe.uniforms.map(\.name))
            let mine = configuration.uniforms.filter { active.contains($0.name) }
            return mine.isEmpty ? probe : try ShaderPass(prepared, uniforms: mine)
        }
        let mainPrepared = try PreparedShader(mainBody, defines: configuration.defines, glesMajor: glesMajor)
        if mainPrepared.convention == .glslViewer {
            for name in mainPrepared.bufferSamplers {
                let number = name.filter(\.isNumber)
                let define = ShaderDefine(name: name.hasPrefix("u_doubleBuffer") ? "DOUBLE_BUFFER_\(number)" : "BUFFER_\(number)")
                let pass = BufferPass(name: name, pass: try compileTolerant(mainBody, defines: [define], opaque: false))
                buffers.append(pass)
                samplerBuffers[name] = pass
            }
        }
        for spec in configuration.buffers {
            let body = try preprocessor.load(spec.path)
            buffers.append(BufferPass(name: spec.name, pass: try compileTolerant(body, opaque: false)))
        }
        image = try compileTolerant(mainBody, opaque: true)
        // A --uniform that no pass uses is a mistake worth naming.
        let used = Set(([image] + buffers.map(\.pass)).flatMap { $0.uniforms.map(\.name) })
        if let unused = configuration.uniforms.first(where: { !used.contains($0.name) }) {
            let names = used.sorted().joined(separator: ", ")
            throw HarnessError("\(Setting.uniform) \(unused.name)=\(unused.text): no pass has an active uniform \(unused.name) (active: \(names.isEmpty ? "none" : names); the compiler drops uniforms a shader never reads)")
        }
        self.files = files
        channels = configuration.channels
        for (_, source) in configuration.channels {
            switch source {
            case .buffer(let name) where !buffers.contains(where: { $0.name == name }):
                throw HarnessError("channel source \(name): no such buffer; add it with \(Setting.buffer) \(name)=FILE.frag")
            case .image(let path) where images[path] == nil:
                images[path] = try ChannelImage(path: path)
            default: break
            }
        }
        let halfFloat = glesMajor >= 3 && (extensions.contains("GL_EXT_color_buffer_half_float") || extensions.contains("GL_EXT_color_buffer_float"))
        bufferFormat = halfFloat ? .rgba16f : .rgba8
        if !buffers.isEmpty && !halfFloat {
            warnings.append("this GPU cannot render to half-float textures; buffers are RGBA8, so values are clamped to 0...1 in steps of 1/255")
        }
    }

    /// Passes the last frame drew: the frame's copy when one was made, the buffers and the image.
    private(set) var passes = 0

    /// Renders every pass for one frame and returns the image pass's output.
    func render(frame: TextureView, inputs template: ShaderInputs, width: Int, height: Int, copier: TextureCopier) throws -> TextureView {
        let bottomUpFrame = try bottomUp(frame, copier: copier)
        let quad = copier.quad
        passes = buffers.count + 1 + (bottomUpFrame == frame ? 0 : 1)
        for buffer in buffers {
            if buffer.targets.count < 2 || buffer.targets[0].width != width || buffer.targets[0].height != height {
                // New or resized: both start cleared, as Shadertoy's buffers do.
                while buffer.targets.count < 2 { buffer.targets.append(try Framebuffer(width: width, height: height, format: bufferFormat)) }
                for target in buffer.targets {
                    try target.resize(width: width, height: height)
                    target.bind()
                    glClearColor(0, 0, 0, 0)
                    glClear(GLbitfield(GL_COLOR_BUFFER_BIT))
                }
            }
            let back = buffer.targets[1 - buffer.front]
            back.bind()
            buffer.pass.draw(inputs(template, for: buffer.pass, frame: frame, bottomUpFrame: bottomUpFrame, width: width, height: height), quad: quad)
            buffer.front = 1 - buffer.front
        }
        let target = try output ?? Framebuffer(width: width, height: height)
        output = target
        try target.resize(width: width, height: height)
        target.bind()
        image.draw(inputs(template, for: image, frame: frame, bottomUpFrame: bottomUpFrame, width: width, height: height), quad: quad)
        try GL.check("rendering the shader passes")
        return image.shader.convention.isBottomUp ? target.asBottomUpTexture : target.asTexture
    }

    private func inputs(_ template: ShaderInputs, for pass: ShaderPass, frame: TextureView, bottomUpFrame: TextureView,
                        width: Int, height: Int) -> ShaderInputs {
        var inputs = template
        (inputs.width, inputs.height) = (width, height)
        let bottomUp = pass.shader.convention.isBottomUp
        for index in 0..<4 {
            switch channels[index] {
            case .frame?: inputs.channels[index] = bottomUp ? bottomUpFrame : frame
            case .buffer(let name)?: inputs.channels[index] = buffers.first { $0.name == name }?.output
            case .image(let path)?: inputs.channels[index] = images[path]?.texture
            case nil: inputs.channels[index] = nil
            }
        }
        for (name, buffer) in samplerBuffers {
            if let texture = buffer.output { inputs.samplers[name] = texture }
        }
        return inputs
    }

    /// The frame as a whole texture with row 0 at the image's bottom, copied
    /// once a frame when a bottom-up pass reads it.
    private func bottomUp(_ frame: TextureView, copier: TextureCopier) throws -> TextureView {
        guard readsFrameBottomUp else { return frame }
        return try copier.bottomUp(frame, scratch: &frameCopy)
    }

    /// True when a bottom-up pass reads the frame: worked out once, not each frame.
    private lazy var readsFrameBottomUp = channels.values.contains(.frame)
        && (buffers.map(\.pass) + [image]).contains { $0.shader.convention.isBottomUp }
}
