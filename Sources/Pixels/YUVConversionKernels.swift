// The inner loops of `YUVToRGBA`: where a pixel's samples lie (layouts), how
// they become RGB (color stages), how RGB is stored (packings), and the row
// loops, each specialized for one combination.

/// Where a pixel's luma and chroma lie on a row (and its chroma row).
protocol YUVLayout {
    /// Luma of pixel `x`.
    static func luma(_ line: UnsafePointer<UInt8>, _ x: Int) -> Int
    /// Chroma (u, v) of the pair starting at the even pixel `x`.
    static func chroma(_ chroma: UnsafePointer<UInt8>, _ x: Int) -> (Int, Int)
    /// Eight pixels from the even pixel `x`, a lane each: their luma, and
    /// their four pairs' chroma, U then V of each pair (a pixel's lane holds
    /// its pair's U or V).
    static func eight(_ line: UnsafePointer<UInt8>, _ chroma: UnsafePointer<UInt8>, _ x: Int) -> (y: SIMD8<Int16>, uv: SIMD8<Int16>)
}

extension YUVLayout {
    /// The same bytes as floats, converted from the bytes themselves: a
    /// conversion from `Int` would keep a loop from being vectorized (SSE2
    /// converts no 64-bit integers).
    @inline(__always) static func lumaLevel(_ line: UnsafePointer<UInt8>, _ x: Int) -> Float {
        Float(UInt8(truncatingIfNeeded: luma(line, x)))
    }

    @inline(__always) static func chromaLevels(_ chroma: UnsafePointer<UInt8>, _ x: Int) -> (Float, Float) {
        let (u, v) = Self.chroma(chroma, x)
        return (Float(UInt8(truncatingIfNeeded: u)), Float(UInt8(truncatingIfNeeded: v)))
    }
}

/// Y0 U Y1 V per pair of pixels.
enum YUYVLayout: YUVLayout {
    @inline(__always) static func luma(_ line: UnsafePointer<UInt8>, _ x: Int) -> Int { Int(line[x &* 2]) }
    @inline(__always) static func chroma(_ chroma: UnsafePointer<UInt8>, _ x: Int) -> (Int, Int) {
        (Int(chroma[x &* 2 &+ 1]), Int(chroma[x &* 2 &+ 3]))
    }
    @inline(__always) static func eight(_ line: UnsafePointer<UInt8>, _ chroma: UnsafePointer<UInt8>, _ x: Int) -> (y: SIMD8<Int16>, uv: SIMD8<Int16>) {
        // Y0 U, Y1 V: a pixel's luma in the low byte of its 16 bits, the chroma in the high one.
        let words = UnsafeRawPointer(line + x &* 2).loadUnaligned(as: SIMD8<UInt16>.self)
        return (unsafeBitCast(words & 0xFF, to: SIMD8<Int16>.self), unsafeBitCast(words &>> 8, to: SIMD8<Int16>.self))
    }
}

/// A luma plane, and U V per pair of pixels in the half-height chroma plane.
enum NV12Layout: YUVLayout {
    @inline(__always) static func luma(_ line: UnsafePointer<UInt8>, _ x: Int) -> Int { Int(line[x]) }
    @inline(__always) static func chroma(_ chroma: UnsafePointer<UInt8>, _ x: Int) -> (Int, Int) {
        (Int(chroma[x]), Int(chroma[x &+ 1]))
    }
    @inline(__always) static func eight(_ line: UnsafePointer<UInt8>, _ chroma: UnsafePointer<UInt8>, _ x: Int) -> (y: SIMD8<Int16>, uv: SIMD8<Int16>) {
        (SIMD8<Int16>(truncatingIfNeeded: UnsafeRawPointer(line + x).loadUnaligned(as: SIMD8<UInt8>.self)),
         SIMD8<Int16>(truncatingIfNeeded: UnsafeRawPointer(chroma + x).loadUnaligned(as: SIMD8<UInt8>.self)))
    }
}

/// From a pixel's Y' and its pair's chroma to RGB channels (0...255).
protocol ColorStage {
    associatedtype Chroma
    /// What a pair (or block) of pixels with chroma (u, v) share.
    func chroma(_ u: Int, _ v: Int) -> Chroma
    func rgb(_ y: Int, _ c: Chroma) -> (Int32, Int32, Int32)
}

