import Messages
import Filters
import Render

/// What `kamera shader` runs: the image shader, its buffer passes and
/// channels, defines, include paths and user uniforms.
public struct ShaderHarnessConfiguration: Equatable {
    /// The image pass: the shader whose output is shown.
    public var main: String
    /// Shadertoy-style buffers, rendered in this order before the image pass.
    public var buffers: [BufferSpec] = []
    /// What `iChannelN` / `u_texN` show, for every pass; channel 0 defaults to the frame.
    public var channels: [Int: ChannelSource] = [0: .frame]
    public var defines: [ShaderDefine] = []
    public var includePaths: [String] = []
    public var uniforms: [ShaderUniformValue] = []
    /// How the frame fills channel 0 when its shape is not the output's:
    /// `contain` (bars), `cover` (cropped) or `stretch`, as `--fit` says.
    public var frameFit: FitMode = .contain

    public init(main: String) {
        self.main = main
    }

    /// A buffer pass: `A=a.frag`.
    public struct BufferSpec: Equatable {
        public var name: String
        public var path: String

        public static let names = ["A", "B", "C", "D"]

        /// Parses `A=a.frag` (buffers A to D).
        public init(parsing text: String) throws {
            let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, Self.names.contains(parts[0].uppercased()), !parts[1].isEmpty else {
                throw HarnessError("buffer \(text): use NAME=FILE.frag with NAME one of A, B, C, D, e.g. A=blur.frag")
            }
            name = parts[0].uppercased()
            path = parts[1]
        }
    }

    /// Where a channel's texture comes from.
    public enum ChannelSource: Equatable {
        /// The live frame after the frame uploader (and any filters).
        case frame
        /// A buffer pass's output (its previous frame when a pass reads itself or a later one).
        case buffer(String)
        /// A PNG image, loaded once.
        case image(String)
    }

    /// Parses `0=A`, `1=camera`, `2=noise.png` into a channel and its source.
    public static func channel(parsing text: String) throws -> (Int, ChannelSource) {
        let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, let index = Int(parts[0]), (0...3).contains(index), !parts[1].isEmpty else {
            throw HarnessError("channel \(text): use N=SOURCE with N 0 to 3 and SOURCE camera (the frame), a buffer A-D, or an image FILE.png")
        }
        let value = parts[1]
        if ["camera", "frame", "input"].contains(value.lowercased()) { return (index, .frame) }
        if BufferSpec.names.contains(value.uppercased()) && value.count == 1 { return (index, .buffer(value.uppercased())) }
        guard value.lowercased().hasSuffix(".png") else {
            throw HarnessError("channel \(text): \"\(value)\" is not a source; use camera, a buffer A-D, or an image FILE.png")
        }
        return (index, .image(value))
    }
}

/// A harness failure, with a message meant for the user.
public struct HarnessError: LibraryError {
    public let facts: Facts
    public init(facts: Facts) { self.facts = facts }
}
