import Glibc
import Lifecycle

/// Converts a rectangle of a YUYV or NV12 frame straight to planar 4:2:0
/// Y'CbCr in the color space an encoder is told (BT.601 or BT.709, either
/// range), with a color matrix applied on the way, and no RGB picture in
/// memory, each chroma sample from its 2x2 block's mean color. A block whose
/// colors all lie inside the RGB cube goes through one affine map of the
/// input bytes (`LinearYUVMap`: a table read a pixel); any other block the
/// exact way: each pixel's RGB made in registers by the tables `YUVToRGBA`
/// uses (the matrix composed in, clamped to 0...255), then encoded by the
/// arithmetic `RGBAToYUV` uses. So the planes lie within 1 level of
/// `RGBAToYUV` of `YUVToRGBA`'s picture, for 2 bytes a pixel read and 1.5
/// written instead of an RGBA picture written and read again. What a
/// recording of a CPU-converted picture takes.
public final class YUVToYUV420 {
    /// Y', then Cb, then Cr, each plane tightly packed.
    public private(set) var planes = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    public private(set) var outputWidth = 0
    public private(set) var outputHeight = 0
    private var tables = ConversionTables()
    private var encoding = YUVEncoding(.bt601Limited)
    private var linear: LinearYUVMap?
    private let parallel: ParallelRows
    private lazy var job = Job(self)

