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
    /// For each thread, a window of five rows of balanced samples (0...1 each):
    /// the rows a pixel's 5x5 neighbourhood needs, filled as the thread moves
    /// down, so they are read from the cache. A row is two halves, the samples
    /// of the even columns and of the odd ones (so that eight lanes hold eight
    /// pixels of one kind), each with a mirrored border of 1 and room for the lanes read past its end.
    private var windows = UnsafeMutableBufferPointer<Float>(start: nil, count: 0)
    /// For each thread, the curve's table indices of a row's red, green and
    /// blue (even columns, then odd ones), worked out in lanes before the table is read one value at a time.
    private var indexRows = UnsafeMutableBufferPointer<Int32>(start: nil, count: 0)
    /// Floats in half a window's row, and indices in half an index row.
    private var halfLength = 0
    /// A MIPI-packed row's samples, unpacked for the white balance's statistics.
    private var unpackedRow = UnsafeMutableBufferPointer<UInt16>(start: nil, count: 0)
    /// For each thread, the sums of the red, green and blue samples (less the
    /// black level) of the rows it processed: `auto`'s statistics for the next frame.
    private let statistics: UnsafeMutableBufferPointer<SIMD3<Double>>
    /// The 8-bit encoded value of each linear value, indexed by its bits as a
    /// float (`CurveIndex`): steps of 1/512 to 1/1024 of the value, fine near black where curves are steep.
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
        statistics = .allocate(capacity: parallel.threads)
        statistics.initialize(repeating: .zero)
    }

    deinit {
        windows.deallocate()
        indexRows.deallocate()
        statistics.deallocate()
        unpackedRow.deallocate()
    }

    /// Processes the mosaic in `plane` (`mosaic`'s layout, the size of
    /// `target`) into `target`, an RGB24 buffer.
    public func process(_ plane: Plane, mosaic: BayerMosaic, into target: FrameBuffer) {
        let width = target.width, height = target.height
        precondition(target.format == .rgb24 && BayerMosaic.sizeProblem(width: width, height: height) == nil)
        // Lanes read up to 1 + 7 samples past a half's last; zeros keep the unused ones finite.
        halfLength = width / 2 + 2 + Neighbourhood.Lanes.scalarCount
        let count = parallel.threads * 5 * 2 * halfLength
        if windows.count != count {
            windows.deallocate()
            windows = .allocate(capacity: count)
            windows.initialize(repeating: 0)
            indexRows.deallocate()
            indexRows = .allocate(capacity: parallel.threads * 3 * 2 * halfLength)
        }
        // `auto` past its first frame gathers this frame's statistics while processing it, for the next one.
        var following: SIMD3<Float>?
        if case .auto = settings.whiteBalance, let smoothed = smoothedGains { following = smoothed }
        let gains = following ?? gains(for: plane, mosaic: mosaic, width: width, height: height)
        lastGains = gains
        let black = settings.blackLevel(for: mosaic)
        let scale = 1 / Float(mosaic.maximum - black)
        task = Task(plane: plane, mosaic: mosaic, width: width, height: height, black: black, scaled: gains * scale, target: target,
                    gathers: following != nil)
        for part in statistics.indices { statistics[part] = .zero }
        width * height >= Self.splitPixels ? parallel.run(count: height, job) : job.work(rows: 0..<height)
        task = nil
        if let used = following {
            let own = Self.grayWorldGains(statistics.reduce(.zero, +))
            smoothedGains = used + (own - used) * Self.smoothing
        }
    }

    /// The white-balance gains for the frame in `plane`, as the setting says
    /// (`auto` moves on to this frame's statistics for the next one): what
    /// `process` applies, and what a frame handed on raw is developed with.
    public func gains(for plane: Plane, mosaic: BayerMosaic, mipiPacked: Bool = false, width: Int, height: Int) -> SIMD3<Float> {
        lastGains = balance(plane, mosaic: mosaic, mipiPacked: mipiPacked, width: width, height: height)
        return lastGains
    }

    private func balance(_ plane: Plane, mosaic: BayerMosaic, mipiPacked: Bool, width: Int, height: Int) -> SIMD3<Float> {
        switch settings.whiteBalance {
        case .off: return SIMD3(1, 1, 1)
        case .gains(let r, let g, let b): return SIMD3(r, g, b)
        case .grayWorld: return grayWorld(plane, mosaic: mosaic, mipiPacked: mipiPacked, width: width, height: height)
        case .auto:
            let own = grayWorld(plane, mosaic: mosaic, mipiPacked: mipiPacked, width: width, height: height)
            let used = smoothedGains ?? own
            smoothedGains = used + (own - used) * Self.smoothing
            return used
        }
    }

    /// Gains that make the means of the red and blue samples (less the black
    /// level) equal to the green ones', within 1/8...8; 1 for a color with no light.
    /// A MIPI-packed row is unpacked into `unpackedRow` first.
    func grayWorld(_ plane: Plane, mosaic: BayerMosaic, mipiPacked: Bool = false, width: Int, height: Int) -> SIMD3<Float> {
        let black = settings.blackLevel(for: mosaic)
        var sums = SIMD3<Double>(0, 0, 0)
        if mipiPacked && unpackedRow.count < width {
            unpackedRow.deallocate()
            unpackedRow = .allocate(capacity: width)
        }
        for y in 0..<height {
            var row = UnsafeRawPointer(plane.bytes.baseAddress! + y * plane.bytesPerRow)
            if mipiPacked {
                MIPIUnpacker.unpackRow(row, bits: mosaic.bits, width: width, into: unpackedRow.baseAddress!)
                row = UnsafeRawPointer(unpackedRow.baseAddress!)
            }
            let (even, odd) = mosaic.bits > 8
                ? Self.sums(row.assumingMemoryBound(to: UInt16.self), width, black, mosaic.maximum)
                : Self.sums(row.assumingMemoryBound(to: UInt8.self), width, black, mosaic.maximum)
            sums[mosaic.channel(x: 0, y: y)] += Double(even)
            sums[mosaic.channel(x: 1, y: y)] += Double(odd)
        }
        return Self.grayWorldGains(sums)
    }

    /// The gray-world gains of the red, green and blue sums.
    static func grayWorldGains(_ sums: SIMD3<Double>) -> SIMD3<Float> {
        // Green has twice the samples of red and blue.
        let means = SIMD3(sums.x, sums.y / 2, sums.z)
        func gain(_ mean: Double) -> Float { mean > 0 ? Float(min(8, max(0.125, means.y / mean))) : 1 }
        return means.y > 0 ? SIMD3(gain(means.x), 1, gain(means.z)) : SIMD3(1, 1, 1)
    }

    /// The sums of a row's samples in even and odd columns, each less the
    /// black level (at least 0), eight pairs at a time in Int32 lanes (no
    /// lane's sum overflows below 2¹⁵ pairs of 16 bits a lane).
    @inline(__always)
    private static func sums<T: RawSample>(_ source: UnsafePointer<T>, _ width: Int, _ black: Int, _ maximum: Int) -> (Int, Int) {
        var i = 0
        let half = width / 2
        var even = 0, odd = 0
        #if _endian(little)
        var (evens, odds) = (SIMD8<Int32>.zero, SIMD8<Int32>.zero)
        while i + 8 <= half {
            let (e, o) = T.pairs(source + 2 &* i)
            evens &+= aboveBlack(e, black, maximum)
            odds &+= aboveBlack(o, black, maximum)
            i += 8
        }
        (even, odd) = (Int(evens.wrappedSum()), Int(odds.wrappedSum()))
        #endif
        while i < half {
            even &+= aboveBlack(source[2 &* i], black, maximum)
            odd &+= aboveBlack(source[2 &* i &+ 1], black, maximum)
            i += 1
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
        /// Whether the rows' sums are kept in `statistics`.
        let gathers: Bool
    }

    /// A frame's rows, for `ParallelRows`.
    private final class Job: RowWork {
        unowned let isp: BayerISP

        init(_ isp: BayerISP) { self.isp = isp }

        func work(rows: Range<Int>) {
            guard let task = isp.task, !rows.isEmpty else { return }
            let part = isp.parallel.part(holding: rows.lowerBound, count: task.height)
            let window = isp.windows.baseAddress! + part * 5 * 2 * isp.halfLength
            let indices = isp.indexRows.baseAddress! + part * 3 * 2 * isp.halfLength
            switch isp.settings.demosaic {
            case .malvar: isp.demosaic(rows, task, Malvar.self, window, indices, isp.statistics.baseAddress! + part)
            case .bilinear: isp.demosaic(rows, task, Bilinear.self, window, indices, isp.statistics.baseAddress! + part)
            }
        }
    }

    /// Mirrors `i` into `0..<n` without repeating the edge (n ≥ 3, -2 ≤ i ≤ n + 1).
    @inline(__always)
    static func mirror(_ i: Int, _ n: Int) -> Int { i < 0 ? -i : i >= n ? 2 * n - 2 - i : i }

    /// Row `padded` of the balanced samples (-2...height + 1, mirrored into
    /// the frame) into the halves at `evens` and `odds` (at their index 0),
    /// with their borders; its sums (less the black level) added to `sums` when given.
    private func fill(_ padded: Int, _ task: Task, into evens: UnsafeMutablePointer<Float>, _ odds: UnsafeMutablePointer<Float>,
                      adding sums: UnsafeMutablePointer<SIMD3<Double>>? = nil) {
        let (width, height, mosaic) = (task.width, task.height, task.mosaic)
        let y = Self.mirror(padded, height)
        let source = task.plane.bytes.baseAddress! + y * task.plane.bytesPerRow
        let even = task.scaled[mosaic.channel(x: 0, y: y)], odd = task.scaled[mosaic.channel(x: 1, y: y)]
        let (evenSum, oddSum) = mosaic.bits > 8
            ? Self.balance(source.assumingMemoryBound(to: UInt16.self), evens, odds, width, task.black, mosaic.maximum, even, odd)
            : Self.balance(source.assumingMemoryBound(to: UInt8.self), evens, odds, width, task.black, 255, even, odd)
        if let sums {
            sums.pointee[mosaic.channel(x: 0, y: y)] += Double(evenSum)
            sums.pointee[mosaic.channel(x: 1, y: y)] += Double(oddSum)
        }
        // Columns -2 and -1 mirror 2 and 1; columns width and width + 1 mirror width - 2 and width - 3.
        let half = width / 2
        (evens[-1], odds[-1], evens[half], odds[half]) = (evens[1], odds[0], evens[half - 1], odds[half - 2])
    }

    /// The samples of a row less the black level (at least 0), scaled by
    /// their color's gain, into the even columns' and the odd columns' halves:
    /// eight pairs at a time, in Int32 lanes, where Swift makes vector
    /// instructions of the limits (on Float lanes it does not). Returns the
    /// sums of the even and the odd columns' samples less the black level
    /// (no lane's sum overflows below 2¹⁵ pairs of 16 bits a lane).
    @inline(__always)
    private static func balance<T: RawSample>(_ source: UnsafePointer<T>, _ evens: UnsafeMutablePointer<Float>, _ odds: UnsafeMutablePointer<Float>,
                                              _ width: Int, _ black: Int, _ maximum: Int, _ even: Float, _ odd: Float) -> (Int, Int) {
        typealias Lanes = Neighbourhood.Lanes
        var i = 0
        let half = width / 2
        var evenSum = 0, oddSum = 0
        #if _endian(little)
        var (evenSums, oddSums) = (SIMD8<Int32>.zero, SIMD8<Int32>.zero)
        while i + Lanes.scalarCount <= half {
            let (e, o) = T.pairs(source + 2 &* i)
            let (above, aboveOdd) = (aboveBlack(e, black, maximum), aboveBlack(o, black, maximum))
            evenSums &+= above
            oddSums &+= aboveOdd
            UnsafeMutableRawPointer(evens + i).storeBytes(of: Lanes(above) * even, as: Lanes.self)
            UnsafeMutableRawPointer(odds + i).storeBytes(of: Lanes(aboveOdd) * odd, as: Lanes.self)
            i += Lanes.scalarCount
        }
        (evenSum, oddSum) = (Int(evenSums.wrappedSum()), Int(oddSums.wrappedSum()))
        #endif
        while i < half {
            let e = aboveBlack(source[2 &* i], black, maximum)
            let o = aboveBlack(source[2 &* i &+ 1], black, maximum)
            (evenSum, oddSum) = (evenSum &+ e, oddSum &+ o)
            evens[i] = Float(e) * even
            odds[i] = Float(o) * odd
            i += 1
        }
        return (evenSum, oddSum)
    }

    /// Output rows `rows`: each pixel's missing colors interpolated by `K`
    /// (eight pixels of one kind at a time), then the matrix and the curve.
    private func demosaic<K: DemosaicKernel>(_ rows: Range<Int>, _ task: Task, _: K.Type, _ window: UnsafeMutablePointer<Float>,
                                             _ indices: UnsafeMutablePointer<Int32>, _ sums: UnsafeMutablePointer<SIMD3<Double>>) {
        typealias Lanes = Neighbourhood.Lanes
        let mosaic = task.mosaic, width = task.width, half = width / 2, length = halfLength
        // Padded row r (-2...height + 1) lives in the window's row r mod 5: its even columns' half, then its odd columns'.
        @inline(__always) func evens(_ r: Int) -> UnsafeMutablePointer<Float> { window + ((r + 5) % 5) * 2 * length + 1 }
        @inline(__always) func odds(_ r: Int) -> UnsafeMutablePointer<Float> { evens(r) + length }
        @inline(__always) func fiveRows(_ y: Int, _ half: (Int) -> UnsafeMutablePointer<Float>) -> RowWindow {
            RowWindow(above2: half(y - 2), above: half(y - 1), row: half(y), below: half(y + 1), below2: half(y + 2))
        }
        // Each row is counted by the thread whose rows hold it.
        @inline(__always) func fill(_ r: Int) { self.fill(r, task, into: evens(r), odds(r), adding: task.gathers && rows.contains(r) ? sums : nil) }
        for r in rows.lowerBound - 2..<rows.lowerBound + 2 { fill(r) }
        // The matrix as nine scalars (identity when none), read once.
        let m = settings.colorMatrix ?? [1, 0, 0, 0, 1, 0, 0, 0, 1]
        let (m0, m1, m2, m3, m4, m5, m6, m7, m8) = (m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8])
        let mixes = settings.colorMatrix != nil
        let target = task.target.planes[0]
        encoded.withUnsafeBufferPointer { lut in
            let lut = lut.baseAddress!
            for y in rows {
                fill(y + 2)
                let (even, odd) = (fiveRows(y, evens), fiveRows(y, odds))
                let out = UnsafeMutableRawPointer(mutating: target.bytes.baseAddress! + y * target.bytesPerRow).assumingMemoryBound(to: UInt8.self)
                let redRow = (y & 1) == mosaic.redRow
                // Red or blue samples sit on the columns of this parity, green on the others.
                let colorParity = redRow ? mosaic.redColumn : 1 - mosaic.redColumn
                /// Eight pixels' colors into the index rows at `at`: `rowColor` is the row's own color (red in a red row),
                /// `other` the color of the rows above and below.
                @inline(__always) func put(_ rowColor: Lanes, _ green: Lanes, _ other: Lanes, at: Int) {
                    var (r, g, b) = redRow ? (rowColor, green, other) : (other, green, rowColor)
                    if mixes {
                        (r, g, b) = (m0 * r + m1 * g + m2 * b, m3 * r + m4 * g + m5 * b, m6 * r + m7 * g + m8 * b)
                    }
                    UnsafeMutableRawPointer(indices + at).storeBytes(of: CurveIndex.of(r), as: Neighbourhood.Indices.self)
                    UnsafeMutableRawPointer(indices + (2 &* length &+ at)).storeBytes(of: CurveIndex.of(g), as: Neighbourhood.Indices.self)
                    UnsafeMutableRawPointer(indices + (4 &* length &+ at)).storeBytes(of: CurveIndex.of(b), as: Neighbourhood.Indices.self)
                }
                @inline(__always) func colorSites(_ n: Neighbourhood, at: Int) { put(n.center, K.greenAtRedOrBlue(n), K.diagonal(n), at: at) }
                @inline(__always) func greenSites(_ n: Neighbourhood, at: Int) { put(K.horizontal(n), n.center, K.vertical(n), at: at) }
                var i = 0
                while i < half {
                    let evenSites = Neighbourhood(own: even, other: odd, i, left: i &- 1)
                    let oddSites = Neighbourhood(own: odd, other: even, i, left: i)
                    if colorParity == 0 {
                        colorSites(evenSites, at: i)
                        greenSites(oddSites, at: length &+ i)
                    } else {
                        greenSites(evenSites, at: i)
                        colorSites(oddSites, at: length &+ i)
                    }
                    i &+= Lanes.scalarCount
                }
                // The table, read one value at a time (the lanes have no gather).
                let (ri, gi, bi) = (indices, indices + 2 &* length, indices + 4 &* length)
                for i in 0..<half {
                    let o = out + 6 &* i
                    o[0] = lut[Int(truncatingIfNeeded: ri[i])]
                    o[1] = lut[Int(truncatingIfNeeded: gi[i])]
                    o[2] = lut[Int(truncatingIfNeeded: bi[i])]
                    o[3] = lut[Int(truncatingIfNeeded: ri[length &+ i])]
                    o[4] = lut[Int(truncatingIfNeeded: gi[length &+ i])]
                    o[5] = lut[Int(truncatingIfNeeded: bi[length &+ i])]
                }
            }
        }
    }
}
