import Glibc
import Lifecycle

/// Converts a rectangle of a YUYV or NV12 frame straight to planar 4:2:0
/// Y'CbCr in the color space an encoder is told (BT.601 or BT.709, either
/// range), with a color matrix applied on the way, and no RGB picture in
/// memory: each pixel's RGB is made in registers by the tables `YUVToRGBA`
/// uses (the matrix composed in, clamped to 0...255), then encoded by the
/// arithmetic `RGBAToYUV` uses, each chroma sample from its 2x2 block's mean.
/// So the planes equal `RGBAToYUV` of `YUVToRGBA`'s picture byte for byte,
/// for 2 bytes a pixel read and 1.5 written instead of an RGBA picture
/// written and read again. What a recording of a CPU-converted picture takes.
public final class YUVToYUV420 {
    /// Y', then Cb, then Cr, each plane tightly packed.
    public private(set) var planes = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    public private(set) var outputWidth = 0
    public private(set) var outputHeight = 0
    private var tables = ConversionTables()
    private var encoding = YUVEncoding(.bt601Limited)
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
            wide.withStage { convert(pairs, task, $0) }
            return
        }
        tables.packed!.withStage { convert(pairs, task, $0) }
    }

    private func convert<S: ColorStage>(_ pairs: Range<Int>, _ task: Task, _ stage: S) {
        if task.frame.format == .yuyv {
            convert(pairs, task, stage, YUYVLayout.self)
        } else {
            convert(pairs, task, stage, NV12Layout.self)
        }
    }

    private func convert<S: ColorStage, L: YUVLayout>(_ pairs: Range<Int>, _ task: Task, _ stage: S, _: L.Type) {
        let lines = RowLines(task.frame)
        let encoding = self.encoding
        let width = outputWidth, height = outputHeight, chromaWidth = (width + 1) / 2
        let luma = planes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let cb = luma + width * height, cr = cb + chromaWidth * ((height + 1) / 2)
        for pair in pairs {
            // A last odd row pairs with itself, as a last odd column does.
            let r0 = 2 * pair, r1 = Swift.min(r0 + 1, height - 1)
            let (a, ac) = lines(task.y + r0), (b, bc) = lines(task.y + r1)
            let ya = luma + r0 * width, yb = luma + r1 * width
            let u = cb + pair * chromaWidth, v = cr + pair * chromaWidth
            for c in 0..<chromaWidth {
                let x0 = 2 * c, x1 = Swift.min(x0 + 1, width - 1)
                let s0 = task.x + x0, s1 = task.x + x1
                // Each pixel takes its own pair's chroma; a rectangle starting
                // mid-pair puts a block's two pixels in different pairs.
                let (ua, va) = L.chroma(ac, s0 & ~1), (ub, vb) = L.chroma(bc, s0 & ~1)
                let ca0 = stage.chroma(ua, va), cb0 = stage.chroma(ub, vb)
                let split = (s0 ^ s1) > 1
                let ca1 = split ? { let (u, v) = L.chroma(ac, s1 & ~1); return stage.chroma(u, v) }() : ca0
                let cb1 = split ? { let (u, v) = L.chroma(bc, s1 & ~1); return stage.chroma(u, v) }() : cb0
                let p00 = stage.rgb(L.luma(a, s0), ca0), p01 = stage.rgb(L.luma(a, s1), ca1)
                let p10 = stage.rgb(L.luma(b, s0), cb0), p11 = stage.rgb(L.luma(b, s1), cb1)
                ya[x0] = encoding.luma(p00.0, p00.1, p00.2)
                ya[x1] = encoding.luma(p01.0, p01.1, p01.2)
                yb[x0] = encoding.luma(p10.0, p10.1, p10.2)
                yb[x1] = encoding.luma(p11.0, p11.1, p11.2)
                (u[c], v[c]) = encoding.chroma(p00.0 &+ p01.0 &+ p10.0 &+ p11.0, p00.1 &+ p01.1 &+ p10.1 &+ p11.1,
                                               p00.2 &+ p01.2 &+ p10.2 &+ p11.2, shift: 2)
            }
        }
    }
}
