/// A frame's luma copied out, one byte a pixel, rows tight: for YUV frames
/// and GREY the luma the frame holds (no conversion); for RGB frames
/// BT.601 luma in full range.
public enum LumaCopy {
    /// The range of the codes `copy` writes for a frame of this format and color space.
    public static func range(of format: PixelFormat, _ colorSpace: YUVColorSpace) -> YUVColorSpace.Range {
        format.isYUV ? colorSpace.range : .full
    }

    /// Copies the luma of `frame` into `target` (at least width x height bytes).
    public static func copy(_ frame: Frame, into target: UnsafeMutablePointer<UInt8>) {
        let (w, h) = (frame.width, frame.height)
        let plane = frame.planes[0]
        let source = plane.bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        for y in 0..<h {
            let row = source + y * plane.bytesPerRow, out = target + y * w
            switch frame.format {
            case .nv12, .nv21, .nv16, .nv61, .yu12, .yv12, .yuv422p, .grey:
                out.update(from: row, count: w)
            case .yuyv:
                for x in 0..<w { out[x] = row[2 &* x] }
            case .uyvy, .yvyu, .vyuy:
                let (y0, y1) = (frame.format.pairOrder!.y0, frame.format.pairOrder!.y1)
                for x in 0..<w { out[x] = row[4 &* (x >> 1) &+ (x & 1 == 0 ? y0 : y1)] }
            case .rgb565:
                for x in 0..<w {
                    let (r, g, b) = RepackedFormat.widenRGB565(row, at: x)
                    out[x] = luma(Int32(r), Int32(g), Int32(b))
                }
            case .bayer8, .bayer16, .bayer10p, .bayer12p:
                copyMosaic(frame, row: y, into: out)
            case .y10, .y12, .y16:
                RepackedFormat.widenGray(row, out, w, top: UInt32(1 << frame.format.grayBits!) - 1)
            default:
                let at = frame.format.rgbBytes!
                for x in 0..<w {
                    let p = row + at.size &* x
                    out[x] = luma(Int32(p[at.r]), Int32(p[at.g]), Int32(p[at.b]))
                }
            }
        }
    }

    /// BT.601 luma: 0.299, 0.587, 0.114 in 16.16, rounded.
    @inline(__always)
    private static func luma(_ r: Int32, _ g: Int32, _ b: Int32) -> UInt8 {
        UInt8(truncatingIfNeeded: (19595 &* r &+ 38470 &* g &+ 7471 &* b &+ 32768) >> 16)
    }

    /// Raw Bayer: each pixel the mean of the 2x2 block it is in (red, two
    /// greens and blue weighted 1/4, 1/2, 1/4), at 8 bits, with no black level,
    /// white balance or curve: a luma good enough to find things in. Of
    /// MIPI-packed samples, the high 8 bits only.
    private static func copyMosaic(_ frame: Frame, row y: Int, into out: UnsafeMutablePointer<UInt8>) {
        let plane = frame.planes[0], top = y & ~1
        let shift = (frame.bayer?.mosaic.bits ?? 8) - 8
        let rows = (plane.bytes.baseAddress! + top * plane.bytesPerRow, plane.bytes.baseAddress! + (top + 1) * plane.bytesPerRow)
        let group = frame.format.mipiGroup ?? 0
        for x in stride(from: 0, to: frame.width, by: 2) {
            let sum: Int
            if group > 0 {
                let a = rows.0.assumingMemoryBound(to: UInt8.self), b = rows.1.assumingMemoryBound(to: UInt8.self)
                let at = x / group * (group + 1) + x % group  // x is even, so x + 1 is in the same group
                sum = Int(a[at]) + Int(a[at + 1]) + Int(b[at]) + Int(b[at + 1])
            } else if frame.format == .bayer16 {
                let a = rows.0.assumingMemoryBound(to: UInt16.self), b = rows.1.assumingMemoryBound(to: UInt16.self)
                sum = (Int(UInt16(littleEndian: a[x])) + Int(UInt16(littleEndian: a[x + 1])) + Int(UInt16(littleEndian: b[x]))
                    + Int(UInt16(littleEndian: b[x + 1]))) >> shift
            } else {
                let a = rows.0.assumingMemoryBound(to: UInt8.self), b = rows.1.assumingMemoryBound(to: UInt8.self)
                sum = Int(a[x]) + Int(a[x + 1]) + Int(b[x]) + Int(b[x + 1])
            }
            let luma = UInt8(clamping: (sum + 2) / 4)
            out[x] = luma
            out[x + 1] = luma
        }
    }
}
