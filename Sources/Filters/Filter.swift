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

/// A user's `.frag` file, used as a filter.
public struct CustomShader: Equatable {
    public var path: String
    public var source: String

    public init(path: String, source: String) {
        self.path = path
        self.source = source
    }
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
