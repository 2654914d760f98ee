/// Turns frames of a format Kamera does not read as it is into its native
/// layout, frame after frame: a repack for most (`RepackedFormat.repack`),
/// the image signal processor for raw Bayer (`BayerISP`, which keeps white
/// balance statistics and buffers from frame to frame). With `ISPSettings.onGPU`,
/// raw Bayer is copied as it is and only its gains are worked out here.
public final class FrameRepacker {
    public let format: RepackedFormat
    /// The processor of a Bayer format, nil for the others.
    public let isp: BayerISP?
    /// The layout of the frames `repack` writes.
    public let output: PixelFormat

    public init(format: RepackedFormat, isp settings: ISPSettings = ISPSettings()) {
        self.format = format
        isp = format.mosaic == nil ? nil : BayerISP(settings: settings)
        output = format.mosaic.map { settings.onGPU ? RawBayer.pixelFormat(of: $0) : format.native } ?? format.native
    }

    /// What becomes of the frames, for summaries: "repacked to yuyv", "demosaiced on the GPU"...
    public var path: String {
        format.mosaic == nil ? "repacked to \(output.name)" : output.isMosaic ? "demosaiced on the GPU" : "demosaiced to \(output.name) on the CPU"
    }

    /// The frame in `planes` into `target`, a buffer of `output` of the same
    /// size. For a raw Bayer frame handed on raw, how to develop it.
    @discardableResult
    public func repack(_ planes: [Plane], into target: FrameBuffer) -> RawBayer? {
        guard let isp, let mosaic = format.mosaic else {
            format.repack(planes, into: target)
            return nil
        }
        guard output.isMosaic else {
            isp.process(planes[0], mosaic: mosaic, into: target)
            return nil
        }
        let gains = isp.gains(for: planes[0], mosaic: mosaic, width: target.width, height: target.height)
        let rowBytes = target.width * mosaic.bytesPerSample, out = target.mutablePlane(0).baseAddress!
        for y in 0..<target.height {
            (out + y * target.planes[0].bytesPerRow).copyMemory(from: planes[0].bytes.baseAddress! + y * planes[0].bytesPerRow, byteCount: rowBytes)
        }
        return RawBayer(format: format, settings: isp.settings, gains: gains)
    }
}
