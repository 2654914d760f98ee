import ArgumentParser
import Foundation
import Pipeline

struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Throughput, latency, allocations and memory of the render chain, with peers measured in the same run.",
        discussion: """
        Frames are held in memory, so only the GPU chain is timed. Build in release mode first:
          swift build -c release && .build/release/kamera bench
        Allocation counts need the malloc interposer preloaded; bench re-runs itself with
        LD_PRELOAD set when it finds libMallocInterposerSwift.so beside the binary.
        """)

    @Option(help: "Frame sizes, comma-separated.")
    var sizes = "640x480,1280x720,1920x1080"

    @Option(help: "Pixel formats, comma-separated.")
    var formats = "yuyv,nv12"

    @Option(help: "Measured frames per case (after 20 warm-up frames).")
    var frames = 200

    @Option(help: "Frames in the memory soak (640x480 YUYV, sepia); 0 skips it.")
    var soak = 10_000

    @Flag(inversion: .prefixedNo, help: "Measure the peers (ffmpeg, GStreamer GL) on the same frames.")
    var peers = true

    @OptionGroup var gpuOptions: GPUOptions

    func run() throws {
        try reportingErrors {
            if try AllocationCounter.reexecWithInterposerIfNeeded() { return }
            let logger = gpuOptions.makeLogger()
            let platform = try gpuOptions.platform(), version = try gpuOptions.version()
            let sizeList = try sizes.split(separator: ",").map { text -> (width: Int, height: Int) in
                guard let s = parseSize(String(text)) else { throw UsageError("--sizes: '\(text)' is not a size; use WxH") }
                return s
            }
            let formatList = try formats.split(separator: ",").map { text -> PixelFormat in
                guard let f = PixelFormat(name: String(text)) else { throw UsageError("--formats: '\(text)' is not supported; use \(PixelFormat.validNames)") }
                return f
            }
            guard frames >= 10 else { throw UsageError("--frames \(frames) is too few; use 10 or more") }
            let thread = RenderThread()
            let gpu = try thread.sync { try GPUContext(platform: platform, version: version, logger: logger).summary }
            print("kamera bench: \(gpu); allocation counting \(AllocationCounter.isActive ? "on" : "off (libMallocInterposerSwift.so not preloaded)")")
            print("")
            print(BenchResult.header)
            var results: [BenchResult] = []
            for size in sizeList {
                for format in formatList {
                    for workload in BenchWorkload.allCases {
                        let result = try Benchmark(workload: workload, width: size.width, height: size.height, format: format,
                                                   frames: frames, platform: platform, version: version).run(on: thread)
                        print(result.row)
                        results.append(result)
                    }
                }
            }
            if peers {
                print("")
                print("Peers on the same frames (upload + sepia + download), measured now:")
                print(PeerResult.header)
                for size in sizeList {
                    for format in formatList {
                        let own = results.first { $0.workload == .sepia && $0.width == size.width && $0.height == size.height && $0.format == format }
                        for peer in Peer.allCases {
                            let result = peer.measure(width: size.width, height: size.height, format: format, frames: frames)
                            print(result.row(kameraFPS: own?.fps))
                        }
                    }
                }
            }
            if soak > 0 {
                print("")
                let result = try Benchmark(workload: .sepia, width: 640, height: 480, format: .yuyv, frames: soak,
                                           platform: platform, version: version).soak(on: thread)
                let samples = result.resident
                let mib = samples.map { String(format: "%.1f", $0 / 1_048_576) }.joined(separator: " → ")
                print(String(format: "memory soak: %d frames of 640x480 yuyv sepia; RSS (MiB) after warm-up and each fifth: %@",
                             soak, mib))
                let heap = result.heapGrowth.map { String(format: "%.1f KiB", Double($0) / 1024) } ?? "n/a"
                print(String(format: "  RSS growth %.0f KiB (target < 1024 KiB); heap allocated and not freed meanwhile: %@",
                             ((samples.last ?? 0) - (samples.first ?? 0)) / 1024, heap))
            }
        }
    }
}
