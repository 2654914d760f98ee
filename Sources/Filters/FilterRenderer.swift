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
    private var custom: [String: CustomProgram] = [:]
    /// Passes rendered by the last `apply`.
    public private(set) var lastPassCount = 0

    public init() throws {
        colorMatrix = try ColorMatrixProgram()
    }

    /// Applies `stages` to `input`; returns `input` itself when there are none.
    /// `frame` and `time` feed custom shaders' `u_frame` and `u_time`.
    public func apply(_ stages: [FilterStage], to input: CameraTexture, frame: Int = 0, time: Float = 0) throws -> CameraTexture {
        lastPassCount = 0
        var current = input
        let width = input.pixelWidth, height = input.pixelHeight
        for (index, stage) in stages.enumerated() {
            if buffers.count < min(2, stages.count) { buffers.append(try Framebuffer(width: width, height: height)) }
            let target = buffers[index % 2]
            try target.resize(width: width, height: height)
            target.bind()
            GL.bindTexture(current.name)
            switch stage {
            case .colorMatrix(let m):
                colorMatrix.set(m)
            case .pixellate(let block):
                let program = try pixellate ?? PixellateProgram()
                pixellate = program
                program.set(block: block, width: width, height: height)
            case .shader(let shader):
                let program = try custom[shader.source] ?? CustomProgram(shader)
                custom[shader.source] = program
                program.set(width: width, height: height, frame: frame, time: time)
            }
            quad.draw(Quad.vertices(filling: current.region))
            current = target.asTexture
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

private final class CustomProgram {
    let program: ShaderProgram
    private let resolution: GLint
    private let frame: GLint
    private let time: GLint

    init(_ shader: CustomShader) throws {
        program = try ShaderProgram(quadFragment: shader.source, name: shader.path)
        program.use()
        resolution = program.location("u_resolution")
        frame = program.location("u_frame")
        time = program.location("u_time")
    }

    func set(width: Int, height: Int, frame index: Int, time seconds: Float) {
        program.use()
        glUniform2f(resolution, Float(width), Float(height))
        glUniform1f(frame, Float(index))
        glUniform1f(time, seconds)
    }
}
