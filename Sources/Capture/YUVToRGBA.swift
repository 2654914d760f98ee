import Glibc
import Lifecycle

/// Converts a rectangle of a YUYV or NV12 frame to 8-bit RGB on the CPU, in
/// integer arithmetic from per-color-space tables, with the same sampling as
/// the GPU's `yuyv.frag` and `nv12.frag` (each pixel's own luma, its pair's or
/// 2x2 block's chroma). On a software renderer this is several times cheaper
/// than a conversion pass: llvmpipe spends about 10 ns a pixel on a
/// floating-point fragment shader, this about 3 (6 with a color matrix).
///
/// The output is RGBA or BGRA bytes (`ChannelOrder`): llvmpipe draws a BGRA
/// texture onto a BGRA/XRGB screen on its fixed-point path, several times
/// faster than an RGBA one. At `halved`, each output pixel is the mean of a
/// 2x2 block (luma and chroma averaged, then converted): the next mipmap level,
/// for a picture shown at half its size or less.
public final class YUVToRGBA {
    /// The byte order of the output pixels.
    public enum ChannelOrder: Sendable {
        case rgba, bgra
    }

    /// The pixels of the last conversion, `outputWidth * 4` bytes a row.
    public private(set) var pixels = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    public private(set) var outputWidth = 0
    public private(set) var outputHeight = 0
    private var tables: Tables?

