import GPU

/// A user's `.frag` file as a filter: in Kamera's, glslViewer's or
/// Shadertoy's convention, its `#include`s expanded.
public struct CustomShaderFilter: Filter {
    public var path: String
    public var body: ShaderBody
    public var defines: [ShaderDefine]
    public var uniforms: [ShaderUniformValue]

    public init(path: String, body: ShaderBody, defines: [ShaderDefine] = [], uniforms: [ShaderUniformValue] = []) {
        self.path = path
        self.body = body
        self.defines = defines
        self.uniforms = uniforms
    }

    /// The shader in the file at `path`.
    public init(path: String) throws {
        self.init(path: path, body: try ShaderPreprocessor().load(path))
    }

    /// A shader whose text is given; includes resolve against `path`'s folder.
    public init(path: String, source: String) throws {
        self.init(path: path, body: try ShaderPreprocessor().expand(source, path: path))
    }

    public var name: String { path }

    /// The expanded text.
    public var source: String { body.lines.joined(separator: "\n") }

    public func makeStage() throws -> RenderStage {
        try CustomShaderStage(ShaderPass(PreparedShader(body, defines: defines, glesMajor: GL.majorVersion()), uniforms: uniforms))
    }
}

/// Draws a user's shader over the picture. glslViewer and Shadertoy shaders
/// sample whole textures with (0, 0) at the image's bottom: the picture is
/// copied so first when it is not.
final class CustomShaderStage: RenderStage {
    private let pass: ShaderPass
    private var flipped: Framebuffer?
    private var output: Framebuffer?
    private(set) var passes = 0

    init(_ pass: ShaderPass) {
        self.pass = pass
    }

    func render(_ input: TextureView, _ frame: StageFrame) throws -> TextureView {
        let (width, height) = (input.pixelWidth, input.pixelHeight)
        let bottomUp = pass.shader.convention.isBottomUp
        let current = bottomUp ? try frame.copier.bottomUp(input, scratch: &flipped) : input
        passes = current == input ? 1 : 2
        let target = try Framebuffer.reused(&output, width: width, height: height)
        target.bind()
        var inputs = ShaderInputs()
        (inputs.width, inputs.height, inputs.frame, inputs.time, inputs.frameRate) = (width, height, frame.index, frame.time, frame.frameRate)
        inputs.delta = 1 / frame.frameRate
        inputs.channels[0] = current
        pass.draw(inputs, quad: frame.copier.quad)
        return bottomUp ? target.asBottomUpTexture : target.asTexture
    }
}
