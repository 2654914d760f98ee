import Glibc

/// How `BayerISP` turns a raw mosaic into a picture: black level, white
/// balance, demosaic, color correction and gamma, in that order.
public struct ISPSettings: Equatable, Sendable {
    /// How the two missing colors of each sample are estimated.
    public enum Demosaic: String, CaseIterable, Sendable {
        /// Malvar, He and Cutler's gradient-corrected 5x5 linear interpolation.
        case malvar
        /// The mean of the nearest samples of each color (3x3).
        case bilinear
    }

    /// Gains applied to the red, green and blue samples before the demosaic.
    public enum WhiteBalance: Equatable, Sendable {
        /// Gray world on the statistics of the frames before, smoothed over frames
        /// (the first frame uses its own).
        case auto
        /// Gray world on each frame's own statistics: the means of red, green and blue made equal.
        case grayWorld
        /// Gains of 1.
        case off
        /// Fixed gains.
        case gains(red: Float, green: Float, blue: Float)
    }

    /// The transfer applied last, from linear light to the 8-bit output.
    public enum Gamma: Equatable, Sendable {
        /// The sRGB curve: raw sensors are linear.
        case srgb
        /// None, for sources whose values are already encoded (vivid's test pattern).
        case none
        /// `value^(1/g)`.
        case power(Float)
    }

    public var demosaic = Demosaic.malvar
    /// Subtracted from every sample, in the format's own units (64 is 16 at 8 bits
    /// for a 10-bit sensor); nil for the source's own: a camera's sensor's
    /// (`SensorBlackLevel`), else 0.
    public var blackLevel: Int?

    /// The black level as applied to `mosaic`'s samples: below its largest sample, so some light remains.
    public func blackLevel(for mosaic: BayerMosaic) -> Int { min(blackLevel ?? 0, mosaic.maximum - 1) }
    public var whiteBalance = WhiteBalance.auto
    /// Row-major 3x3 color correction applied to linear RGB after the demosaic; nil for none.
    public var colorMatrix: [Float]?
    public var gamma = Gamma.srgb
    /// Hand frames on raw (`PixelFormat.bayer8`/`bayer16`/`bayer10p`/`bayer12p` with their `RawBayer`)
    /// for the frame uploader's demosaic shader, rather than demosaicing on the
    /// CPU; statistics and gains are worked out on the CPU either way. The other
    /// orders of packed 4:2:2, NV21, NV16, NV61, planar YUV, the other RGB
    /// orders, RGB565 and 10- to 16-bit gray are then handed on as they are
    /// too, for the frame uploader (`RepackedFormat.readOnGPU`).
    public var onGPU = false

    public init() {}

    public static let whiteBalanceForms = "auto, gray-world, off or three gains R,G,B (such as 1.8,1,1.5)"
    public static let gammaForms = "srgb, none or an exponent from 1 to 4 (such as 2.2)"

    /// Parses `--awb`: `auto`, `gray-world`, `off` or `R,G,B`.
    public static func whiteBalance(_ text: String) -> WhiteBalance? {
        switch text.lowercased() {
        case "auto": return .auto
        case "gray-world", "grey-world", "grayworld": return .grayWorld
        case "off", "none": return .off
        default:
            let parts = numbers(text)
            guard parts.count == 3, let r = parts[0], let g = parts[1], let b = parts[2],
                  [r, g, b].allSatisfy({ $0.isFinite && $0 > 0 && $0 <= 16 }) else { return nil }
            return .gains(red: r, green: g, blue: b)
        }
    }

    /// Parses `--gamma`: `srgb`, `none` or an exponent.
    public static func gamma(_ text: String) -> Gamma? {
        switch text.lowercased() {
        case "srgb": return .srgb
        case "none", "linear", "1": return Gamma.none
        default:
            guard let g = Float(text), g.isFinite, g >= 1, g <= 4 else { return nil }
            return .power(g)
        }
    }

    /// Parses `--ccm`: nine numbers, row by row, separated by commas.
    public static func colorMatrix(_ text: String) -> [Float]? {
        let parts = numbers(text)
        guard parts.count == 9, parts.allSatisfy({ $0.map { $0.isFinite && abs($0) <= 16 } ?? false }) else { return nil }
        return parts.map { $0! }
    }

    /// The comma-separated numbers of `text`, nil where one is not a number.
    private static func numbers(_ text: String) -> [Float?] {
        text.split(separator: ",", omittingEmptySubsequences: false).map { Float(String($0.filter { $0 != " " })) }
    }

    /// The encoded value (0...1) of linear `x` (0...1).
    public func encode(_ x: Double) -> Double {
        switch gamma {
        case .srgb: x <= 0.0031308 ? 12.92 * x : 1.055 * Glibc.pow(x, 1 / 2.4) - 0.055
        case .none: x
        case .power(let g): Glibc.pow(x, 1 / Double(g))
        }
    }
}