    /// `threads`: how many threads convert a large picture (default: one per core, at most 4).
    public init(threads: Int = min(max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))), 4)) {
        parallel = ParallelRows(threads: threads, name: "kamera.yuv420")
    }

    deinit { planes.deallocate() }

    /// Bytes of the three planes of a `width` x `height` picture.
    public static func frameSize(width: Int, height: Int) -> Int {
        width * height + 2 * ((width + 1) / 2) * ((height + 1) / 2)
    }

    /// Converts the pixels of `frame` in the rectangle into `planes`, in
    /// `colorSpace`, reallocating only when the size changes; `transform`,
    /// when given, maps each pixel's RGB first (a color matrix).
    public func convert(_ frame: Frame, x: Int, y: Int, width: Int, height: Int, transform: RGBTransform? = nil,
                        to colorSpace: YUVColorSpace) {
        precondition(frame.format == .yuyv || frame.format == .nv12, "not a YUV frame")
        precondition(x >= 0 && y >= 0 && width > 0 && height > 0 && x + width <= frame.width && y + height <= frame.height)
        let total = Self.frameSize(width: width, height: height)
        if planes.count != total {
            planes.deallocate()
            planes = .allocate(byteCount: total, alignment: 64)
        }
        (outputWidth, outputHeight) = (width, height)
        tables.prepare(frame.colorSpace, transform)
        if encoding.colorSpace != colorSpace { encoding = YUVEncoding(colorSpace) }
        if tables.packed != nil, linear == nil || linear!.input != frame.colorSpace || linear!.transform != transform || linear!.output != colorSpace {
            linear = LinearYUVMap(input: frame.colorSpace, transform: transform, output: colorSpace)
        }
        job.task = Task(frame: frame, x: x, y: y)
        // Pairs of rows are independent: large pictures are split between threads.
        let pairs = (height + 1) / 2
        if width * height >= YUVToRGBA.splitPixels {
            parallel.run(count: pairs, job)
        } else {
            job.work(rows: 0..<pairs)
        }
        job.task = nil
    }

    /// One conversion's frame and the rectangle's corner.
    private struct Task {
        let frame: Frame
        let x: Int, y: Int
    }

    /// The row pairs of the current conversion, for `ParallelRows`.
    private final class Job: RowWork {
        unowned let converter: YUVToYUV420
        var task: Task?

        init(_ converter: YUVToYUV420) { self.converter = converter }

        func work(rows: Range<Int>) {
            guard let task else { return }
            converter.convert(rows, task)
        }
    }

    /// Output row pairs `pairs` (chroma rows), with one specialized loop per stage and layout.
    private func convert(_ pairs: Range<Int>, _ task: Task) {
        if let wide = tables.wide {
            wide.withStage { stage in
                task.frame.format == .yuyv ? convert(pairs, task, stage, YUYVLayout.self) : convert(pairs, task, stage, NV12Layout.self)
            }
            return
        }
        tables.packed!.withStage { stage in
            linear!.withTables { linear in
                task.frame.format == .yuyv ? convert(pairs, task, stage, linear, YUYVLayout.self)
                    : convert(pairs, task, stage, linear, NV12Layout.self)
            }
        }
    }

    /// The rows of one output row pair: where the two source rows and their
    /// chroma lie, and where their Y' and the pair's Cb and Cr go.
    private struct RowPair {
        let a: UnsafePointer<UInt8>, ac: UnsafePointer<UInt8>, b: UnsafePointer<UInt8>, bc: UnsafePointer<UInt8>
        let ya: UnsafeMutablePointer<UInt8>, yb: UnsafeMutablePointer<UInt8>
        let u: UnsafeMutablePointer<UInt8>, v: UnsafeMutablePointer<UInt8>

        /// Block `c` (output columns `x0` and `x1`, source columns `s0` and `s1`)
        /// the exact way: each pixel's RGB clamped to bytes, then encoded.
        @inline(__always)
        func exactBlock<S: ColorStage, L: YUVLayout>(_ c: Int, x0: Int, x1: Int, s0: Int, s1: Int, _ stage: S, _: L.Type,
                                                      _ encoding: YUVEncoding) {
            @inline(__always) func rgb(_ line: UnsafePointer<UInt8>, _ chroma: UnsafePointer<UInt8>, _ x: Int) -> (Int32, Int32, Int32) {
                let (u, v) = L.chroma(chroma, x & ~1)
                return stage.rgb(L.luma(line, x), stage.chroma(u, v))
            }
            let p00 = rgb(a, ac, s0), p01 = rgb(a, ac, s1), p10 = rgb(b, bc, s0), p11 = rgb(b, bc, s1)
            ya[x0] = encoding.luma(p00)
            ya[x1] = encoding.luma(p01)
            yb[x0] = encoding.luma(p10)
            yb[x1] = encoding.luma(p11)
            (u[c], v[c]) = encoding.chroma(p00.0 &+ p01.0 &+ p10.0 &+ p11.0, p00.1 &+ p01.1 &+ p10.1 &+ p11.1,
                                           p00.2 &+ p01.2 &+ p10.2 &+ p11.2, shift: 2)
        }
    }

    /// The row pair `pair` of the task's rectangle.
    @inline(__always)
    private func rowPair(_ pair: Int, _ task: Task, _ lines: RowLines) -> RowPair {
        let width = outputWidth, height = outputHeight, chromaWidth = (width + 1) / 2
        let luma = planes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let cb = luma + width * height, cr = cb + chromaWidth * ((height + 1) / 2)
        // A last odd row pairs with itself, as a last odd column does.
        let r0 = 2 * pair, r1 = Swift.min(r0 + 1, height - 1)
        let (a, ac) = lines(task.y + r0), (b, bc) = lines(task.y + r1)
        return RowPair(a: a, ac: ac, b: b, bc: bc, ya: luma + r0 * width, yb: luma + r1 * width,
                       u: cb + pair * chromaWidth, v: cr + pair * chromaWidth)
    }

    /// Every block the exact way (matrices too strong for the packed tables).
    private func convert<S: ColorStage, L: YUVLayout>(_ pairs: Range<Int>, _ task: Task, _ stage: S, _: L.Type) {
        let lines = RowLines(task.frame), encoding = self.encoding, width = outputWidth
        for pair in pairs {
            let rows = rowPair(pair, task, lines)
            for c in 0..<(width + 1) / 2 {
                let x0 = 2 * c, x1 = Swift.min(x0 + 1, width - 1)
                rows.exactBlock(c, x0: x0, x1: x1, s0: task.x + x0, s1: task.x + x1, stage, L.self, encoding)
            }
        }
    }

    /// Blocks on whole pairs by the affine map where all four pixels lie
    /// inside the RGB cube (`LinearYUVMap`), the others the exact way.
    private func convert<L: YUVLayout>(_ pairs: Range<Int>, _ task: Task, _ stage: PackedStage, _ linear: LinearYUVTables, _: L.Type) {
        let lines = RowLines(task.frame), encoding = self.encoding, width = outputWidth
        // Every table and coefficient in a local: the byte stores below could
        // otherwise alias them, and each would be loaded again after each store.
        let (py, pu, pv) = (stage.y, stage.u, stage.v)
        let (ty, tu, tv) = (linear.y, linear.u, linear.v)
        let (bY, bU, bV, bK) = linear.cb, (rY, rU, rV, rK) = linear.cr
        for pair in pairs {
            let rows = rowPair(pair, task, lines)
            let (a, ac, b, bc, ya, yb, u, v) = (rows.a, rows.ac, rows.b, rows.bc, rows.ya, rows.yb, rows.u, rows.v)
            // NV12 rows of one chroma row share its samples.
            let shared = ac == bc
            var c = 0
            if task.x & 1 == 0 {
                var s = task.x
                while c < width / 2 {
                    let (ua, va) = L.chroma(ac, s)
                    let (ub, vb) = shared ? (ua, va) : L.chroma(bc, s)
                    let la0 = L.luma(a, s), la1 = L.luma(a, s &+ 1), lb0 = L.luma(b, s), lb1 = L.luma(b, s &+ 1)
                    let ca = pu[ua] &+ pv[va], cb = shared ? ca : pu[ub] &+ pv[vb]
                    if PackedStage.inside(py[la0] &+ ca, py[la1] &+ ca, py[lb0] &+ cb, py[lb1] &+ cb) {
                        let ka = tu[ua] &+ tv[va], kb = shared ? ka : tu[ub] &+ tv[vb]
                        let y00 = clampByte((ty[la0] &+ ka) >> 16), y01 = clampByte((ty[la1] &+ ka) >> 16)
                        let y10 = clampByte((ty[lb0] &+ kb) >> 16), y11 = clampByte((ty[lb1] &+ kb) >> 16)
                        let sl = la0 &+ la1 &+ lb0 &+ lb1, su = 2 &* (ua &+ ub), sv = 2 &* (va &+ vb)
                        let cbv = clampByte(Int32(truncatingIfNeeded: (bY &* sl &+ bU &* su &+ bV &* sv &+ bK) >> 18))
                        let crv = clampByte(Int32(truncatingIfNeeded: (rY &* sl &+ rU &* su &+ rV &* sv &+ rK) >> 18))
                        // Stores last: nothing loaded above waits on them.
                        ya[2 &* c] = UInt8(truncatingIfNeeded: y00)
                        ya[2 &* c &+ 1] = UInt8(truncatingIfNeeded: y01)
                        yb[2 &* c] = UInt8(truncatingIfNeeded: y10)
                        yb[2 &* c &+ 1] = UInt8(truncatingIfNeeded: y11)
                        u[c] = UInt8(truncatingIfNeeded: cbv)
                        v[c] = UInt8(truncatingIfNeeded: crv)
                    } else {
                        rows.exactBlock(c, x0: 2 &* c, x1: 2 &* c &+ 1, s0: s, s1: s &+ 1, stage, L.self, encoding)
                    }
                    c &+= 1
                    s &+= 2
                }
            }
            // The rest: a last odd column, or every block of a rectangle
            // starting mid-pair, whose two pixels lie in different pairs.
            while c < (width + 1) / 2 {
                let x0 = 2 * c, x1 = Swift.min(x0 + 1, width - 1)
                rows.exactBlock(c, x0: x0, x1: x1, s0: task.x + x0, s1: task.x + x1, stage, L.self, encoding)
                c += 1
            }
        }
    }
}