/// The three channels as 21-bit fields of one 64-bit word (see
/// `PackedTables`): a pixel is one table read, one addition, and a clamping
/// table read per channel, whatever the color matrix.
struct PackedStage: ColorStage {
    let y: UnsafePointer<UInt64>
    let u: UnsafePointer<UInt64>
    let v: UnsafePointer<UInt64>
    let clamp: UnsafePointer<UInt8>

    @inline(__always) func chroma(_ u: Int, _ v: Int) -> UInt64 { self.u[u] &+ self.v[v] }

    @inline(__always) func rgb(_ y: Int, _ c: UInt64) -> (Int32, Int32, Int32) {
        let s = self.y[y] &+ c
        @inline(__always) func channel(_ shift: UInt64) -> Int32 {
            Int32(clamp[Int(truncatingIfNeeded: (s >> shift) & 0x7FF)])
        }
        return (channel(10), channel(31), channel(52))
    }
}

/// The conversion in 16.16 terms and the matrix in 64-bit arithmetic, one
/// clamp at the end as in `PackedStage`: for matrices too strong for packed fields.
struct WideStage: ColorStage {
    let y: UnsafePointer<Int32>
    let chroma: UnsafePointer<Int32>
    let transform: RGBTransform

    @inline(__always) func chroma(_ u: Int, _ v: Int) -> (Int32, Int32, Int32) {
        (chroma[768 &+ v], chroma[256 &+ u] &+ chroma[512 &+ v], chroma[u])
    }

    @inline(__always) func rgb(_ y: Int, _ c: (Int32, Int32, Int32)) -> (Int32, Int32, Int32) {
        // Without the luma term's rounding half: the matrix's constant carries one.
        let l = Int64(self.y[y]) - 32768, (r, g, b) = (l + Int64(c.0), l + Int64(c.1), l + Int64(c.2))
        @inline(__always) func channel(_ row: SIMD4<Int32>) -> Int32 {
            let v = (Int64(row.x) * r + Int64(row.y) * g + Int64(row.z) * b) >> 16 + Int64(row.w)
            return Int32(Swift.min(Swift.max(v >> 16, 0), 255))
        }
        return (channel(transform.r), channel(transform.g), channel(transform.b))
    }
}

/// `v` clamped to 0...255 without branches: camera noise makes a branch
/// on each channel mispredict often enough to cost more than the conversion.
@inline(__always)
func clampByte(_ v: Int32) -> Int32 {
    var x = v & ~(v >> 31)  // negative → 0
    x |= (255 &- x) >> 31   // above 255 → all ones
    return x & 255
}

protocol ChannelPacking {
    static func pack(_ rgb: (Int32, Int32, Int32)) -> UInt32
}

enum RGBAPacking: ChannelPacking {
    @inline(__always) static func pack(_ c: (Int32, Int32, Int32)) -> UInt32 {
        (UInt32(truncatingIfNeeded: c.0) | UInt32(truncatingIfNeeded: c.1) << 8 | UInt32(truncatingIfNeeded: c.2) << 16 | 0xFF00_0000).littleEndian
    }
}

enum BGRAPacking: ChannelPacking {
    @inline(__always) static func pack(_ c: (Int32, Int32, Int32)) -> UInt32 {
        (UInt32(truncatingIfNeeded: c.2) | UInt32(truncatingIfNeeded: c.1) << 8 | UInt32(truncatingIfNeeded: c.0) << 16 | 0xFF00_0000).littleEndian
    }
}

/// The row loops, specialized for a color stage and a byte order.
struct Converter<S: ColorStage, P: ChannelPacking> {
    let stage: S

    @inline(__always)
    private func pixel(_ y: Int, _ c: S.Chroma) -> UInt32 { P.pack(stage.rgb(y, c)) }

    /// `count` pixels from pixel `x` of a row.
    @inline(__always)
    func row<L: YUVLayout>(_: L.Type, _ line: UnsafePointer<UInt8>, _ chroma: UnsafePointer<UInt8>, from x: Int, count: Int, into o: UnsafeMutablePointer<UInt32>) {
        var sx = x, i = 0
        let end = x + count
        if sx & 1 == 1 {
            // A rectangle starting mid-pair: its first pixel uses the pair's second luma.
            let (u, v) = L.chroma(chroma, sx - 1)
            o[0] = pixel(L.luma(line, sx), stage.chroma(u, v))
            sx += 1
            i = 1
        }
        while sx + 1 < end {
            let (u, v) = L.chroma(chroma, sx)
            let c = stage.chroma(u, v)
            o[i] = pixel(L.luma(line, sx), c)
            o[i &+ 1] = pixel(L.luma(line, sx &+ 1), c)
            sx &+= 2
            i &+= 2
        }
        if sx < end {
            let (u, v) = L.chroma(chroma, sx)
            o[i] = pixel(L.luma(line, sx), stage.chroma(u, v))
        }
    }

