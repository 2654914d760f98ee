/// Converts a rectangle of a YUYV or NV12 frame to RGBA on the CPU, in
/// integer arithmetic from per-color-space tables, with the same sampling as
/// the GPU's `yuyv.frag` and `nv12.frag` (each pixel's own luma, its pair's or
/// 2x2 block's chroma). On a software renderer this is several times cheaper
/// than a conversion pass: llvmpipe spends about 10 ns a pixel on a
/// floating-point fragment shader, this about 3.
public final class YUVToRGBA {
    /// The RGBA pixels of the last conversion, `width * 4` bytes a row.
    public private(set) var pixels = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    private var tables: Tables?

    public init() {}

    deinit { pixels.deallocate() }

    /// Converts the pixels of `frame` in the rectangle into `pixels`,
    /// reallocating only when the rectangle's size changes; then `transform`,
    /// when given, maps each pixel (a color matrix folded into the conversion).
    public func convert(_ frame: Frame, x: Int, y: Int, width: Int, height: Int, transform: RGBTransform? = nil) {
        precondition(frame.format == .yuyv || frame.format == .nv12, "not a YUV frame")
        precondition(x >= 0 && y >= 0 && width > 0 && height > 0 && x + width <= frame.width && y + height <= frame.height)
        if width * height * 4 != pixels.count {
            pixels.deallocate()
            pixels = .allocate(byteCount: width * height * 4, alignment: 64)
        }
        if tables?.colorSpace != frame.colorSpace { tables = Tables(frame.colorSpace) }
        let t = tables!
        let out = pixels.baseAddress!.assumingMemoryBound(to: UInt32.self)
        let luma = frame.planes[0]
        let lumaBase = luma.bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let yuyv = frame.format == .yuyv
        t.y.withUnsafeBufferPointer { ys in
            t.chroma.withUnsafeBufferPointer { cs in
                for row in 0..<height {
                    let sy = y + row
                    let o = out + row * width
                    let line = lumaBase + sy * luma.bytesPerRow
                    // YUYV: Y0 U Y1 V per pair of pixels; NV12: U V per pair in the half-height plane.
                    let chroma = yuyv ? line : frame.planes[1].bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
                        + (sy >> 1) * frame.planes[1].bytesPerRow
                    var sx = x
                    while sx < x + width {
                        let pair = sx >> 1
                        let (u, v) = yuyv ? (Int(chroma[pair * 4 + 1]), Int(chroma[pair * 4 + 3])) : (Int(chroma[pair * 2]), Int(chroma[pair * 2 + 1]))
                        let r = cs[768 + v], g = cs[256 + u] &+ cs[512 + v], b = cs[u]
                        // Both pixels of the pair that fall in the rectangle share its chroma.
                        let last = min(pair * 2 + 1, x + width - 1)
                        while sx <= last {
                            let l = ys[Int(yuyv ? line[pair * 4 + (sx & 1) * 2] : line[sx])]
                            o[sx - x] = Self.pixel(l &+ r, l &+ g, l &+ b)
                            sx += 1
                        }
                    }
                    // While the row is in cache.
                    if let transform {
                        for i in 0..<width { o[i] = transform.apply(o[i]) }
                    }
                }
            }
        }
    }

    @inline(__always)
    private static func pixel(_ r: Int32, _ g: Int32, _ b: Int32) -> UInt32 {
        let rgba = UInt32(clampByte(r)) | UInt32(clampByte(g)) << 8 | UInt32(clampByte(b)) << 16 | 0xFF00_0000
        return rgba.littleEndian
    }

    @inline(__always)
    private static func clampByte(_ v: Int32) -> Int32 {
        Swift.min(Swift.max(v >> 16, 0), 255)
    }

    /// Each term of `toRGB * ((y, u, v) / 255 - offset) * 255`, in 16.16 fixed
    /// point; the luma term carries the rounding half. `chroma` holds four
    /// tables of 256: u → b, u → g, v → g, v → r.
    private struct Tables {
        let colorSpace: YUVColorSpace
        let y: [Int32]
        let chroma: [Int32]

        init(_ colorSpace: YUVColorSpace) {
            self.colorSpace = colorSpace
            let m = colorSpace.toRGB  // column-major: y, u, v columns
            let o = colorSpace.offset * 255
            func fixed(_ v: Float) -> Int32 { Int32((v * 65536).rounded()) }
            y = (0..<256).map { fixed(m[0] * (Float($0) - o.x)) + 32768 }
            let u = (0..<256).map { Float($0) - o.y }, v = (0..<256).map { Float($0) - o.z }
            chroma = u.map { fixed(m[5] * $0) } + u.map { fixed(m[4] * $0) } + v.map { fixed(m[7] * $0) } + v.map { fixed(m[6] * $0) }
        }
    }
}
