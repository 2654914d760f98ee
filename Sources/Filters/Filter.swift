import Messages
import GPU

/// A filter as the user named it (`--filter blur=5`): a value, compared by
/// what it does, that makes the GPU stage drawing it. A new filter is one
/// file holding its `Filter`, its `FilterKind` and its stage, a shader in
/// `Sources/Filters/Shaders`, and one line in `FilterRegistry.kinds`.
public protocol Filter: Equatable {
    /// The filter as typed, normalized: "sepia", "blur=5", "pixellate=8@0,0,64,64".
    var name: String { get }
    /// The filter as one color matrix, when it is one: runs of color
    /// matrices fold into one matrix, and into the conversion or the layout.
    var colorMatrix: ColorMatrix? { get }
    /// Makes the stage that draws the filter; on the thread that owns the context.
    func makeStage() throws -> RenderStage
}

extension Filter {
    public var colorMatrix: ColorMatrix? { nil }

    /// True when `other` is the same filter with the same parameters.
    public func isEqual(to other: any Filter) -> Bool {
        (other as? Self) == self
    }
}

/// A kind of filter users can name on the command line: its name, what it
/// takes, and how its value is read.
public struct FilterKind: Sendable {
    /// The name before any `=`: "sepia", "blur".
    public let name: String
    /// How it is written, for listings and errors: "blur=SIGMA".
    public let usage: String
    /// What it does, one line.
    public let summary: String
    /// Reads the value after `=` (nil when there is none) at a color-matrix intensity.
    public let make: @Sendable (_ value: String?, _ intensity: Float) throws -> any Filter

    public init(name: String, usage: String, summary: String,
                make: @escaping @Sendable (_ value: String?, _ intensity: Float) throws -> any Filter) {
        self.name = name
        self.usage = usage
        self.summary = summary
        self.make = make
    }

    /// True when the filter takes a value after `=`.
    public var takesValue: Bool { usage.contains("=") }
}

/// A bad filter argument, with a message meant for the user.
public struct FilterError: LibraryError {
    public let facts: Facts
    public init(facts: Facts) { self.facts = facts }
}
