import CGLES
import GPU
import Shaders

/// Runs the stages of a filter chain on the GPU, each pass rendering into one
/// of two framebuffers in turn (ping-pong) at the size of the input image.
public final class FilterRenderer {
    private var buffers: [Framebuffer] = []
    private let quad = Quad()
    private let colorMatrix: ColorMatrixProgram
    private var pixellate: PixellateProgram?
    private var custom: [String: ShaderPass] = [:]
    private let plain: ShaderProgram
    private let glesMajor: Int
    /// Passes rendered by the last `apply`.
    public private(set) var lastPassCount = 0

    public init() throws {
        colorMatrix = try ColorMatrixProgram()
        plain = try ShaderProgram(quadFragment: ShaderSource.texture, name: "texture.frag")
        glesMajor = GL.majorVersion()
    }

    /// Applies `stages` to `input`; returns `input` itself when there are none.
    /// `frame` and `time` feed custom shaders' `u_frame`/`iFrame` and `u_time`/`iTime`.
    public func apply(_ stages: [FilterStage], to input: CameraTexture, frame: Int = 0, time: Float = 0, frameRate: Double = 30) throws -> CameraTexture {
        lastPassCount = 0
        var current = input
        let width = input.pixelWidth, height = input.pixelHeight
        var next = 0
        /// The other buffer than the one `current` is in, sized, bound.
        func target() throws -> Framebuffer {
            while buffers.count < 2 { buffers.append(try Framebuffer(width: width, height: height)) }
            let buffer = buffers[next]
            next = 1 - next
            try buffer.resize(width: width, height: height)
            buffer.bind()
            return buffer
        }
        for stage in stages {
            if case .shader(let shader) = stage {
                let program = try custom[shader.source] ?? ShaderPass(PreparedShader(shader.body, defines: shader.defines, glesMajor: glesMajor),
                                                                       uniforms: shader.uniforms)
                custom[shader.source] = program
                if program.shader.convention.isBottomUp && current.region != .bottomUp {
                    // glslViewer and Shadertoy shaders sample whole textures with
                    // (0, 0) at the image's bottom: copy the region so first.
                    let copy = try target()
                    GL.bindTexture(current.name)
                    plain.use()
                    quad.draw(Quad.vertices(filling: current.region.flippedVertically))
                    current = copy.asBottomUpTexture
                    lastPassCount += 1
                }
                let output = try target()
                var inputs = ShaderInputs()
                (inputs.width, inputs.height, inputs.frame, inputs.time, inputs.frameRate) = (width, height, frame, Double(time), frameRate)
                inputs.delta = 1 / frameRate
                inputs.channels[0] = current
                program.draw(inputs, quad: quad)
                current = program.shader.convention.isBottomUp ? output.asBottomUpTexture : output.asTexture
                lastPassCount += 1
                continue
            }
            let output = try target()
            GL.bindTexture(current.name)
            switch stage {
            case .colorMatrix(let m):
                colorMatrix.set(m)
            case .pixellate(let block):
                let program = try pixellate ?? PixellateProgram()
                pixellate = program
                program.set(block: block, width: width, height: height)
            case .shader:
                break
            }
            quad.draw(Quad.vertices(filling: current.region))
            current = output.asTexture
            lastPassCount += 1
        }
        try GL.check("filter chain")
        return current
    }
}

private final class ColorMatrixProgram {
    let program: ShaderProgram
    private let uniforms: ColorMatrixUniforms

    init() throws {
        program = try ShaderProgram(quadFragment: ShaderSource.colorMatrix, name: "color_matrix.frag")
        uniforms = ColorMatrixUniforms(program)
    }

    func set(_ m: ColorMatrix) {
        program.use()
        uniforms.set(m)
    }
}

private final class PixellateProgram {
    let program: ShaderProgram
    private let resolution: GLint
    private let block: GLint

    init() throws {
        program = try ShaderProgram(quadFragment: ShaderSource.pixellate, name: "pixellate.frag")
        program.use()
        resolution = program.location("u_resolution")
        block = program.location("u_block")
    }

    func set(block size: Int, width: Int, height: Int) {
        program.use()
        glUniform1f(block, Float(size))
        glUniform2f(resolution, Float(width), Float(height))
    }
}

