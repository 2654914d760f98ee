import Foundation
import Pipeline

enum BenchWorkload: String, CaseIterable {
    /// Upload, sepia on the whole frame, read back.
    case sepia = "upload+sepia+readback"
    /// Upload, square crop, cube at the crop size, read back.
    case cube = "upload+cube+readback"
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

    static let header = "workload                size        format     fps   ms/frame p50   p95   allocs/frame"

    var row: String {
        let allocs = allocationsPerFrame.map { String(format: "%.2f", $0) } ?? "n/a"
        return workload.rawValue.padded(23) + " " + "\(width)x\(height)".padded(11) + " " + format.name.padded(6)
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
    var platform: GPUPlatform
    var version: GLESVersion

    /// Four distinct test-pattern frames, copied so each keeps its own memory.
    func makeFrames() -> [FrameBuffer] {
        let pattern = TestPattern(width: width, height: height, format: format)
        return (0..<4).map { i in
            let frame = pattern.frame(at: UInt64(i * 7))
            let copy = FrameBuffer(format: format, width: width, height: height)
            var offset = 0
            for plane in frame.planes {
                UnsafeMutableRawBufferPointer(rebasing: copy.allBytes[offset..<offset + plane.bytes.count]).copyMemory(from: plane.bytes)
                offset += plane.bytes.count
            }
            return copy
        }
    }

    var settings: RenderSettings {
        switch workload {
        case .sepia: RenderSettings(crop: .none, filters: FilterChain([.colorMatrix("sepia", .sepia)]))
        case .cube: RenderSettings(crop: .square, mode: .cube)
        }
    }

    /// Runs `body` on the render thread with a warmed-up renderer and a
    /// function that renders frame `i` of the prepared frames.
    private func warmedUp<T>(on thread: RenderThread, warmUp: Int,
                             _ body: @escaping (_ render: (Int) throws -> Void) throws -> T) throws -> T {
        let buffers = makeFrames()
        let frameList = buffers.enumerated().map { $0.element.frame(sequence: UInt64($0.offset), timestamp: 0) }
        let settings = self.settings, platform = self.platform, version = self.version
        return try thread.sync {
            let context = try GPUContext(platform: platform, version: version)
            let renderer = try FrameRenderer(context: context, settings: settings)
            let render = { (i: Int) throws in _ = try renderer.render(frameList[i % frameList.count], index: i) }
            for i in 0..<warmUp { try render(i) }
            return try withExtendedLifetime(buffers) { try body(render) }
        }
    }

    func run(on thread: RenderThread) throws -> BenchResult {
        let count = frames
        return try warmedUp(on: thread, warmUp: 20) { render in
            var times = [Double](repeating: 0, count: count)
            AllocationCounter.start()
            let start = Clock.now
            var last = start
            for i in 0..<count {
                try render(i)
                let now = Clock.now
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
            var samples = [Clock.residentBytes]
            samples.reserveCapacity(6)
            AllocationCounter.start()
            for i in 0..<count {
                try render(i)
                if (i + 1) % max(1, count / 5) == 0 { samples.append(Clock.residentBytes) }
            }
            return Soak(resident: samples, heapGrowth: AllocationCounter.stop()?.netBytes)
        }
    }
}

enum Clock {
    /// Monotonic seconds.
    static var now: Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    /// Resident set size from /proc/self/statm.
    static var residentBytes: Double {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        return fields.count > 1 ? (Double(fields[1]) ?? 0) * Double(sysconf(Int32(_SC_PAGESIZE))) : 0
    }
}

extension String {
    /// The string left-aligned in a column of `width` characters.
    func padded(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
