import ArgumentParser
import BuildInfo
import CommandLineSupport
import DRM
import Foundation
import GPU
import Pipeline
import Pixels

/// `kamera bench`: its own executable, so that only it links the malloc
/// interposer that counts allocations. `kamera bench ARGS` runs it.
@main
struct KameraBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kamera bench",
        abstract: "Throughput, latency, allocations and memory of the render chain, with peers measured in the same run.",
        discussion: """
        Frames are held in memory, so only the GPU chain is timed. Build in release mode first:
          swift build -c release && .build/release/kamera bench
        This is the kamera-bench executable, which `kamera bench` runs; it links the malloc
        interposer that counts allocations (kamera itself does not).
        """,
        version: kameraVersion)

    @Option(parsing: .unconditional, help: "Frame sizes, comma-separated.")
    var sizes = "640x480,1280x720,1920x1080"

    @Option(parsing: .unconditional, help: "Pixel formats, comma-separated.")
    var formats = "yuyv,nv12"

    @Option(parsing: .unconditional, help: "Measured frames per case (after 20 warm-up frames).",
            transform: ArgumentValue.integer("a whole number of frames, 10 or more"))
    var frames = 200

    @Option(parsing: .unconditional, help: "Frames in the memory soak (640x480 YUYV, sepia); 0 skips it.",
            transform: ArgumentValue.integer("a whole number of frames, 0 to skip the soak"))
    var soak = 10_000

    @Flag(inversion: .prefixedNo, help: "Measure the peers (ffmpeg, GStreamer GL, kmscube) beside Kamera; --no-peers runs Kamera alone.")
    var peers = true

    @Flag(help: "Only the zero-copy comparison (dma-buf import vs copy); it needs a DRM card and dma-buf import.")
    var zeroCopyOnly = false

    @Flag(help: "Only the camera unplug measurement; it needs a camera with vivid's disconnect control.")
    var unplugOnly = false

    @Flag(help: "Only the display measurement (kamera cube and sepia preview on -o kms beside kmscube); it needs a DRM card with a connected display and no display server.")
    var displayOnly = false

    @Flag(help: "Only the live picture over HTTP: kamera preview --serve (unfiltered and sepia) beside ustreamer on one camera, to 1 and 10 clients: frames a second delivered, CPU, latency from capture; and libjpeg-turbo's encode time, the floor.")
    var streamOnly = false

    @Flag(help: "Only publishing: kamera preview -o rtmp:// (unfiltered and sepia) beside ffmpeg -f v4l2 … libx264 -f flv on one camera (vivid's), into nginx-rtmp, read back over RTMP: CPU, frames read, glass-to-glass latency.")
    var publishOnly = false

    @Flag(help: "Only the virtual camera: kamera preview -o /dev/videoN (unfiltered and sepia) beside ffmpeg -f v4l2 … -vf colorchannelmixer -f v4l2 on one camera (vivid's), into v4l2loopback, read back by ffmpeg: CPU, frames read, glass-to-glass latency.")
    var virtualCameraOnly = false

    @Option(parsing: .unconditional, help: "With --virtual-camera-only: the v4l2loopback device written.")
    var virtualCamera = "/dev/video10"

    @Option(parsing: .unconditional, help: "With --stream-only, --publish-only or --virtual-camera-only: the camera.")
    var streamDevice = "/dev/video0"

    @Option(parsing: .unconditional, help: "With --stream-only or --publish-only: seconds measured per program (and client count), after 3 s of warm-up.",
            transform: ArgumentValue.integer("a whole number of seconds, 1 or more"))
    var streamSeconds = 20

    @Option(parsing: .unconditional, help: "With --stream-only: the numbers of clients at once, comma-separated.")
    var streamClients = "1,10"

    @Option(parsing: .unconditional, help: "With --stream-only or --publish-only: rounds, the programs in turn each round (medians).",
            transform: ArgumentValue.integer("a whole number of rounds, 1 to 100"))
    var streamRounds = 2

    @Flag(help: "Only composition: the 1280x720 test pattern to Y4M alone and with a second one in a corner (--layout pip) or beside it (--layout side), beside ffmpeg's overlay and hstack of two testsrc2: CPU per frame, and what composing adds; --end-to-end-runs rounds, --end-to-end-frames the long run (the short one a quarter of it).")
    var compositionOnly = false

    @Flag(help: "Only the live preview measurement: kamera preview of the test pattern paced at 1080p30 and 720p60, frames late.")
    var liveOnly = false

    @Flag(help: "Only the end-to-end measurement: raw file → sepia or cube → PNG sequence, Kamera, ffmpeg and GStreamer GL as whole processes.")
    var endToEndOnly = false

    @Flag(help: "Only the recording measurement: 720p YUYV → sepia → H.264/MP4, FFV1/MKV and JPEG stills, Kamera beside ffmpeg (the same encoder settings, and encoding alone) and GStreamer GL into x264enc; and the CPU's YUYV → 4:2:0 conversion in memory, fixed point beside floating point.")
    var recordingOnly = false

    @Flag(help: "Only detection: faces and codes at 640x480 and 1280x720 beside GStreamer's facedetect, zxing and zbar, and the live preview at 720p30 with and without --detect faces,codes.")
    var detectionOnly = false

    @Option(parsing: .unconditional, help: "The folder holding astronaut.png for the detection measurement (the repository's Tests/Media).")
    var detectionMedia = "Tests/Media"

    @Option(parsing: .unconditional, help: "scikit-image's lfw_subset.npy, to count the faces each face model finds (scripts/bench.sh takes it from Debian's python3-skimage); none: leave it out.")
    var faceSet = ".build/face-set/lfw_subset.npy"

    @Flag(help: "Only the formats Kamera repacks (UYVY, NV21, YU12, RGB565, Y16, ...): raw file → PNG sequence at 720p and 1080p, Kamera beside ffmpeg, GStreamer (videoconvert, bayer2rgb, glcolorconvert) and its own run on the native format, and the repack alone in memory.")
    var formatsOnly = false

    @Flag(help: "Only the raw Bayer ISP in memory (Malvar and bilinear) beside the CPU's YUYV conversion, at the --format-sizes.")
    var demosaicOnly = false

    @Option(parsing: .unconditional, help: "With --formats-only: only these formats (Kamera's names, comma-separated) and the native formats they become.")
    var onlyFormats: String?

    @Option(parsing: .unconditional, help: "With --formats-only or --demosaic-only: the frame sizes, comma-separated.")
    var formatSizes = "1280x720,1920x1080"

    @Flag(help: "Only the filters end to end: 1280x720 YUYV → blur, sharpen, 3x3 convolve, pixellate → PNG sequence, Kamera beside ffmpeg's gblur, unsharp, convolution and pixelize.")
    var filtersOnly = false

    @Option(parsing: .unconditional, help: "Runs of each program per end-to-end case (alternated; medians).",
            transform: ArgumentValue.integer("a whole number of runs, 1 or more"))
    var endToEndRuns = 5

    @Option(parsing: .unconditional, help: "Frames per end-to-end run.", transform: ArgumentValue.integer("a whole number of frames, 1 or more"))
    var endToEndFrames = 60

    @Flag(help: "With --end-to-end-only: the report as JSON, for scripts.")
    var json = false

    @Option(parsing: .unconditional, help: "Frames of the short and the long display run, SHORT,LONG; the rate is measured between them.")
    var displayFrames = "30,150"

    @Option(parsing: .unconditional, help: "Rounds of the display measurement, the programs in turn each round (medians).", transform: ArgumentValue.integer("a whole number of rounds, 1 to 100"))
    var displayRounds = 3

    @OptionGroup var gpuOptions: GPUOptions

    static func main() { runWithOneLineErrors { "kamera bench --help" } }

    /// The kamera binary beside this one: what users run, measured as a whole process.
    static var kamera: URL {
        (Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])).deletingLastPathComponent().appendingPathComponent("kamera")
    }

    func run() throws {
        // Also when a signal stops the bench, which then ends without atexit.
        defer { XvfbDisplay.stop() }
        let binary = Self.kamera
        let counts = displayFrames.split(separator: ",").compactMap { Int($0) }
        guard counts.count == 2, counts[0] >= 1, counts[1] > counts[0], counts[1] <= 100_000 else {
            throw UsageError("--display-frames \(excerpt(displayFrames)) is not valid; use SHORT,LONG with 1 <= SHORT < LONG <= 100000, such as 30,150")
        }
        guard (1...100).contains(displayRounds) else { throw UsageError("--display-rounds \(displayRounds) is not valid; use 1 to 100 rounds, such as 3") }
        let display = DisplayBenchmark(kamera: binary, shortRun: counts[0], longRun: counts[1], rounds: displayRounds, peers: peers)
        if compositionOnly {
            var bench = CompositionBenchmark(kamera: binary)
            bench.peers = peers
            guard (1...100).contains(endToEndRuns) else { throw UsageError("--end-to-end-runs \(endToEndRuns) is not valid for --composition-only; use 1 to 100 rounds") }
            bench.rounds = endToEndRuns
            bench.frames = (max(1, endToEndFrames / 4), max(2, endToEndFrames))
            print(try bench.run { FileHandle.standardError.write(Data("composition: \($0)\n".utf8)) })
            return
        }
        if unplugOnly {
            print(try UnplugBenchmark.run(binary: binary))
            return
        }
        if displayOnly {
            print(display.run())
            return
        }
        if publishOnly || virtualCameraOnly {
            guard streamSeconds >= 4, (1...100).contains(streamRounds) else {
                throw UsageError("--stream-seconds must be 4 or more (the picture switches every 2 s) and --stream-rounds 1 to 100, such as --stream-seconds 20 --stream-rounds 2")
            }
            let bench = PublishBenchmark(kamera: binary, device: streamDevice, seconds: Double(streamSeconds), rounds: streamRounds, peers: peers,
                                         virtualCamera: virtualCameraOnly ? virtualCamera : nil)
            let section = virtualCameraOnly ? "virtual camera" : "publish"
            print(try bench.run { FileHandle.standardError.write(Data("\(section): \($0)\n".utf8)) })
            return
        }
        if streamOnly {
            let clients = streamClients.split(separator: ",").compactMap { Int($0) }
            guard !clients.isEmpty, clients.count == streamClients.split(separator: ",").count, clients.allSatisfy({ (1...100).contains($0) }) else {
                throw UsageError("--stream-clients \(excerpt(streamClients)) is not valid; use numbers of clients from 1 to 100, comma-separated, such as 1,10")
            }
            guard streamSeconds >= 1, (1...100).contains(streamRounds) else {
                throw UsageError("--stream-seconds must be 1 or more and --stream-rounds 1 to 100, such as --stream-seconds 20 --stream-rounds 2")
            }
            let bench = StreamBenchmark(kamera: binary, device: streamDevice, seconds: Double(streamSeconds), clientCounts: clients, rounds: streamRounds, peers: peers)
            print(try bench.run { FileHandle.standardError.write(Data("stream: \($0)\n".utf8)) })
            return
        }
        if liveOnly {
            print(try LiveBenchmark(kamera: binary).run())
            return
        }
        if recordingOnly {
            print(try RecordingBenchmark(kamera: binary, frames: endToEndFrames, runs: endToEndRuns, peers: peers).run {
                FileHandle.standardError.write(Data("recording: \($0)\n".utf8))
            })
            return
        }
        let detection = DetectionBenchmark(kamera: binary, media: URL(fileURLWithPath: detectionMedia), frames: endToEndFrames, runs: min(endToEndRuns, 3), peers: peers,
                                            faceSet: faceSet == "none" ? nil : URL(fileURLWithPath: faceSet))
        let formatSizeList = try formatSizes.split(separator: ",").map { try SizeArgument.parse(String($0), option: "--format-sizes", example: "1280x720,1920x1080") }
        if demosaicOnly {
            let bench = FormatBenchmark(kamera: binary, sizes: formatSizeList, frames: endToEndFrames, runs: endToEndRuns, peers: peers)
            print(formatSizeList.map { bench.demosaicAgainstConversion(width: $0.width, height: $0.height) }.joined(separator: "\n"))
            return
        }
        if formatsOnly {
            let bench = FormatBenchmark(kamera: binary, sizes: formatSizeList, frames: endToEndFrames, runs: endToEndRuns, peers: peers,
                                        only: onlyFormats.map { Set($0.split(separator: ",").map(String.init)) })
            print(try bench.run { FileHandle.standardError.write(Data("formats: \($0)\n".utf8)) })
            return
        }
        if detectionOnly {
            print(try detection.run { FileHandle.standardError.write(Data("detection: \($0)\n".utf8)) })
            return
        }
        if json && !endToEndOnly { throw UsageError("--json reports the end-to-end measurement; add --end-to-end-only") }
        guard endToEndRuns >= 1 else { throw UsageError("--end-to-end-runs \(endToEndRuns) must be 1 or more") }
        guard endToEndFrames >= 1 else { throw UsageError("--end-to-end-frames \(endToEndFrames) must be 1 or more") }
        let platform = try gpuOptions.platform(), version = try gpuOptions.version()
        let sizeList = try sizes.split(separator: ",").map { text -> (width: Int, height: Int) in
            try SizeArgument.parse(String(text), option: "--sizes", example: "640x480,1280x720")
        }
        let formatList = try formats.split(separator: ",").map { text -> PixelFormat in
            guard let f = PixelFormat(name: String(text)) else { throw UsageError("--formats: '\(excerpt(text))' is not supported; use \(PixelFormat.validNames)") }
            return f
        }
        guard !sizeList.isEmpty else { throw UsageError("--sizes names no size; use WxH,WxH such as 640x480,1280x720") }
        guard !formatList.isEmpty else { throw UsageError("--formats names no format; use some of \(PixelFormat.validNames)") }
        guard frames >= 10 else { throw UsageError("--frames \(frames) is too few; use 10 or more") }
        var endToEnd = EndToEndBenchmark(kamera: binary, sizes: sizeList, formats: formatList, frames: endToEndFrames, runs: endToEndRuns)
        var filtersEndToEnd = EndToEndBenchmark(kamera: binary, sizes: [(1280, 720)], formats: [.yuyv], frames: endToEndFrames, runs: endToEndRuns)
        if !peers { (endToEnd.programs, filtersEndToEnd.programs) = ([.kamera], [.kamera]) }
        filtersEndToEnd.workloads = EndToEndBenchmark.Workload.filters
        if filtersOnly {
            print(EndToEndBenchmark.text(try filtersEndToEnd.run { FileHandle.standardError.write(Data("filters end to end: \($0)\n".utf8)) }))
            return
        }
        if endToEndOnly {
            let report = try endToEnd.run { if !json { FileHandle.standardError.write(Data("end to end: \($0)\n".utf8)) } }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                print(String(decoding: try encoder.encode(report), as: UTF8.self))
            } else {
                print(EndToEndBenchmark.text(report))
            }
            return
        }
        guard soak >= 0 else { throw UsageError("--soak \(soak) must be 0 (no soak) or more") }
        let logger = gpuOptions.makeLogger()
        let thread = RenderThread()
        // One context for every case: contexts are not cheap, and some drivers limit them.
        var context: GPUContext! = try thread.sync { try GPUContext(platform: platform, version: version, logger: logger) }
        // The last reference goes on the context's own thread, before that thread is joined.
        defer { try? thread.sync { context = nil } }
        let gpu = context.summary, canImport = context.eglExtensions.contains("EGL_EXT_image_dma_buf_import")
        print("kamera bench: \(gpu); allocation counting \(AllocationCounter.isActive ? "on" : "off (the malloc interposer is not in use)")")
        print("")
        if !zeroCopyOnly { print(BenchResult.header) }
        var results: [BenchResult] = []
        let rows = zeroCopyOnly ? 0 : sizeList.reduce(0) { total, size in
            total + formatList.count * BenchWorkload.allCases.filter { !$0.onlyAt720p || (size.width, size.height) == (1280, 720) }.count
        }
        for size in sizeList where !zeroCopyOnly {
            for format in formatList {
                for workload in BenchWorkload.allCases where !workload.onlyAt720p || (size.width, size.height) == (1280, 720) {
                    // Progress on stderr: the table on stdout may be going to a file.
                    progress("row \(results.count + 1) of \(rows): \(size.width)x\(size.height) \(format.rawValue) \(workload.rawValue)")
                    let result = try Benchmark(workload: workload, width: size.width, height: size.height, format: format,
                                               frames: frames, context: context).run(on: thread)
                    print(result.row)
                    results.append(result)
                }
            }
        }
        if !zeroCopyOnly {
            print("")
            print("Limits and the filter's cost (same frames, this run): a memcpy of the frame's RGBA bytes is the physical limit;")
            print("the filter's cost is sepia's time per frame over the pass-through's on the same path (target: under 10 %):")
            for size in sizeList {
                for format in formatList {
                    func fps(_ w: BenchWorkload) -> Double? {
                        results.first { $0.workload == w && $0.width == size.width && $0.height == size.height && $0.format == format }?.fps
                    }
                    guard let plain = fps(.plain), let sepia = fps(.sepia), let glPlain = fps(.glPlain), let glSepia = fps(.glSepia) else { continue }
                    let copy = MemoryCopy.fps(width: size.width, height: size.height, frames: frames)
                    print(String(format: "  %@ %@: memcpy %.0f fps; plain %.2fx of it, sepia %.2fx, the filter %+.0f %%; GL path: copy shader %.2fx, sepia %.2fx, the filter %+.0f %%",
                                 "\(size.width)x\(size.height)".padded(10), format.name.padded(5), copy, plain / copy, sepia / copy,
                                 (plain / sepia - 1) * 100, glPlain / copy, glSepia / copy, (glPlain / glSepia - 1) * 100))
                    if let analysed = fps(.sepiaAnalysed) {
                        let extra = (1 / analysed - 1 / sepia) * 1000
                        print(String(format: "  %@ %@: the luma analysis costs the loop %+.2f ms a frame (its copy of the luma; the analysis runs beside it): %+.1f %% of a 30 fps frame (target: under 5 %%)",
                                     "\(size.width)x\(size.height)".padded(10), format.name.padded(5), extra, extra / (1000 / 30) * 100))
                    }
                }
            }
        }
        print("")
        let node = platform.description.hasPrefix("gbm:/dev/dri/card") ? String(platform.description.dropFirst(4)) : DRMNode.firstWithDumbBuffers()
        if let node, canImport {
            print("Zero-copy: frames in dma-bufs from \(node), imported as EGLImages vs copied (upload + sepia + readback):")
            print(BenchResult.header + "   upload   dmabuf/copy")
            for size in sizeList {
                for format in [PixelFormat.yuyv, .nv12, .yu12, .bgra] {
                    var copyFPS: Double?
                    for upload in [FrameUploader.Upload.copy, .dmabuf] {
                        let result = try Benchmark(workload: .sepia, width: size.width, height: size.height, format: format,
                                                   frames: frames, context: context,
                                                   dumbBuffersOn: node, upload: upload).run(on: thread)
                        let ratio = copyFPS.map { String(format: "%.2fx", result.fps / $0) } ?? ""
                        print(result.row + "   " + upload.rawValue.padded(8) + " " + ratio)
                        copyFPS = copyFPS ?? result.fps
                    }
                }
            }
        } else {
            print("Zero-copy: skipped: \(node == nil ? "no /dev/dri/cardN can allocate buffers" : "the EGL display cannot import dma-bufs; try --gpu gbm:/dev/dri/cardN")")
        }
        if peers && !zeroCopyOnly {
            print("")
            print("Peers on the same frames (upload + sepia + download), measured now:")
            print(PeerResult.header)
            for size in sizeList {
                for format in formatList {
                    let own = results.first { $0.workload == .sepia && $0.width == size.width && $0.height == size.height && $0.format == format }
                    for peer in Peer.allCases {
                        progress("peer \(peer.rawValue) at \(size.width)x\(size.height) \(format.rawValue)")
                        let result = peer.measure(width: size.width, height: size.height, format: format, frames: frames)
                        print(result.row(kameraFPS: own?.fps))
                    }
                }
            }
        }
        if soak > 0 && !zeroCopyOnly {
            print("")
            let result = try Benchmark(workload: .sepia, width: 640, height: 480, format: .yuyv, frames: soak,
                                       context: context).soak(on: thread)
            let samples = result.resident
            let mib = samples.map { String(format: "%.1f", $0 / 1_048_576) }.joined(separator: " → ")
            print(String(format: "memory soak: %d frames of 640x480 yuyv sepia; RSS (MiB) after warm-up and each fifth: %@",
                         soak, mib))
            let heap = result.heapGrowth.map { String(format: "%.1f KiB", Double($0) / 1024) } ?? "n/a"
            print(String(format: "  RSS growth %.0f KiB (target < 1024 KiB); heap allocated and not freed meanwhile: %@",
                         ((samples.last ?? 0) - (samples.first ?? 0)) / 1024, heap))
        }
        if !zeroCopyOnly {
            print("")
            print(EndToEndBenchmark.text(try endToEnd.run()))
            print("")
            print(EndToEndBenchmark.text(try filtersEndToEnd.run()))
            print("")
            print(try LiveBenchmark(kamera: binary).run())
            print("")
            print(try RecordingBenchmark(kamera: binary, frames: max(endToEndFrames, 120), runs: min(endToEndRuns, 3), peers: peers).run())
            print("")
            print(try detection.run())
            print("")
            print(try UnplugBenchmark.run(binary: binary))
            print("")
            // The render thread's context goes first: it may hold the display card.
            try? thread.sync { context = nil }
            print(display.run())
        }
    }
}

/// One line of progress on stderr, so a long run is seen to be working.
func progress(_ text: String) {
    FileHandle.standardError.write(Data("bench: \(text)\n".utf8))
}
