/// How to develop a raw Bayer frame handed on undemosaiced (`PixelFormat.bayer8`,
/// `.bayer16`, `.bayer10p`, `.bayer12p`): its format, the ISP settings and the white-balance gains
/// worked out for it from the statistics of the frames before (as `BayerISP`
/// would have used), so the frame uploader's shader gives what the CPU would.
public struct RawBayer: Equatable, Sendable {
    public var format: RepackedFormat
    public var settings: ISPSettings
    /// Red, green and blue gains.
    public var gains: SIMD3<Float>

    public init(format: RepackedFormat, settings: ISPSettings, gains: SIMD3<Float>) {
        precondition(format.mosaic != nil, "\(format.name) is not a Bayer format")
        self.format = format
        self.settings = settings
        self.gains = gains
    }

    public var mosaic: BayerMosaic { format.mosaic! }

    /// The black level in sample units, below the largest sample.
    public var blackLevel: Int { settings.blackLevel(for: mosaic) }

    /// The pixel format frames of `format` are handed on in, raw.
    public static func pixelFormat(of format: RepackedFormat) -> PixelFormat? {
        guard let bits = format.mosaic?.bits else { return nil }
        if format.isMIPIPacked { return bits == 10 ? .bayer10p : .bayer12p }
        return bits > 8 ? .bayer16 : .bayer8
    }
}