    /// `threads`: how many threads convert a large picture (default: one per core, at most 4).
    public init(threads: Int = min(max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))), 4)) {
        parallel = ParallelRows(threads: threads, name: "kamera.yuv")
    }

    deinit { pixels.deallocate() }

    /// The output size for a rectangle of `width` x `height`.
    public static func outputSize(width: Int, height: Int, halved: Bool) -> (width: Int, height: Int) {
        halved ? (max(1, width / 2), max(1, height / 2)) : (width, height)
    }

    /// Converts the pixels of `frame` in the rectangle into `pixels`,
    /// reallocating only when the output size changes; `transform`, when
    /// given, maps each pixel (a color matrix folded into the conversion).
    public func convert(_ frame: Frame, x: Int, y: Int, width: Int, height: Int, transform: RGBTransform? = nil,
                        order: ChannelOrder = .rgba, halved: Bool = false) {
        precondition(frame.format == .yuyv || frame.format == .nv12, "not a YUV frame")
        precondition(x >= 0 && y >= 0 && width > 0 && height > 0 && x + width <= frame.width && y + height <= frame.height)
        let size = Self.outputSize(width: width, height: height, halved: halved)
        if size.width * size.height * 4 != pixels.count {
            pixels.deallocate()
            pixels = .allocate(byteCount: size.width * size.height * 4, alignment: 64)
        }
        (outputWidth, outputHeight) = size
        if tables?.colorSpace != frame.colorSpace { tables = Tables(frame.colorSpace) }
        job.task = Task(frame: frame, rect: Rectangle(x: x, y: y, width: width, height: height), halved: halved,
                        transform: transform, order: order)
        // Rows are independent: large pictures are split between threads.
        if size.width * size.height >= Self.splitPixels {
            parallel.run(count: size.height, job)
        } else {
            job.work(rows: 0..<size.height)
        }
        job.task = nil
    }

    /// Pictures of this many pixels or more are converted on several threads.
    public static let splitPixels = 1 << 17
    private let parallel: ParallelRows
    private lazy var job = Job(self)

    private struct Rectangle {
        let x: Int, y: Int, width: Int, height: Int
    }

    /// One conversion's parameters.
    private struct Task {
        let frame: Frame
        let rect: Rectangle
        let halved: Bool
        let transform: RGBTransform?
        let order: ChannelOrder
    }

    /// The rows of the current conversion, for `ParallelRows`.
    private final class Job: RowWork {
        unowned let converter: YUVToRGBA
        var task: Task?

        init(_ converter: YUVToRGBA) { self.converter = converter }

        func work(rows: Range<Int>) {
            guard let t = task else { return }
            // One specialized loop per combination.
            switch (t.transform, t.order) {
            case (nil, .rgba): converter.convert(rows, t, Identity(), RGBAPacking.self)
            case (nil, .bgra): converter.convert(rows, t, Identity(), BGRAPacking.self)
            case (let m?, .rgba): converter.convert(rows, t, m, RGBAPacking.self)
            case (let m?, .bgra): converter.convert(rows, t, m, BGRAPacking.self)
            }
        }
    }

    /// Output rows `rows` of the task.
    private func convert<M: ChannelMapping, P: ChannelPacking>(_ rows: Range<Int>, _ task: Task, _ mapping: M, _: P.Type) {
        let out = pixels.baseAddress!.assumingMemoryBound(to: UInt32.self)
        let (frame, rect) = (task.frame, task.rect)
        let t = tables!
        t.y.withUnsafeBufferPointer { ys in
            t.chroma.withUnsafeBufferPointer { cs in
                let convert = Converter<M, P>(ys: ys.baseAddress!, cs: cs.baseAddress!, mapping: mapping)
                let luma = frame.planes[0]
                let lumaBase = luma.bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
                let chromaPlane = frame.format == .nv12 ? frame.planes[1] : luma
                let chromaBase = chromaPlane.bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
                let yuyv = frame.format == .yuyv
                // Row r's luma line and the line holding its chroma.
                func lines(_ r: Int) -> (UnsafePointer<UInt8>, UnsafePointer<UInt8>) {
                    let line = lumaBase + r * luma.bytesPerRow
                    return (line, yuyv ? line : chromaBase + (r >> 1) * chromaPlane.bytesPerRow)
                }
                let width = outputWidth
                let lastColumn = rect.x + rect.width - 1, lastRow = rect.y + rect.height - 1
                for row in rows {
                    let o = out + row * width
                    if task.halved {
                        let r0 = rect.y + 2 * row
                        let (a, ac) = lines(r0), (b, bc) = lines(min(r0 + 1, lastRow))
                        if yuyv {
                            convert.halvedRow(YUYVLayout.self, a, ac, b, bc, from: rect.x, last: lastColumn, count: width, into: o)
                        } else {
                            convert.halvedRow(NV12Layout.self, a, ac, b, bc, from: rect.x, last: lastColumn, count: width, into: o)
                        }
                    } else {
                        let (line, chroma) = lines(rect.y + row)
                        if yuyv {
                            convert.row(YUYVLayout.self, line, chroma, from: rect.x, count: width, into: o)
                        } else {
                            convert.row(NV12Layout.self, line, chroma, from: rect.x, count: width, into: o)
                        }
                    }
                }
            }
        }
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

/// Where a pixel's luma and chroma lie on a row (and its chroma row).
private protocol YUVLayout {
    /// Luma of pixel `x`.
    static func luma(_ line: UnsafePointer<UInt8>, _ x: Int) -> Int
    /// Chroma (u, v) of the pair starting at the even pixel `x`.
    static func chroma(_ chroma: UnsafePointer<UInt8>, _ x: Int) -> (Int, Int)
}

/// Y0 U Y1 V per pair of pixels.
private enum YUYVLayout: YUVLayout {
    @inline(__always) static func luma(_ line: UnsafePointer<UInt8>, _ x: Int) -> Int { Int(line[x &* 2]) }
    @inline(__always) static func chroma(_ chroma: UnsafePointer<UInt8>, _ x: Int) -> (Int, Int) {
        (Int(chroma[x &* 2 &+ 1]), Int(chroma[x &* 2 &+ 3]))
    }
}

/// A luma plane, and U V per pair of pixels in the half-height chroma plane.
private enum NV12Layout: YUVLayout {
    @inline(__always) static func luma(_ line: UnsafePointer<UInt8>, _ x: Int) -> Int { Int(line[x]) }
    @inline(__always) static func chroma(_ chroma: UnsafePointer<UInt8>, _ x: Int) -> (Int, Int) {
        (Int(chroma[x]), Int(chroma[x &+ 1]))
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

/// What becomes of each converted pixel's channels (0...255) before packing.
protocol ChannelMapping {
    func map(_ r: Int32, _ g: Int32, _ b: Int32) -> (Int32, Int32, Int32)
}

private struct Identity: ChannelMapping {
    @inline(__always) func map(_ r: Int32, _ g: Int32, _ b: Int32) -> (Int32, Int32, Int32) { (r, g, b) }
}

extension RGBTransform: ChannelMapping {}

private protocol ChannelPacking {
    static func pack(_ r: Int32, _ g: Int32, _ b: Int32) -> UInt32
}

private enum RGBAPacking: ChannelPacking {
    @inline(__always) static func pack(_ r: Int32, _ g: Int32, _ b: Int32) -> UInt32 {
        (UInt32(truncatingIfNeeded: r) | UInt32(truncatingIfNeeded: g) << 8 | UInt32(truncatingIfNeeded: b) << 16 | 0xFF00_0000).littleEndian
    }
}

private enum BGRAPacking: ChannelPacking {
    @inline(__always) static func pack(_ r: Int32, _ g: Int32, _ b: Int32) -> UInt32 {
        (UInt32(truncatingIfNeeded: b) | UInt32(truncatingIfNeeded: g) << 8 | UInt32(truncatingIfNeeded: r) << 16 | 0xFF00_0000).littleEndian
    }
}

/// The inner loops, specialized for a mapping and a byte order.
private struct Converter<M: ChannelMapping, P: ChannelPacking> {
    let ys: UnsafePointer<Int32>
    let cs: UnsafePointer<Int32>
    let mapping: M

    @inline(__always)
    private func pixel(_ l: Int32, _ cr: Int32, _ cg: Int32, _ cb: Int32) -> UInt32 {
        let (r, g, b) = mapping.map(Self.clamp(l &+ cr), Self.clamp(l &+ cg), Self.clamp(l &+ cb))
        return P.pack(r, g, b)
    }

    @inline(__always)
    private static func clamp(_ v: Int32) -> Int32 { clampByte(v >> 16) }

    /// `count` pixels from pixel `x` of a row.
    @inline(__always)
    func row<L: YUVLayout>(_: L.Type, _ line: UnsafePointer<UInt8>, _ chroma: UnsafePointer<UInt8>, from x: Int, count: Int, into o: UnsafeMutablePointer<UInt32>) {
        var sx = x, i = 0
        let end = x + count
        if sx & 1 == 1 {
            // A rectangle starting mid-pair: its first pixel uses the pair's second luma.
            let (u, v) = L.chroma(chroma, sx - 1)
            o[0] = pixel(ys[L.luma(line, sx)], cs[768 + v], cs[256 + u] &+ cs[512 + v], cs[u])
            sx += 1
            i = 1
        }
        while sx + 1 < end {
            let (u, v) = L.chroma(chroma, sx)
            let cr = cs[768 &+ v], cg = cs[256 &+ u] &+ cs[512 &+ v], cb = cs[u]
            o[i] = pixel(ys[L.luma(line, sx)], cr, cg, cb)
            o[i &+ 1] = pixel(ys[L.luma(line, sx &+ 1)], cr, cg, cb)
            sx &+= 2
            i &+= 2
        }
        if sx < end {
            let (u, v) = L.chroma(chroma, sx)
            o[i] = pixel(ys[L.luma(line, sx)], cs[768 + v], cs[256 + u] &+ cs[512 + v], cs[u])
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
                let u = (ua &+ ub &+ 1) >> 1, v = (va &+ vb &+ 1) >> 1
                o[i] = pixel(ys[(luma &+ 2) >> 2], cs[768 &+ v], cs[256 &+ u] &+ cs[512 &+ v], cs[u])
            }
            start = whole
        }
        for i in start..<count {
            let c0 = x &+ 2 &* i, c1 = Swift.min(c0 &+ 1, last)
            let luma = L.luma(a, c0) &+ L.luma(a, c1) &+ L.luma(b, c0) &+ L.luma(b, c1)
            // Each pixel's own chroma: that of its pair.
            let (u0, v0) = L.chroma(ac, c0 & ~1), (u1, v1) = L.chroma(ac, c1 & ~1)
            let (u2, v2) = L.chroma(bc, c0 & ~1), (u3, v3) = L.chroma(bc, c1 & ~1)
            let u = (u0 &+ u1 &+ u2 &+ u3 &+ 2) >> 2, v = (v0 &+ v1 &+ v2 &+ v3 &+ 2) >> 2
            o[i] = pixel(ys[(luma &+ 2) >> 2], cs[768 &+ v], cs[256 &+ u] &+ cs[512 &+ v], cs[u])
        }
    }
}
