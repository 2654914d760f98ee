import Glibc
import Lifecycle

/// A small image signal processor for raw Bayer frames, on the CPU: each
/// sample less the black level, scaled to 0...1 and multiplied by its
/// color's white-balance gain; the two missing colors of each pixel
/// interpolated (`ISPSettings.Demosaic`); the color matrix; the transfer
/// curve; 8-bit RGB out. Edges are mirrored without repeating the edge
/// sample (…, 2, 1, 0, 1, 2, …), which keeps the color pattern, so edge pixels
/// are interpolated as inner ones are. Buffers are kept between frames of one size.
public final class BayerISP {
    public let settings: ISPSettings
    /// The red, green and blue gains the last frame was balanced with.
    public private(set) var lastGains = SIMD3<Float>(1, 1, 1)
    /// `auto`'s gains, smoothed over the frames so far.
    private var smoothedGains: SIMD3<Float>?
    /// For each thread, a window of five rows of balanced samples (0...1 each),
    /// each row with a mirrored border of 2 on each side and room for the
    /// lanes read past its end: the rows a pixel's 5x5 neighbourhood needs,
    /// filled as the thread moves down, so they are read from the cache.
    private var windows = UnsafeMutableBufferPointer<Float>(start: nil, count: 0)
    /// Floats in a window's row.
    private var rowLength = 0
    /// The 8-bit encoded value of each linear value, indexed by its bits as a
    /// float (`CurveIndex`): steps of 1/1024 of the value, fine near black where curves are steep.
    private let encoded: [UInt8]
    private let parallel: ParallelRows
    private lazy var job = Job(self)
    private var task: Task?

    /// Frames of this many pixels or more are processed on several threads.
    public static let splitPixels = 1 << 17
    /// How far `auto` moves toward each new frame's gray-world gains.
    static let smoothing: Float = 0.25