    /// `count` pixels from pixel `x` of a row as a mosaic: each run of
    /// `block` pixels takes the color of the pixel at its center (the last,
    /// shorter run the pixel at its center or the row's last), as
    /// `pixellate.frag` samples.
    @inline(__always)
    func mosaicRow<L: YUVLayout>(_: L.Type, _ line: UnsafePointer<UInt8>, _ chroma: UnsafePointer<UInt8>, from x: Int, count: Int, block: Int,
                                 into o: UnsafeMutablePointer<UInt32>) {
        var i = 0
        while i < count {
            let sx = x &+ Swift.min(i &+ block / 2, count &- 1)
            let (u, v) = L.chroma(chroma, sx & ~1)
            let color = pixel(L.luma(line, sx), stage.chroma(u, v))
            let end = Swift.min(i &+ block, count)
            while i < end {
                o[i] = color
                i &+= 1
            }
        }
    }

    /// `count` output pixels, each the mean of a 2x2 block of rows `a` and `b`
    /// from column `x` on (a last odd column pairs with itself).
    @inline(__always)
    func halvedRow<L: YUVLayout>(_: L.Type, _ a: UnsafePointer<UInt8>, _ ac: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>,
                                 _ bc: UnsafePointer<UInt8>, from x: Int, last: Int, count: Int, into o: UnsafeMutablePointer<UInt32>) {
        var start = 0
        if x & 1 == 0 {
            // Blocks on whole pairs: both pixels of a row share one chroma sample.
            let whole = Swift.min(count, (last &- x &+ 1) / 2)
            for i in 0..<whole {
                let c = x &+ 2 &* i
                let luma = L.luma(a, c) &+ L.luma(a, c &+ 1) &+ L.luma(b, c) &+ L.luma(b, c &+ 1)
                let (ua, va) = L.chroma(ac, c), (ub, vb) = L.chroma(bc, c)
                o[i] = pixel((luma &+ 2) >> 2, stage.chroma((ua &+ ub &+ 1) >> 1, (va &+ vb &+ 1) >> 1))
            }
            start = whole
        }
        for i in start..<count {
            let c0 = x &+ 2 &* i, c1 = Swift.min(c0 &+ 1, last)
            let luma = L.luma(a, c0) &+ L.luma(a, c1) &+ L.luma(b, c0) &+ L.luma(b, c1)
            // Each pixel's own chroma: that of its pair.
            let (u0, v0) = L.chroma(ac, c0 & ~1), (u1, v1) = L.chroma(ac, c1 & ~1)
            let (u2, v2) = L.chroma(bc, c0 & ~1), (u3, v3) = L.chroma(bc, c1 & ~1)
            o[i] = pixel((luma &+ 2) >> 2, stage.chroma((u0 &+ u1 &+ u2 &+ u3 &+ 2) >> 2, (v0 &+ v1 &+ v2 &+ v3 &+ 2) >> 2))
        }
    }
}

/// Where row r of a YUYV or NV12 frame has its luma, and the line holding its chroma.
struct RowLines {
    let luma: UnsafePointer<UInt8>
    let lumaStride: Int
    let chroma: UnsafePointer<UInt8>
    let chromaStride: Int
    let yuyv: Bool

    init(_ frame: Frame) {
        let plane = frame.planes[0], chromaPlane = frame.format == .nv12 ? frame.planes[1] : plane
        luma = plane.bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        lumaStride = plane.bytesPerRow
        chroma = chromaPlane.bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        chromaStride = chromaPlane.bytesPerRow
        yuyv = frame.format == .yuyv
    }

    @inline(__always)
    func callAsFunction(_ r: Int) -> (UnsafePointer<UInt8>, UnsafePointer<UInt8>) {
        let line = luma + r * lumaStride
        return (line, yuyv ? line : chroma + (r >> 1) * chromaStride)
    }
}

