/// The largest frames and the range of frame rates Kamera takes, checked
/// before anything is allocated: sizes that come from a file header or the
/// command line are validated here first.
public enum FrameLimits {
    /// Pixels on a side (the texture limit of most GPUs, llvmpipe's included).
    public static let maxSide = 16384
    /// Pixels in a frame: 64 megapixels, e.g. 8192x8192 (256 MiB as RGBA).
    public static let maxPixels = 1 << 26
    /// Frames per second: one an hour up to 1000.
    public static let rates: ClosedRange<Double> = (1.0 / 3600)...1000

    /// The largest frame number and frame count, everywhere (`--frames`, ranges,
    /// `--time` x fps): a billion, a year at 30 fps; arithmetic on frame numbers
    /// below it cannot overflow.
    public static let maxFrames = 1_000_000_000
    /// The longest `--duration` or `--time`, in seconds (about 31 years).
    public static let maxSeconds = 1e9

    public static let summary = "at most \(maxSide) pixels a side and 64 megapixels (8192x8192)"
    public static let rateSummary = "from 1/3600 (one frame an hour) to 1000 frames per second"

    /// True when a `width` x `height` frame is within the limits.
    public static func allows(width: Int, height: Int) -> Bool {
        width >= 1 && height >= 1 && width <= maxSide && height <= maxSide && width * height <= maxPixels
    }

    /// Throws, naming `what`, unless a `width` x `height` frame is within the limits.
    public static func check(width: Int, height: Int, _ what: String) throws {
        guard width >= 1, height >= 1 else {
            throw PixelError("\(what): \(width)x\(height) is empty; width and height must be at least 1")
        }
        guard allows(width: width, height: height) else {
            throw PixelError("\(what): \(width)x\(height) is too large; Kamera takes \(summary)")
        }
    }

    /// Nanoseconds since the first frame for frame `index` at `rate`, saturating.
    public static func timestamp(frame index: UInt64, rate: Double) -> UInt64 {
        let nanoseconds = Double(index) / rate * 1_000_000_000
        return nanoseconds < 9.2e18 ? UInt64(nanoseconds) : UInt64(Int64.max)
    }
}
