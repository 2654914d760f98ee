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
    /// The balanced samples in 0...1 with a mirrored border of 2 on each side.
    private var samples = UnsafeMutableBufferPointer<Float>(start: nil, count: 0)
    /// The 8-bit encoded value of each linear value, indexed by its square
    /// root in 65535 steps: fine steps near black, where curves are steep.
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
        encoded = (0...65535).map { UInt8((settings.encode(Glibc.pow(Double($0) / 65535, 2)) * 255).rounded()) }
        parallel = ParallelRows(threads: threads, name: "kamera.isp")
    }

    deinit { samples.deallocate() }

    /// Processes the mosaic in `plane` (`mosaic`'s layout, the size of
    /// `target`) into `target`, an RGB24 buffer.
    public func process(_ plane: Plane, mosaic: BayerMosaic, into target: FrameBuffer) {
        let width = target.width, height = target.height
        precondition(target.format == .rgb24 && BayerMosaic.sizeProblem(width: width, height: height) == nil)
        let count = (width + 4) * (height + 4)
        if samples.count != count {
            samples.deallocate()
            samples = .allocate(capacity: count)
        }
        let gains = gains(for: plane, mosaic: mosaic, width: width, height: height)
        let black = settings.blackLevel(for: mosaic)
        let scale = 1 / Float(mosaic.maximum - black)
        task = Task(plane: plane, mosaic: mosaic, width: width, height: height, black: black, scaled: gains * scale, target: target)
        let split = width * height >= Self.splitPixels
        job.pass = .fill
        split ? parallel.run(count: height + 4, job) : job.work(rows: 0..<height + 4)
        job.pass = .demosaic
        split ? parallel.run(count: height, job) : job.work(rows: 0..<height)
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
            var even = 0, odd = 0
            if mosaic.bits > 8 {
                let words = row.assumingMemoryBound(to: UInt16.self), top = UInt16(mosaic.maximum)
                for x in stride(from: 0, to: width, by: 2) {
                    even &+= max(0, Int(min(UInt16(littleEndian: words[x]), top)) - black)
                    odd &+= max(0, Int(min(UInt16(littleEndian: words[x + 1]), top)) - black)
                }
            } else {
                let bytes = row.assumingMemoryBound(to: UInt8.self)
                for x in stride(from: 0, to: width, by: 2) {
                    even &+= max(0, Int(bytes[x]) - black)
                    odd &+= max(0, Int(bytes[x + 1]) - black)
                }
            }
            sums[mosaic.channel(x: 0, y: y)] += Double(even)
            sums[mosaic.channel(x: 1, y: y)] += Double(odd)
        }
        // Green has twice the samples of red and blue.
        let means = SIMD3(sums.x, sums.y / 2, sums.z)
        func gain(_ mean: Double) -> Float { mean > 0 ? Float(min(8, max(0.125, means.y / mean))) : 1 }
        return means.y > 0 ? SIMD3(gain(means.x), 1, gain(means.z)) : SIMD3(1, 1, 1)
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

    /// The rows of the current pass, for `ParallelRows`.
    private final class Job: RowWork {
        enum Pass { case fill, demosaic }
        unowned let isp: BayerISP
        var pass = Pass.fill

        init(_ isp: BayerISP) { self.isp = isp }

        func work(rows: Range<Int>) {
            guard let task = isp.task else { return }
            switch pass {
            case .fill: isp.fill(rows, task)
            case .demosaic:
                switch isp.settings.demosaic {
                case .malvar: isp.demosaic(rows, task, Malvar.self)
                case .bilinear: isp.demosaic(rows, task, Bilinear.self)
                }
            }
        }
    }

    /// Mirrors `i` into `0..<n` without repeating the edge (n ≥ 3, -2 ≤ i ≤ n + 1).
    @inline(__always)
    static func mirror(_ i: Int, _ n: Int) -> Int { i < 0 ? -i : i >= n ? 2 * n - 2 - i : i }

    /// Padded rows `rows` of the balanced samples.
    private func fill(_ rows: Range<Int>, _ task: Task) {
        let (width, height, mosaic) = (task.width, task.height, task.mosaic)
        let stride = width + 4
        for padded in rows {
            let y = Self.mirror(padded - 2, height)
            let source = task.plane.bytes.baseAddress! + y * task.plane.bytesPerRow
            let out = samples.baseAddress! + padded * stride + 2
            let even = task.scaled[mosaic.channel(x: 0, y: y)], odd = task.scaled[mosaic.channel(x: 1, y: y)]
            if mosaic.bits > 8 {
                Self.balance(source.assumingMemoryBound(to: UInt16.self), out, width, task.black, mosaic.maximum, even, odd)
            } else {
                Self.balance(source.assumingMemoryBound(to: UInt8.self), out, width, task.black, 255, even, odd)
            }
            (out[-2], out[-1], out[width], out[width + 1]) = (out[2], out[1], out[width - 2], out[width - 3])
        }
    }

    @inline(__always)
    private static func balance<T: FixedWidthInteger>(_ source: UnsafePointer<T>, _ out: UnsafeMutablePointer<Float>, _ width: Int,
                                                      _ black: Int, _ maximum: Int, _ even: Float, _ odd: Float) {
        let black = Float(black), top = Float(maximum)
        for x in Swift.stride(from: 0, to: width, by: 2) {
            out[x] = max(0, min(Float(T(littleEndian: source[x])), top) - black) * even
            out[x + 1] = max(0, min(Float(T(littleEndian: source[x + 1])), top) - black) * odd
        }
    }

    /// Output rows `rows`: each pixel's missing colors interpolated by `K`, then the matrix and the curve.
    private func demosaic<K: DemosaicKernel>(_ rows: Range<Int>, _ task: Task, _: K.Type) {
        let stride = task.width + 4, mosaic = task.mosaic, width = task.width
        // The matrix as nine scalars (identity when none), read once.
        let m = settings.colorMatrix ?? [1, 0, 0, 0, 1, 0, 0, 0, 1]
        let (m0, m1, m2, m3, m4, m5, m6, m7, m8) = (m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8])
        let mixes = settings.colorMatrix != nil
        let target = task.target.planes[0]
        encoded.withUnsafeBufferPointer { lut in
            let lut = lut.baseAddress!
            @inline(__always) func encode(_ v: Float) -> UInt8 {
                lut[Int((min(max(v, 0), 1).squareRoot() * 65535 + 0.5))]
            }
            for y in rows {
                let row = UnsafePointer(samples.baseAddress! + (y + 2) * stride + 2)
                let out = UnsafeMutableRawPointer(mutating: target.bytes.baseAddress! + y * target.bytesPerRow).assumingMemoryBound(to: UInt8.self)
                let redRow = (y & 1) == mosaic.redRow
                // Red or blue samples sit on the columns of this parity; green on the others.
                let colorParity = redRow ? mosaic.redColumn : 1 - mosaic.redColumn
                for x in 0..<width {
                    let p = row + x
                    var r: Float, g: Float, b: Float
                    if x & 1 == colorParity {
                        let own = p[0], green = K.greenAtRedOrBlue(p, stride), other = K.diagonal(p, stride)
                        (r, g, b) = redRow ? (own, green, other) : (other, green, own)
                    } else {
                        let across = K.horizontal(p, stride), down = K.vertical(p, stride)
                        (r, g, b) = redRow ? (across, p[0], down) : (down, p[0], across)
                    }
                    if mixes {
                        (r, g, b) = (m0 * r + m1 * g + m2 * b, m3 * r + m4 * g + m5 * b, m6 * r + m7 * g + m8 * b)
                    }
                    out[3 &* x] = encode(r)
                    out[3 &* x &+ 1] = encode(g)
                    out[3 &* x &+ 2] = encode(b)
                }
            }
        }
    }
}
