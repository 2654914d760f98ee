import Render
import Analysis
import Capture
import CommandLineSupport
import DRM
import Filters
import Foundation
import GPU
import Lifecycle
import Pipeline
import Pixels

enum BenchWorkload: String, CaseIterable {
    /// The frame to RGBA, no filter, the whole frame, read back: the filter's baseline.
    case plain = "upload+plain+readback"
    /// Upload, sepia on the whole frame, read back.
    case sepia = "upload+sepia+readback"
    /// The same two through GL whatever the renderer (upload, a draw, glReadPixels):
    /// the pass-through shader, and sepia, on the GL path.
    case glPlain = "GL: upload+copy+readback"
    case glSepia = "GL: upload+sepia+readback"
    /// Upload, square crop, cube at the crop size, read back.
    case cube = "upload+cube+readback"
    /// Sepia with the luma analyser offered every frame, on a live run's terms
    /// (frames it is busy for are skipped): what the analysis costs the loop.
    case sepiaAnalysed = "sepia + luma analysis"
    /// The filters beyond color matrices, at the end-to-end bench's settings.
    case blur = "upload+blur=5+readback"
    case sharpen = "upload+sharpen=1+readback"
    case convolve = "upload+convolve 3x3+readback"
    case pixellate = "upload+pixellate=16+readback"

    /// Where a software renderer skips GL (see `RenderPlan.Rewrites.passthrough`), the GL rows do not.
    var forcesGL: Bool { self == .glPlain || self == .glSepia }

    /// Measured at 1280x720 only: the filters and the analysis.
    var onlyAt720p: Bool { [.sepiaAnalysed, .blur, .sharpen, .convolve, .pixellate].contains(self) }

    /// The `--filter` arguments of the filter rows.
    var filters: [String] {
        switch self {
        case .sepia, .glSepia, .sepiaAnalysed: ["sepia"]
        case .blur: ["blur=5"]
        case .sharpen: ["sharpen=1"]
        case .convolve: ["convolve=0,-1,0,-1,5,-1,0,-1,0"]
        case .pixellate: ["pixellate=16"]
        case .plain, .glPlain, .cube: []
        }
    }
}

struct BenchResult {
    var workload: BenchWorkload
    var width: Int
    var height: Int
    var format: PixelFormat
    var fps: Double
    var p50: Double
    var p95: Double
    var allocationsPerFrame: Double?

    static let header = "workload                   size        format     fps   ms/frame p50   p95   allocs/frame"

    var row: String {
        let allocs = allocationsPerFrame.map { String(format: "%.2f", $0) } ?? "n/a"
        return workload.rawValue.padded(26) + " " + "\(width)x\(height)".padded(11) + " " + format.name.padded(6)
            + String(format: " %8.1f %9.2f %7.2f   ", fps, p50, p95) + allocs
    }
}

/// One measured case: frames of one size and format, prepared in memory.
struct Benchmark {
    var workload: BenchWorkload
    var width: Int
    var height: Int
    var format: PixelFormat
    var frames: Int
    /// Used on the render thread only.
    var context: GPUContext
    /// Frames in DRM dumb buffers on this node (shared as dma-bufs) instead of the heap.
    var dumbBuffersOn: String?
    var upload: FrameUploader.Upload = .auto

    /// Four distinct test-pattern frames, copied so each keeps its own memory,
    /// and the objects that own that memory.
    func makeFrames() throws -> (frames: [Frame], owners: [AnyObject]) {
        let pattern = TestPattern(width: width, height: height, format: format)
        let node = try dumbBuffersOn.map { try DRMNode(path: $0) }
        var frames: [Frame] = [], owners: [AnyObject] = []
        for i in 0..<4 {
            let frame = pattern.frame(at: UInt64(i * 7))
            let size = frame.planes.reduce(0) { $0 + $1.bytes.count }
            let memory: UnsafeMutableRawBufferPointer
            var fd: Int32?
            if let node {
                let buffer = try DumbBuffer(device: node, size: size)
                owners.append(buffer)
                memory = buffer.bytes
                fd = buffer.fd
            } else {
                let buffer = FrameBuffer(format: format, width: width, height: height)
                owners.append(buffer)
                memory = buffer.allBytes
            }
            var copy = frame
            var offset = 0
            for (p, plane) in frame.planes.enumerated() {
                let target = UnsafeMutableRawBufferPointer(rebasing: memory[offset..<offset + plane.bytes.count])
                target.copyMemory(from: plane.bytes)
                copy.planes[p] = Plane(bytes: UnsafeRawBufferPointer(target), bytesPerRow: plane.bytesPerRow,
                                       dmabuf: fd.map { DMABufPlane(fd: $0, offset: offset) })
                offset += plane.bytes.count
            }
            copy.sequence = UInt64(i)
            copy.storage = nil
            frames.append(copy)
        }
        return (frames, owners)
    }

