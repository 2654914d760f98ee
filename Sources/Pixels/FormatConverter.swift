/// CPU conversion from RGBA into the other pixel formats, used to make test
/// frames in every layout the frame uploader reads. Chroma is the average of the
/// pixels it covers.
public enum FormatConverter {
    /// Converts the pixels of `source` in `rows` and `columns` (all by
    /// default; widened to whole chroma pairs, and rows for 4:2:0),
    /// leaving the rest of `target` as it is.
    public static func convert(rgba source: FrameBuffer, to target: FrameBuffer, colorSpace: YUVColorSpace,
                               rows wanted: Range<Int>? = nil, columns wantedColumns: Range<Int>? = nil) {
        let w = source.width, h = source.height
        let src = source.planes[0].bytes
        let dst = target.mutablePlane(0)
        var rows = (wanted ?? 0..<h).clamped(to: 0..<h)
        var columns = (wantedColumns ?? 0..<w).clamped(to: 0..<w)
        let chroma = target.format.chromaLayout
        if chroma?.fullHeight == false { rows = (rows.lowerBound & ~1)..<min(h, (rows.upperBound + 1) & ~1) }
        if target.format.isYUV { columns = (columns.lowerBound & ~1)..<min(w, (columns.upperBound + 1) & ~1) }
        guard !rows.isEmpty, !columns.isEmpty else { return }
        var memo = LastColor()
        for y in rows {
            let pixels = y * w + columns.lowerBound..<y * w + columns.upperBound
            switch target.format {
            case .rgba:
                let bytes = pixels.lowerBound * 4..<pixels.upperBound * 4
                UnsafeMutableRawBufferPointer(rebasing: dst[bytes]).copyMemory(from: UnsafeRawBufferPointer(rebasing: src[bytes]))
            case .rgb565:
                for p in pixels {
                    // Each channel rounded to its bits; little-endian, R in the top 5.
                    let r = (Int(src[p * 4]) * 31 + 127) / 255, g = (Int(src[p * 4 + 1]) * 63 + 127) / 255, b = (Int(src[p * 4 + 2]) * 31 + 127) / 255
                    let word = r << 11 | g << 5 | b
                    dst[p * 2] = UInt8(word & 0xFF); dst[p * 2 + 1] = UInt8(word >> 8)
                }
            case .grey:
                for p in pixels {
                    dst[p] = memo.yuv((src[p * 4], src[p * 4 + 1], src[p * 4 + 2]), colorSpace).y
                }
            case .yuyv, .uyvy, .yvyu, .vyuy:
                let rowBytes = target.planes[0].bytesPerRow, at = target.format.pairOrder!
                for x in stride(from: columns.lowerBound, to: columns.upperBound, by: 2) {
                    let a = pixel(src, w, x, y), b = pixel(src, w, min(x + 1, w - 1), y)
                    let ya = memo.yuv(a, colorSpace), yb = memo.yuv(b, colorSpace)
                    let o = y * rowBytes + x * 2
                    dst[o + at.y0] = ya.y; dst[o + at.u] = avg(ya.u, yb.u); dst[o + at.y1] = yb.y; dst[o + at.v] = avg(ya.v, yb.v)
                }
            case .y10, .y12, .y16:
                let top = (1 << target.format.grayBits!) - 1
                for p in pixels {
                    let word = (Int(memo.yuv((src[p * 4], src[p * 4 + 1], src[p * 4 + 2]), colorSpace).y) * top + 127) / 255
                    dst[p * 2] = UInt8(word & 0xFF); dst[p * 2 + 1] = UInt8(word >> 8)
                }
            case .bayer8, .bayer16, .bayer10p, .bayer12p:
                preconditionFailure("raw Bayer needs its pattern: mosaic test frames with BayerMosaic")
            case .nv12, .nv21, .nv16, .nv61, .yu12, .yv12, .yuv422p:
                for x in columns {
                    dst[y * w + x] = memo.yuv(pixel(src, w, x, y), colorSpace).y
                }
            default:
                // RGB in its byte order; an unused byte (X) written opaque.
                let at = target.format.rgbBytes!
                for p in pixels {
                    let o = p * at.size
                    dst[o + at.r] = src[p * 4]; dst[o + at.g] = src[p * 4 + 1]; dst[o + at.b] = src[p * 4 + 2]
                    if at.size == 4 { dst[o + (at.a ?? 6 - at.r - at.g - at.b)] = at.a == nil ? 255 : src[p * 4 + 3] }
                }
            }
        }
        if let chroma {
            // Semi-planar: U and V side by side in plane 1 (step 2); planar: each in a plane of its own (step 1).
            let (uPlane, vPlane) = !chroma.planar ? (1, 1) : chroma.vFirst ? (2, 1) : (1, 2)
            let u = target.mutablePlane(uPlane), v = target.mutablePlane(vPlane)
            let uvStride = target.planes[1].bytesPerRow, step = chroma.planar ? 1 : 2
            let (uAt, vAt) = chroma.planar ? (0, 0) : chroma.vFirst ? (1, 0) : (0, 1)
            // A chroma sample covers 2x2 pixels (4:2:0) or 2x1 (4:2:2).
            let tall = chroma.fullHeight ? 1 : 2
            for cy in (rows.lowerBound / tall)..<((rows.upperBound + tall - 1) / tall) {
                for cx in (columns.lowerBound / 2)..<((columns.upperBound + 1) / 2) {
                    var su = 0, sv = 0
                    for dy in 0..<tall {
                        for dx in 0..<2 {
                            let c = memo.yuv(pixel(src, w, min(cx * 2 + dx, w - 1), min(cy * tall + dy, h - 1)), colorSpace)
                            su += Int(c.u); sv += Int(c.v)
                        }
                    }
                    u[cy * uvStride + cx * step + uAt] = UInt8((su + tall) / (2 * tall))
                    v[cy * uvStride + cx * step + vAt] = UInt8((sv + tall) / (2 * tall))
                }
            }
        }
    }

    private static func pixel(_ p: UnsafeRawBufferPointer, _ w: Int, _ x: Int, _ y: Int) -> (UInt8, UInt8, UInt8) {
        let i = (y * w + x) * 4
        return (p[i], p[i + 1], p[i + 2])
    }

    private static func avg(_ a: UInt8, _ b: UInt8) -> UInt8 { UInt8((Int(a) + Int(b) + 1) / 2) }

    /// The last color converted: runs of one color (bars, boxes) convert once.
    private struct LastColor {
        var rgb: (UInt8, UInt8, UInt8)?
        var result: (y: UInt8, u: UInt8, v: UInt8) = (0, 0, 0)

        mutating func yuv(_ p: (UInt8, UInt8, UInt8), _ colorSpace: YUVColorSpace) -> (y: UInt8, u: UInt8, v: UInt8) {
            if let rgb, rgb == p { return result }
            rgb = p
            result = colorSpace.yuv(r: p.0, g: p.1, b: p.2)
            return result
        }
    }
}
