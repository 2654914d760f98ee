/// CPU conversion from RGBA into the other pixel formats, used to make test
/// frames in every layout the texture cache reads. Chroma is the average of the
/// pixels it covers.
public enum FormatConverter {
    public static func convert(rgba source: FrameBuffer, to target: FrameBuffer, colorSpace: YUVColorSpace) {
        let w = source.width, h = source.height
        let src = source.planes[0].bytes
        let dst = target.mutablePlane(0)
        switch target.format {
        case .rgba:
            dst.copyMemory(from: src)
        case .bgra:
            for i in stride(from: 0, to: w * h * 4, by: 4) {
                dst[i] = src[i + 2]; dst[i + 1] = src[i + 1]; dst[i + 2] = src[i]; dst[i + 3] = src[i + 3]
            }
        case .rgb24:
            for p in 0..<(w * h) {
                dst[p * 3] = src[p * 4]; dst[p * 3 + 1] = src[p * 4 + 1]; dst[p * 3 + 2] = src[p * 4 + 2]
            }
        case .grey:
            for p in 0..<(w * h) {
                dst[p] = colorSpace.yuv(r: src[p * 4], g: src[p * 4 + 1], b: src[p * 4 + 2]).y
            }
        case .yuyv:
            let rowBytes = target.planes[0].bytesPerRow
            for y in 0..<h {
                for x in stride(from: 0, to: w, by: 2) {
                    let a = pixel(src, w, x, y), b = pixel(src, w, min(x + 1, w - 1), y)
                    let ya = colorSpace.yuv(r: a.0, g: a.1, b: a.2), yb = colorSpace.yuv(r: b.0, g: b.1, b: b.2)
                    let o = y * rowBytes + x * 2
                    dst[o] = ya.y; dst[o + 1] = avg(ya.u, yb.u); dst[o + 2] = yb.y; dst[o + 3] = avg(ya.v, yb.v)
                }
            }
        case .nv12:
            let uv = target.mutablePlane(1)
            let uvStride = target.planes[1].bytesPerRow
            for y in 0..<h {
                for x in 0..<w {
                    let p = pixel(src, w, x, y)
                    dst[y * w + x] = colorSpace.yuv(r: p.0, g: p.1, b: p.2).y
                }
            }
            for cy in 0..<((h + 1) / 2) {
                for cx in 0..<((w + 1) / 2) {
                    var su = 0, sv = 0
                    for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                        let p = pixel(src, w, min(cx * 2 + dx, w - 1), min(cy * 2 + dy, h - 1))
                        let c = colorSpace.yuv(r: p.0, g: p.1, b: p.2)
                        su += Int(c.u); sv += Int(c.v)
                    }
                    uv[cy * uvStride + cx * 2] = UInt8((su + 2) / 4)
                    uv[cy * uvStride + cx * 2 + 1] = UInt8((sv + 2) / 4)
                }
            }
        }
    }

    private static func pixel(_ p: UnsafeRawBufferPointer, _ w: Int, _ x: Int, _ y: Int) -> (UInt8, UInt8, UInt8) {
        let i = (y * w + x) * 4
        return (p[i], p[i + 1], p[i + 2])
    }

    private static func avg(_ a: UInt8, _ b: UInt8) -> UInt8 { UInt8((Int(a) + Int(b) + 1) / 2) }
}