    var settings: RenderSettings {
        get throws {
            workload == .cube ? RenderSettings(crop: .square, mode: .cube)
                : RenderSettings(crop: .none, filters: try FilterChain(parsing: workload.filters))
        }
    }

    /// Runs `body` on the render thread with a warmed-up renderer and a
    /// function that renders frame `i` of the prepared frames.
    private func warmedUp<T>(on thread: RenderThread, warmUp: Int,
                             _ body: @escaping (_ render: (Int) throws -> Void) throws -> T) throws -> T {
        let (frameList, buffers) = try makeFrames()
        var settings = try self.settings
        settings.upload = upload
        let context = self.context
        let analysis = workload == .sepiaAnalysed ? FrameAnalysis(analyzers: [LumaAnalyzer()], whenBusy: .skip) : nil
        defer { analysis?.stop() }
        return try thread.sync {
            try context.makeCurrent()
            let renderer = try FrameRenderer(context: context, settings: settings)
            if workload.forcesGL { renderer.rewrites.remove(.passthrough) }
            let render = { (i: Int) throws in
                try BenchStop.check()
                let frame = frameList[i % frameList.count]
                try analysis?.offer(frame, index: i)
                _ = try renderer.render(frame, index: i)
            }
            for i in 0..<warmUp { try render(i) }
            return try withExtendedLifetime(buffers) { try body(render) }
        }
    }

    func run(on thread: RenderThread) throws -> BenchResult {
        let count = frames
        return try warmedUp(on: thread, warmUp: 20) { render in
            var times = [Double](repeating: 0, count: count)
            AllocationCounter.start()
            let start = MonotonicClock.seconds
            var last = start
            for i in 0..<count {
                try render(i)
                let now = MonotonicClock.seconds
                times[i] = now - last
                last = now
            }
            let allocations = AllocationCounter.stop()
            times.sort()
            return BenchResult(workload: workload, width: width, height: height, format: format,
                               fps: Double(count) / (last - start), p50: times[count / 2] * 1000, p95: times[count * 95 / 100] * 1000,
                               allocationsPerFrame: allocations.map { Double($0.allocations) / Double(count) })
        }
    }

    struct Soak {
        /// Resident memory after warm-up and after each fifth of the frames.
        var resident: [Double]
        /// Heap bytes allocated and not freed over the run, when counting is on.
        var heapGrowth: Int?
    }

    func soak(on thread: RenderThread) throws -> Soak {
        let count = frames
        return try warmedUp(on: thread, warmUp: 100) { render in
            var samples = [ProcessMemory.residentBytes]
            samples.reserveCapacity(6)
            AllocationCounter.start()
            for i in 0..<count {
                try render(i)
                if (i + 1) % max(1, count / 5) == 0 { samples.append(ProcessMemory.residentBytes) }
            }
            return Soak(resident: samples, heapGrowth: AllocationCounter.stop()?.netBytes)
        }
    }
}

/// The physical limit beside the chain: copying a frame's RGBA bytes in memory.
enum MemoryCopy {
    /// Frames per second of a `memcpy` of `width * height * 4` bytes.
    static func fps(width: Int, height: Int, frames: Int) -> Double {
        let size = width * height * 4
        let a = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 64)
        let b = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 64)
        defer { a.deallocate(); b.deallocate() }
        a.initializeMemory(as: UInt8.self, repeating: 1)
        b.initializeMemory(as: UInt8.self, repeating: 0)
        for _ in 0..<10 { b.copyMemory(from: UnsafeRawBufferPointer(a)) }
        let start = MonotonicClock.seconds
        for i in 0..<frames {
            (i % 2 == 0 ? b : a).copyMemory(from: UnsafeRawBufferPointer(i % 2 == 0 ? a : b))
        }
        return Double(frames) / (MonotonicClock.seconds - start)
    }
}

enum ProcessMemory {
    /// Resident set size from /proc/self/statm.
    static var residentBytes: Double {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        return fields.count > 1 ? (Double(fields[1]) ?? 0) * Double(sysconf(Int32(_SC_PAGESIZE))) : 0
    }
}
