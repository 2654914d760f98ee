/// Turns frames of a format Kamera does not read as it is into its native
/// layout, frame after frame: a repack for most (`RepackedFormat.repack`),
/// the image signal processor for raw Bayer (`BayerISP`, which keeps white
/// balance statistics and buffers from frame to frame). With `ISPSettings.onGPU`,
/// formats the GPU's conversion reads as they are (`RepackedFormat.readOnGPU`:
/// other orders of packed 4:2:2, NV21, NV16, NV61, planar YUV, RGB in other
/// byte orders, RGB565, 10- to 16-bit gray, raw Bayer, MIPI-packed too) are left so, and only a Bayer
/// frame's gains are worked out here: they are read where the camera put them
/// (`rawBayer(for:)`) or copied as they are (`repack`).
public final class FrameRepacker {
    public let format: RepackedFormat
    /// The processor of a Bayer format, nil for the others.
    public let isp: BayerISP?
    /// The layout of the frames `repack` writes.
    public let output: PixelFormat

    public init(format: RepackedFormat, isp settings: ISPSettings = ISPSettings()) {
        self.format = format
        isp = format.mosaic == nil ? nil : BayerISP(settings: settings)
        output = settings.onGPU ? format.readOnGPU ?? format.native : format.native
    }

    /// What becomes of the frames, for summaries: "repacked to yuyv", "demosaiced on the GPU"...
    public var path: String {
        if format.mosaic != nil { return output.isMosaic ? "demosaiced on the GPU" : "demosaiced to \(output.name) on the CPU" }
        return output == format.native ? "repacked to \(output.name)" : "converted on the GPU as it is"
    }

    /// The frame in `planes` into `target`, a buffer of `output` of the same
    /// size. For a raw Bayer frame handed on raw, how to develop it.
    @discardableResult
    public func repack(_ planes: [Plane], into target: FrameBuffer) -> RawBayer? {
        guard let isp, let mosaic = format.mosaic else {
            if output == format.native { format.repack(planes, into: target) } else { copyRows(planes, into: target) }
            return nil
        }
        guard output.isMosaic else {
            let plane = format.isMIPIPacked ? unpack(planes[0], mosaic: mosaic, width: target.width, height: target.height) : planes[0]
            isp.process(plane, mosaic: mosaic, into: target)
            return nil
        }
        copyRows(planes, into: target)
        let gains = isp.gains(for: target.planes[0], mosaic: mosaic, mipiPacked: format.isMIPIPacked, width: target.width, height: target.height)
        return RawBayer(format: format, settings: isp.settings, gains: gains)
    }

    /// How to develop a raw frame handed on as the driver gave it (`output` is
    /// its layout): the gains from its statistics, with no copy.
    public func rawBayer(for plane: Plane, width: Int, height: Int) -> RawBayer? {
        guard let isp, let mosaic = format.mosaic, output.isMosaic else { return nil }
        let gains = isp.gains(for: plane, mosaic: mosaic, mipiPacked: format.isMIPIPacked, width: width, height: height)
        return RawBayer(format: format, settings: isp.settings, gains: gains)
    }

    /// A frame left as it is, the rows of each plane copied into `target`
    /// (of `output`, whose planes are tight: a row is their stride).
    private func copyRows(_ planes: [Plane], into target: FrameBuffer) {
        for (source, plane) in zip(planes, target.planes) {
            RepackedFormat.copyRows(source, into: plane, width: plane.bytesPerRow, rows: plane.bytes.count / plane.bytesPerRow)
        }
    }

    /// MIPI-packed frames unpacked into 16-bit words before the CPU's ISP, kept between frames of one size.
    private var unpacked: FrameBuffer?

    private func unpack(_ plane: Plane, mosaic: BayerMosaic, width: Int, height: Int) -> Plane {
        if unpacked?.width != width || unpacked?.height != height {
            unpacked = FrameBuffer(format: .bayer16, width: width, height: height)
        }
        let buffer = unpacked!
        MIPIUnpacker.unpack(plane, bits: mosaic.bits, width: width, height: height, into: buffer.mutablePlane(0).baseAddress!,
                            bytesPerRow: buffer.planes[0].bytesPerRow)
        return buffer.planes[0]
    }
}
