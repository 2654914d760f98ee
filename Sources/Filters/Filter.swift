/// One step of a filter chain.
public enum Filter: Equatable {
    /// A color matrix (a preset, an adjustment or a custom matrix), with its name.
    case colorMatrix(String, ColorMatrix)
    /// Mosaic of square blocks, `blockSize` pixels of the source image on a side.
    case pixellate(blockSize: Int)
    /// A custom fragment shader.
    case shader(CustomShader)

    public var name: String {
        switch self {
        case .colorMatrix(let name, _): name
        case .pixellate(let n): "pixellate=\(n)"
        case .shader(let s): s.path
        }
    }
}

/// A user's `.frag` file, used as a filter: in Kamera's, glslViewer's or
/// Shadertoy's convention, its `#include`s expanded.
public struct CustomShader: Equatable {
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

    /// A shader whose text is given; includes resolve against `path`'s folder.
    public init(path: String, source: String) throws {
        self.init(path: path, body: try ShaderPreprocessor().expand(source, path: path))
    }

    /// The expanded text (the cache key for its compiled program).
    public var source: String { body.lines.joined(separator: "\n") }
}

/// A render pass of a folded chain: consecutive color matrices become one.
public enum FilterStage: Equatable {
    case colorMatrix(ColorMatrix)
    case pixellate(blockSize: Int)
    case shader(CustomShader)
}

/// A bad filter argument, with a message meant for the user.
public struct FilterError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
