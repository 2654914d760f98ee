import Pixels
/// The stream header of a YUV4MPEG2 file (`YUV4MPEG2 W640 H480 F30:1 C420jpeg`),
/// validated before anything is allocated.
public struct Y4MHeader: Equatable, Sendable {
    public var width: Int
    public var height: Int
    /// Frames per second from `F`, 30 when absent or `F0:0` (unknown).
    public var rate: Double
    public var chroma: String
    public var range: YUVColorSpace.Range
    /// The layout the planar frames are interleaved into: NV12 (4:2:0) or YUYV (4:2:2).
    public var format: PixelFormat

    public static let chromas = ["420", "420jpeg", "420paldv", "420mpeg2", "422"]

    /// Parses the header line (without its newline); `name` is the file, for messages.
    public init(parsing line: String, name: String) throws {
        var fields = line.split(separator: " ", omittingEmptySubsequences: true)[...]
        guard fields.popFirst() == "YUV4MPEG2" else {
            throw CaptureError("\(name): not a YUV4MPEG2 file (the first line must start with \"YUV4MPEG2 \")")
        }
        var width: Int?, height: Int?
        rate = 30
        chroma = "420jpeg"
        range = .limited
        for field in fields {
            let value = field.dropFirst()
            switch field.first {
            case "W": width = try Self.dimension(value, "W", name)
            case "H": height = try Self.dimension(value, "H", name)
            case "C": chroma = String(value)
            case "F": rate = try Self.rate(value, name)
            case "X":
                if value == "COLORRANGE=FULL" { range = .full } else if value == "COLORRANGE=LIMITED" { range = .limited }
            default: break  // I (interlacing), A (aspect) and unknown tags: ignored, as the format asks.
            }
        }
        guard let width, let height else {
            throw CaptureError("\(name): the YUV4MPEG2 header has no \(width == nil ? "W (width)" : "H (height)")")
        }
        try FrameLimits.check(width: width, height: height, "\(name): the frame size")
        self.width = width
        self.height = height
        switch chroma {
        case "420", "420jpeg", "420paldv", "420mpeg2": format = .nv12
        case "422": format = .yuyv
        default:
            throw CaptureError("\(name): Y4M chroma C\(excerpt(chroma)) is not supported; use \(Self.chromas.map { "C" + $0 }.joined(separator: ", "))")
        }
    }

    /// Bytes of one planar frame after its `FRAME` line.
    public var frameBytes: Int {
        let chromaWidth = (width + 1) / 2
        let chromaHeight = format == .nv12 ? (height + 1) / 2 : height
        return width * height + 2 * chromaWidth * chromaHeight
    }

    private static func dimension(_ value: Substring, _ tag: String, _ name: String) throws -> Int {
        guard value.count <= 9, value.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int(value), n > 0 else {
            throw CaptureError("\(name): \(tag)\(excerpt(value)) in the YUV4MPEG2 header is not a size; use a whole number from 1 to \(FrameLimits.maxSide)")
        }
        return n
    }

    private static func rate(_ value: Substring, _ name: String) throws -> Double {
        let parts = value.split(separator: ":", omittingEmptySubsequences: false)
        let numbers = parts.map { part -> Int? in
            guard part.count <= 9, !part.isEmpty, part.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            return Int(part)
        }
        if numbers.count == 2, numbers[0] == 0, numbers[1] == 0 { return 30 }  // 0:0 means unknown
        guard numbers.count == 2, let n = numbers[0], let d = numbers[1], n > 0, d > 0,
              FrameLimits.rates.contains(Double(n) / Double(d)) else {
            throw CaptureError("\(name): frame rate F\(excerpt(value)) is not valid; use F<n>:<d> with whole numbers above 0, e.g. F30:1 or F30000:1001, \(FrameLimits.rateSummary)")
        }
        return Double(n) / Double(d)
    }
}
