import GPU
import Messages

/// The values a user shader's standard uniforms get for one frame, in every
/// convention: Shadertoy's `iTime`, glslViewer's `u_time`, Kamera's `u_time`.
public struct ShaderInputs {
    /// Seconds: `iTime`, `u_time`.
    public var time: Double = 0
    /// Seconds since the previous frame: `iTimeDelta`, `u_delta`.
    public var delta: Double = 0
    /// `iFrame`, `u_frame`.
    public var frame: Int = 0
    /// `iFrameRate`.
    public var frameRate: Double = 30
    /// The size of the pass's output in pixels: `iResolution`, `u_resolution`.
    public var width = 1
    public var height = 1
    /// `iMouse` (x, y, click x, click y); `u_mouse` takes x and y.
    public var mouse = SIMD4<Float>(0, 0, 0, 0)
    /// `iDate`, `u_date`: year, month (0-11), day (1-31), seconds since midnight.
    public var date = SIMD4<Float>(2000, 0, 1, 0)
    /// `iChannel0...3` (and `u_tex0...3`): for Kamera's convention, channel 0 is `u_texture`.
    public var channels: [TextureView?] = [nil, nil, nil, nil]
    /// Other samplers by uniform name, e.g. glslViewer's `u_buffer0`.
    public var samplers: [String: TextureView] = [:]

    public init() {}
}

/// A `--uniform name=value`: numbers (float, vecN, int, ivecN) or a bool.
public struct ShaderUniformValue: Equatable, Sendable {
    public var name: String
    public var numbers: [Double]
    public var text: String

    /// Parses `name=1.5`, `name=1,0,0`, `name=true`.
    public init(parsing argument: String) throws {
        let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty else {
            throw FilterError(.uniform, "\(argument)", because: "use NAME=VALUE, e.g. u_gain=1.5, u_color=1,0.5,0 or u_on=true")
        }
        name = String(parts[0])
        text = String(parts[1])
        switch text {
        case "true": numbers = [1]
        case "false": numbers = [0]
        default:
            let items = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard !items.isEmpty, items.count <= 4, items.allSatisfy({ $0.map { abs($0) <= Double(Float.greatestFiniteMagnitude) } == true }) else {
                throw FilterError(.uniform, "\(argument)", because: "\"\(text)\" is not a value", "give 1 to 4 numbers (each within a float's range, about ±3.4e38) separated by commas, or true/false")
            }
            numbers = items.map { $0! }
        }
    }
}
