// The inner loops of `YUVToRGBA` for frames that are RGB already (RGB24, and
// GREY as R = G = B): each pixel cropped into RGBA or BGRA with the folded
// color matrix, through the same color stages as YUV, R taking luma's place
// and (G, B) chroma's (`PackedTables(rgb:)`).

/// Where a pixel's R, G and B lie on a row.
protocol RGBLayout {
    static func rgb(_ line: UnsafePointer<UInt8>, _ x: Int) -> (Int, Int, Int)
}

/// R G B, a byte each.
enum RGB24Layout: RGBLayout {
    @inline(__always) static func rgb(_ line: UnsafePointer<UInt8>, _ x: Int) -> (Int, Int, Int) {
        let p = line + x &* 3
        return (Int(p[0]), Int(p[1]), Int(p[2]))
    }
}

/// One gray byte, its R, G and B alike.
enum GreyLayout: RGBLayout {
    @inline(__always) static func rgb(_ line: UnsafePointer<UInt8>, _ x: Int) -> (Int, Int, Int) {
        let g = Int(line[x])
        return (g, g, g)
    }
}

/// A matrix too strong for `PackedTables`, applied to RGB bytes in 64-bit
/// arithmetic (16.16 coefficients, as `RGBTransform` holds them).
struct WideRGBStage: ColorStage {
    let transform: RGBTransform

    @inline(__always) func chroma(_ g: Int, _ b: Int) -> (Int, Int) { (g, b) }

    @inline(__always) func rgb(_ r: Int, _ c: (Int, Int)) -> (Int32, Int32, Int32) {
        @inline(__always) func channel(_ row: SIMD4<Int32>) -> Int32 {
            let v = (Int64(row.x) * Int64(r) + Int64(row.y) * Int64(c.0) + Int64(row.z) * Int64(c.1) + Int64(row.w)) >> 16
            return Int32(Swift.min(Swift.max(v, 0), 255))
        }
        return (channel(transform.r), channel(transform.g), channel(transform.b))
    }
}

extension Converter {
    @inline(__always)
    private func pixel(_ c: (Int, Int, Int)) -> UInt32 { P.pack(stage.rgb(c.0, stage.chroma(c.1, c.2))) }

    /// `count` pixels from pixel `x` of a row.
    @inline(__always)
    func rgbRow<L: RGBLayout>(_: L.Type, _ line: UnsafePointer<UInt8>, from x: Int, count: Int, into o: UnsafeMutablePointer<UInt32>) {
        for i in 0..<count { o[i] = pixel(L.rgb(line, x &+ i)) }
    }

    /// `count` pixels from pixel `x` as a mosaic: each run of `block` pixels
    /// the color of the pixel at its center (as `mosaicRow`).
    @inline(__always)
    func rgbMosaicRow<L: RGBLayout>(_: L.Type, _ line: UnsafePointer<UInt8>, from x: Int, count: Int, block: Int, into o: UnsafeMutablePointer<UInt32>) {
        var i = 0
        while i < count {
            let color = pixel(L.rgb(line, x &+ Swift.min(i &+ block / 2, count &- 1)))
            let end = Swift.min(i &+ block, count)
            while i < end {
                o[i] = color
                i &+= 1
            }
        }
    }

    /// `count` output pixels, each the mean of a 2x2 block of rows `a` and `b`
    /// from column `x` on (a last odd column pairs with itself), each channel rounded.
    @inline(__always)
    func rgbHalvedRow<L: RGBLayout>(_: L.Type, _ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, from x: Int, last: Int, count: Int,
                                    into o: UnsafeMutablePointer<UInt32>) {
        for i in 0..<count {
            let c0 = x &+ 2 &* i, c1 = Swift.min(c0 &+ 1, last)
            let p = L.rgb(a, c0), q = L.rgb(a, c1), r = L.rgb(b, c0), s = L.rgb(b, c1)
            o[i] = pixel(((p.0 &+ q.0 &+ r.0 &+ s.0 &+ 2) >> 2, (p.1 &+ q.1 &+ r.1 &+ s.1 &+ 2) >> 2, (p.2 &+ q.2 &+ r.2 &+ s.2 &+ 2) >> 2))
        }
    }
}