    /// `threads`: how many threads process a large frame (default: one per core, at most 4).
    public init(settings: ISPSettings, threads: Int = min(max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))), 4)) {
        self.settings = settings
        encoded = CurveIndex.table { UInt8((settings.encode(Double($0)) * 255).rounded()) }
        parallel = ParallelRows(threads: threads, name: "kamera.isp")
    }

    deinit { windows.deallocate() }

    /// Processes the mosaic in `plane` (`mosaic`'s layout, the size of
    /// `target`) into `target`, an RGB24 buffer.
    public func process(_ plane: Plane, mosaic: BayerMosaic, into target: FrameBuffer) {
        let width = target.width, height = target.height
        precondition(target.format == .rgb24 && BayerMosaic.sizeProblem(width: width, height: height) == nil)
        // Lanes read up to 2 + 7 samples past a row's last pixel; zeros keep the unused ones finite.
        rowLength = width + 4 + Neighbourhood.Lanes.scalarCount
        let count = parallel.threads * 5 * rowLength
        if windows.count != count {
            windows.deallocate()
            windows = .allocate(capacity: count)
            windows.initialize(repeating: 0)
        }
        let gains = gains(for: plane, mosaic: mosaic, width: width, height: height)
        let black = settings.blackLevel(for: mosaic)
        let scale = 1 / Float(mosaic.maximum - black)
        task = Task(plane: plane, mosaic: mosaic, width: width, height: height, black: black, scaled: gains * scale, target: target)
        width * height >= Self.splitPixels ? parallel.run(count: height, job) : job.work(rows: 0..<height)
        task = nil
    }

    /// The white-balance gains for the frame in `plane`, as the setting says
    /// (`auto` moves on to this frame's statistics for the next one): what
    /// `process` applies, and what a frame handed on raw is developed with.
    public func gains(for plane: Plane, mosaic: BayerMosaic, width: Int, height: Int) -> SIMD3<Float> {
        lastGains = balance(plane, mosaic: mosaic, width: width, height: height)
        return lastGains
    }

    private func balance(_ plane: Plane, mosaic: BayerMosaic, width: Int, height: Int) -> SIMD3<Float> {
        switch settings.whiteBalance {
        case .off: return SIMD3(1, 1, 1)
        case .gains(let r, let g, let b): return SIMD3(r, g, b)
        case .grayWorld: return grayWorld(plane, mosaic: mosaic, width: width, height: height)
        case .auto:
            let own = grayWorld(plane, mosaic: mosaic, width: width, height: height)
            let used = smoothedGains ?? own
            smoothedGains = used + (own - used) * Self.smoothing
            return used
        }
    }

    /// Gains that make the means of the red and blue samples (less the black
    /// level) equal to the green ones', within 1/8...8; 1 for a color with no light.
    func grayWorld(_ plane: Plane, mosaic: BayerMosaic, width: Int, height: Int) -> SIMD3<Float> {
        let black = settings.blackLevel(for: mosaic)
        var sums = SIMD3<Double>(0, 0, 0)
        for y in 0..<height {
            let row = plane.bytes.baseAddress! + y * plane.bytesPerRow
            let (even, odd) = mosaic.bits > 8
                ? Self.sums(row.assumingMemoryBound(to: UInt16.self), width, black, mosaic.maximum)
                : Self.sums(row.assumingMemoryBound(to: UInt8.self), width, black, mosaic.maximum)
            sums[mosaic.channel(x: 0, y: y)] += Double(even)
            sums[mosaic.channel(x: 1, y: y)] += Double(odd)
        }
        // Green has twice the samples of red and blue.
        let means = SIMD3(sums.x, sums.y / 2, sums.z)
        func gain(_ mean: Double) -> Float { mean > 0 ? Float(min(8, max(0.125, means.y / mean))) : 1 }
        return means.y > 0 ? SIMD3(gain(means.x), 1, gain(means.z)) : SIMD3(1, 1, 1)
    }

    /// The sums of a row's samples in even and odd columns, each less the
    /// black level (at least 0), eight at a time in Int32 lanes (no lane's sum
    /// overflows below 2¹⁵ samples of 16 bits a lane).
    @inline(__always)
    private static func sums<T: FixedWidthInteger & SIMDScalar>(_ source: UnsafePointer<T>, _ width: Int, _ black: Int, _ maximum: Int) -> (Int, Int) {
        var x = 0
        var even = 0, odd = 0
        #if _endian(little)
        var lanes = SIMD8<Int32>.zero
        while x + 8 <= width {
            let v = SIMD8<Int32>(truncatingIfNeeded: UnsafeRawPointer(source + x).loadUnaligned(as: SIMD8<T>.self))
            lanes &+= (v.atMost(Int32(maximum)) &- Int32(black)).nonNegative
            x += 8
        }
        even = Int(lanes[0]) + Int(lanes[2]) + Int(lanes[4]) + Int(lanes[6])
        odd = Int(lanes[1]) + Int(lanes[3]) + Int(lanes[5]) + Int(lanes[7])
        #endif
        while x < width {
            even &+= max(0, min(Int(T(littleEndian: source[x])), maximum) - black)
            odd &+= max(0, min(Int(T(littleEndian: source[x + 1])), maximum) - black)
            x += 2
        }
        return (even, odd)
    }

    /// One frame's inputs.
    private struct Task {
        let plane: Plane
        let mosaic: BayerMosaic
        let width: Int, height: Int
        let black: Int
        /// Each color's gain over the range above black.
        let scaled: SIMD3<Float>
        let target: FrameBuffer
    }

    /// A frame's rows, for `ParallelRows`.
    private final class Job: RowWork {
        unowned let isp: BayerISP

        init(_ isp: BayerISP) { self.isp = isp }

        func work(rows: Range<Int>) {
            guard let task = isp.task, !rows.isEmpty else { return }
            let window = isp.windows.baseAddress! + isp.parallel.part(holding: rows.lowerBound, count: task.height) * 5 * isp.rowLength
            switch isp.settings.demosaic {
            case .malvar: isp.demosaic(rows, task, Malvar.self, window)
            case .bilinear: isp.demosaic(rows, task, Bilinear.self, window)
            }
        }
    }

    /// Mirrors `i` into `0..<n` without repeating the edge (n ≥ 3, -2 ≤ i ≤ n + 1).
    @inline(__always)
    static func mirror(_ i: Int, _ n: Int) -> Int { i < 0 ? -i : i >= n ? 2 * n - 2 - i : i }

    /// Row `padded` of the balanced samples (-2...height + 1, mirrored into
    /// the frame) into `out`, at its column 0, with its border.
    private func fill(_ padded: Int, _ task: Task, into out: UnsafeMutablePointer<Float>) {
        let (width, height, mosaic) = (task.width, task.height, task.mosaic)
        let y = Self.mirror(padded, height)
        let source = task.plane.bytes.baseAddress! + y * task.plane.bytesPerRow
        let even = task.scaled[mosaic.channel(x: 0, y: y)], odd = task.scaled[mosaic.channel(x: 1, y: y)]
        if mosaic.bits > 8 {
            Self.balance(source.assumingMemoryBound(to: UInt16.self), out, width, task.black, mosaic.maximum, even, odd)
        } else {
            Self.balance(source.assumingMemoryBound(to: UInt8.self), out, width, task.black, 255, even, odd)
        }
        (out[-2], out[-1], out[width], out[width + 1]) = (out[2], out[1], out[width - 2], out[width - 3])
    }

    @inline(__always)
    private static func balance<T: FixedWidthInteger & SIMDScalar>(_ source: UnsafePointer<T>, _ out: UnsafeMutablePointer<Float>, _ width: Int,
                                                      _ black: Int, _ maximum: Int, _ even: Float, _ odd: Float) {
        typealias Lanes = SIMD8<Float>
        var x = 0
        #if _endian(little)
        // Limited in Int32 lanes, where Swift makes vector instructions of it (on Float lanes it does not).
        let gains = Lanes(even, odd, even, odd, even, odd, even, odd)
        while x + Lanes.scalarCount <= width {
            let v = SIMD8<Int32>(truncatingIfNeeded: UnsafeRawPointer(source + x).loadUnaligned(as: SIMD8<T>.self))
            UnsafeMutableRawPointer(out + x).storeBytes(of: Lanes((v.atMost(Int32(maximum)) &- Int32(black)).nonNegative) * gains, as: Lanes.self)
            x += Lanes.scalarCount
        }
        #endif
        let black = Float(black), top = Float(maximum)
        while x < width {
            out[x] = max(0, min(Float(T(littleEndian: source[x])), top) - black) * even
            out[x + 1] = max(0, min(Float(T(littleEndian: source[x + 1])), top) - black) * odd
            x += 2
        }
    }

    /// Output rows `rows`: each pixel's missing colors interpolated by `K`
    /// (eight pixels at a time), then the matrix and the curve.
    private func demosaic<K: DemosaicKernel>(_ rows: Range<Int>, _ task: Task, _: K.Type, _ window: UnsafeMutablePointer<Float>) {
        typealias Lanes = Neighbourhood.Lanes
        let mosaic = task.mosaic, width = task.width, length = rowLength
        // Padded row r (-2...height + 1) lives in the window's row r mod 5.
        @inline(__always) func slot(_ r: Int) -> UnsafeMutablePointer<Float> { window + ((r + 5) % 5) * length + 2 }
        for r in rows.lowerBound - 2..<rows.lowerBound + 2 { fill(r, task, into: slot(r)) }
        // The matrix as nine scalars (identity when none), read once.
        let m = settings.colorMatrix ?? [1, 0, 0, 0, 1, 0, 0, 0, 1]
        let (m0, m1, m2, m3, m4, m5, m6, m7, m8) = (m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8])
        let mixes = settings.colorMatrix != nil
        let target = task.target.planes[0]
        encoded.withUnsafeBufferPointer { lut in
            let lut = lut.baseAddress!
            for y in rows {
                fill(y + 2, task, into: slot(y + 2))
                let around = RowWindow(slot(y - 2), slot(y - 1), slot(y), slot(y + 1), slot(y + 2))
                let out = UnsafeMutableRawPointer(mutating: target.bytes.baseAddress! + y * target.bytesPerRow).assumingMemoryBound(to: UInt8.self)
                let redRow = (y & 1) == mosaic.redRow
                // Red or blue samples sit on the columns of this parity (1 in their lanes), green on the others.
                let colorParity = redRow ? mosaic.redColumn : 1 - mosaic.redColumn
                var colored = Lanes.zero
                for lane in Swift.stride(from: colorParity, to: Lanes.scalarCount, by: 2) { colored[lane] = 1 }
                let greened = 1 - colored
                var x = 0
                while x < width {
                    let n = Neighbourhood(around, x)
                    // The row's own color (red in a red row), green, and the color of the rows above and below.
                    let rowColor = colored * n.center + greened * K.horizontal(n)
                    var g = colored * K.greenAtRedOrBlue(n) + greened * n.center
                    let otherColor = colored * K.diagonal(n) + greened * K.vertical(n)
                    var (r, b) = redRow ? (rowColor, otherColor) : (otherColor, rowColor)
                    if mixes {
                        (r, g, b) = (m0 * r + m1 * g + m2 * b, m3 * r + m4 * g + m5 * b, m6 * r + m7 * g + m8 * b)
                    }
                    let (ri, gi, bi) = (CurveIndex.of(r), CurveIndex.of(g), CurveIndex.of(b))
                    let o = out + 3 &* x
                    @inline(__always) func put(_ lane: Int) {
                        o[3 &* lane] = lut[Int(truncatingIfNeeded: ri[lane])]
                        o[3 &* lane &+ 1] = lut[Int(truncatingIfNeeded: gi[lane])]
                        o[3 &* lane &+ 2] = lut[Int(truncatingIfNeeded: bi[lane])]
                    }
                    if x &+ Lanes.scalarCount <= width {
                        // A whole block, its count known, so the loop unrolls.
                        for lane in 0..<Lanes.scalarCount { put(lane) }
                    } else {
                        for lane in 0..<width &- x { put(lane) }
                    }
                    x &+= Lanes.scalarCount
                }
            }
        }
    }
}
