/// Turns frames of a format Kamera does not read as it is into its native
/// layout, frame after frame: a repack for most (`RepackedFormat.repack`),
/// the image signal processor for raw Bayer (`BayerISP`, which keeps white
/// balance statistics and buffers from frame to frame).
public final class FrameRepacker {
    public let format: RepackedFormat
    /// The processor of a Bayer format, nil for the others.
    public let isp: BayerISP?

    public init(format: RepackedFormat, isp settings: ISPSettings = ISPSettings()) {
        self.format = format
        isp = format.mosaic == nil ? nil : BayerISP(settings: settings)
    }

    /// The frame in `planes` into `target`, a buffer of `format.native` of the same size.
    public func repack(_ planes: [Plane], into target: FrameBuffer) {
        if let isp, let mosaic = format.mosaic {
            isp.process(planes[0], mosaic: mosaic, into: target)
        } else {
            format.repack(planes, into: target)
        }
    }
}
