import Glibc
import Lifecycle

/// Converts a rectangle of a YUYV or NV12 frame straight to planar 4:2:0
/// Y'CbCr in the color space an encoder is told (BT.601 or BT.709, either
/// range), with a color matrix applied on the way, and no RGB picture in
/// memory: each pixel's RGB is made in registers and clamped as `YUVToRGBA`
/// makes it, and encoded as `RGBAToYUV` encodes it, each chroma sample from
/// its 2x2 block's mean color (`YUV420Map`; the bulk of each row in 16-bit
/// fixed point, `YUV420Fixed`, sixteen pixels at a time). So the
/// planes lie within 1 level of `RGBAToYUV` of `YUVToRGBA`'s picture, for 2
/// bytes a pixel read and 1.5 written instead of an RGBA picture written and
/// read again. What a recording of a CPU-converted picture takes.
public final class YUVToYUV420 {
    /// Y', then Cb, then Cr, each plane tightly packed: the last conversion without a destination.
    public private(set) var planes = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    public private(set) var outputWidth = 0
    public private(set) var outputHeight = 0
    private var map: YUV420Map?
    private var fixed: YUV420Fixed?
    private let parallel: ParallelRows
    private let useFixedPoint: Bool
    private lazy var job = Job(self)

    /// `threads`: how many threads convert a large picture (default: one per core, at most 4).
    /// `fixedPoint`: the bulk of each row in 16-bit fixed point (`YUV420Fixed`),
    /// about 1.6 times as fast; false: all of it in floating point.
    public init(threads: Int = min(max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))), 4), fixedPoint: Bool = true) {
        useFixedPoint = fixedPoint
        parallel = ParallelRows(threads: threads, name: "kamera.yuv420")
    }

    deinit { planes.deallocate() }

    /// Bytes of the three planes of a `width` x `height` picture.
    public static func frameSize(width: Int, height: Int) -> Int {
        width * height + 2 * ((width + 1) / 2) * ((height + 1) / 2)
    }

    /// Converts the pixels of `frame` in the rectangle into `destination`
    /// (at least `frameSize` bytes, where a caller keeps the picture, such as
    /// an encoder's queue) or else into `planes`, reallocated only when the
    /// size changes; in `colorSpace`. `transform`, when given, maps each
    /// pixel's RGB first (a color matrix). Returns the planes written.
    @discardableResult
    public func convert(_ frame: Frame, x: Int, y: Int, width: Int, height: Int, transform: RGBTransform? = nil,
                        to colorSpace: YUVColorSpace, into destination: UnsafeMutableRawBufferPointer? = nil) -> UnsafeRawBufferPointer {
        precondition(YUVToRGBA.yuvFormats.contains(frame.format), "not a YUYV or NV12 frame")
        precondition(x >= 0 && y >= 0 && width > 0 && height > 0 && x + width <= frame.width && y + height <= frame.height)
        let total = Self.frameSize(width: width, height: height)
        precondition(destination.map { $0.count >= total } ?? true, "the destination is smaller than the picture")
        if destination == nil && planes.count != total {
            planes.deallocate()
            planes = .allocate(byteCount: total, alignment: 64)
        }
        let output = UnsafeMutableRawBufferPointer(rebasing: (destination ?? planes)[0..<total])
        (outputWidth, outputHeight) = (width, height)
        if map == nil || map!.input != frame.colorSpace || map!.transform != transform || map!.output != colorSpace {
            map = YUV420Map(input: frame.colorSpace, transform: transform, output: colorSpace)
            fixed = useFixedPoint ? YUV420Fixed(map!) : nil
        }
        job.task = Task(frame: frame, x: x, y: y, map: map!, fixed: fixed, output: output.baseAddress!.assumingMemoryBound(to: UInt8.self))
        // Pairs of rows are independent: large pictures are split between threads.
        let pairs = (height + 1) / 2
        if width * height >= YUVToRGBA.splitPixels {
            parallel.run(count: pairs, job)
        } else {
            job.work(rows: 0..<pairs)
        }
        job.task = nil
        return UnsafeRawBufferPointer(output)
    }

    /// One conversion's frame, the rectangle's corner and the arithmetic.
    private struct Task {
        let frame: Frame
        let x: Int, y: Int
        let map: YUV420Map
        let fixed: YUV420Fixed?
        let output: UnsafeMutablePointer<UInt8>
    }

    /// The row pairs of the current conversion, for `ParallelRows`.
    private final class Job: RowWork {
        unowned let converter: YUVToYUV420
        var task: Task?

        init(_ converter: YUVToYUV420) { self.converter = converter }

        func work(rows: Range<Int>) {
            guard let task else { return }
            task.frame.format == .yuyv ? converter.convert(rows, task, YUYVLayout.self) : converter.convert(rows, task, NV12Layout.self)
        }
    }

    /// Output row pairs `pairs` (chroma rows), in one loop specialized for the layout.
    private func convert<L: YUVLayout>(_ pairs: Range<Int>, _ task: Task, _: L.Type) {
        let width = outputWidth, height = outputHeight, chromaWidth = (width + 1) / 2
        let lines = RowLines(task.frame)
        // The map and every pointer in locals: the byte stores below could
        // otherwise alias them, and each would be loaded again after each store.
        let map = task.map
        let luma = task.output
        let cbPlane = luma + width * height, crPlane = cbPlane + chromaWidth * ((height + 1) / 2)
        /// Pixel `s` of a source row: its RGB levels.
        @inline(__always) func pixel(_ line: UnsafePointer<UInt8>, _ chroma: UnsafePointer<UInt8>, _ s: Int) -> RGBLevels {
            let (u, v) = L.chromaLevels(chroma, s & ~1)
            return map.rgb(L.lumaLevel(line, s), map.terms(u, v))
        }
        for pair in pairs {
            // A last odd row pairs with itself, as a last odd column does.
            let r0 = 2 * pair, r1 = Swift.min(r0 + 1, height - 1)
            let (a, ac) = lines(task.y + r0), (b, bc) = lines(task.y + r1)
            let ya = luma + r0 * width, yb = luma + r1 * width, u = cbPlane + pair * chromaWidth, v = crPlane + pair * chromaWidth
            var c = 0
            if task.x & 1 == 0 {
                // Whole pairs: both pixels of a row share their chroma.
                c = width / 2
                var done = 0
                if let fixed = task.fixed {
                    // Sixteen pixels at a time in fixed point, then the float map for the rest.
                    done = c & ~7
                    Self.sixteens(fixed, L.self, a: a, ac: ac, b: b, bc: bc, ya: ya, yb: yb, u: u, v: v, from: task.x, count: done)
                }
                Self.wholePairs(map, L.self, a: a, ac: ac, b: b, bc: bc, ya: ya + 2 * done, yb: yb + 2 * done, u: u + done, v: v + done,
                                from: task.x + 2 * done, count: c - done)
            }
            // The rest: a last odd column, or every block of a rectangle
            // starting mid-pair, whose two pixels lie in different pairs.
            while c < chromaWidth {
                let x0 = 2 * c, x1 = Swift.min(x0 + 1, width - 1)
                let s0 = task.x + x0, s1 = task.x + x1
                let p00 = pixel(a, ac, s0), p01 = pixel(a, ac, s1), p10 = pixel(b, bc, s0), p11 = pixel(b, bc, s1)
                ya[x0] = map.luma(p00)
                ya[x1] = map.luma(p01)
                yb[x0] = map.luma(p10)
                yb[x1] = map.luma(p11)
                (u[c], v[c]) = map.chroma(p00, p01, p10, p11)
                c += 1
            }
        }
    }

    /// `count` blocks (a multiple of 8) of whole pairs from source column `s` (even), in fixed point.
    @inline(never)
    private static func sixteens<L: YUVLayout>(_ fixed: YUV420Fixed, _: L.Type, a: UnsafePointer<UInt8>, ac: UnsafePointer<UInt8>,
                                             b: UnsafePointer<UInt8>, bc: UnsafePointer<UInt8>,
                                             ya: UnsafeMutablePointer<UInt8>, yb: UnsafeMutablePointer<UInt8>,
                                             u: UnsafeMutablePointer<UInt8>, v: UnsafeMutablePointer<UInt8>, from s: Int, count: Int) {
        var c = 0
        while c < count {
            fixed.sixteen(L.self, a: a, ac: ac, b: b, bc: bc, s: s &+ 2 &* c, ya: ya + 2 &* c, yb: yb + 2 &* c, u: u + c, v: v + c)
            c &+= 8
        }
    }

    /// `count` blocks of whole pairs from source column `s` (even): the loop
    /// the compiler vectorizes. Keep it free of branches.
    @inline(never)
    private static func wholePairs<L: YUVLayout>(_ map: YUV420Map, _: L.Type, a: UnsafePointer<UInt8>, ac: UnsafePointer<UInt8>,
                                               b: UnsafePointer<UInt8>, bc: UnsafePointer<UInt8>,
                                               ya: UnsafeMutablePointer<UInt8>, yb: UnsafeMutablePointer<UInt8>,
                                               u: UnsafeMutablePointer<UInt8>, v: UnsafeMutablePointer<UInt8>, from s: Int, count: Int) {
        let map = map
        var c = 0, s = s
        while c < count {
            let (ua, va) = L.chromaLevels(ac, s), (ub, vb) = L.chromaLevels(bc, s)
            let ta = map.terms(ua, va), tb = map.terms(ub, vb)
            let p00 = map.rgb(L.lumaLevel(a, s), ta), p01 = map.rgb(L.lumaLevel(a, s &+ 1), ta)
            let p10 = map.rgb(L.lumaLevel(b, s), tb), p11 = map.rgb(L.lumaLevel(b, s &+ 1), tb)
            ya[2 &* c] = map.luma(p00)
            ya[2 &* c &+ 1] = map.luma(p01)
            yb[2 &* c] = map.luma(p10)
            yb[2 &* c &+ 1] = map.luma(p11)
            (u[c], v[c]) = map.chroma(p00, p01, p10, p11)
            c &+= 1
            s &+= 2
        }
    }
}
