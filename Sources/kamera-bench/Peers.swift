import Capture
import CommandLineSupport
import Foundation
import Lifecycle
import Pipeline
import Pixels

/// Other programs doing the same job on the same frames, timed in the same run.
enum Peer: String, CaseIterable {
    /// ffmpeg on the CPU: swscale to RGB plus colorchannelmixer's sepia.
    case ffmpeg = "ffmpeg (CPU)"
    /// GStreamer's GL elements: glupload, glcolorconvert, gleffects sepia, gldownload (EGL on an Xvfb display).
    case gstreamer = "gstreamer-gl"

    /// Times `frames` frames; the cost of starting the program is removed by
    /// also timing `frames / 2` and taking the difference.
    func measure(width: Int, height: Int, format: PixelFormat, frames: Int) -> PeerResult {
        var result = PeerResult(peer: self, width: width, height: height, format: format)
        guard let input = try? Self.writeFrames(width: width, height: height, format: format) else {
            result.note = "cannot write the frames"
            return result
        }
        defer { try? FileManager.default.removeItem(atPath: input) }
        // ffmpeg starts slowly and runs fast: give it enough frames to time.
        let half = max(self == .ffmpeg ? 400 : 4, frames / 2 / 4 * 4)
        let full = half * 2
        guard let short = run(input: input, width: width, height: height, format: format, frames: half, note: &result.note),
              let long = run(input: input, width: width, height: height, format: format, frames: full, note: &result.note)
        else { return result }
        guard long > short else {
            result.note = "too fast to time against its start-up cost"
            return result
        }
        result.fps = Double(full - half) / (long - short)
        return result
    }

    private func run(input: String, width: Int, height: Int, format: PixelFormat, frames: Int, note: inout String) -> Double? {
        let arguments: [String]
        var environment: [String: String] = [:]
        switch self {
        case .ffmpeg:
            arguments = ["ffmpeg", "-nostdin", "-v", "error", "-f", "rawvideo", "-pix_fmt", format == .yuyv ? "yuyv422" : "nv12",
                         "-s", "\(width)x\(height)", "-stream_loop", "-1", "-i", input, "-frames:v", "\(frames)",
                         "-vf", "colorchannelmixer=.3588:.7044:.1368:0:.2990:.5870:.1140:0:.2392:.4696:.0912",
                         "-pix_fmt", "rgba", "-f", "null", "-"]
        case .gstreamer:
            guard let display = XvfbDisplay.shared.name else { note = "needs Xvfb or a DISPLAY"; return nil }
            environment["DISPLAY"] = display
            environment["GST_GL_PLATFORM"] = "egl"
            arguments = ["gst-launch-1.0", "-q", "multifilesrc", "location=\(input)", "loop=true", "num-buffers=\(frames / 4)",
                         "!", "rawvideoparse", "format=\(format == .yuyv ? "yuy2" : "nv12")", "width=\(width)", "height=\(height)",
                         "framerate=0/1", "!", "glupload", "!", "glcolorconvert", "!", "gleffects", "effect=sepia", "!",
                         "gldownload", "!", "video/x-raw,format=RGBA", "!", "fakesink"]
        }
        // Through env, so that a peer that is not installed exits with 127.
        guard let result = try? ChildProcess(executable: "/usr/bin/env", arguments: arguments, environment: environment).run() else {
            note = "\(arguments[0]) not found"
            return nil
        }
        guard result.status == 0 else {
            let text = result.output.split(separator: "\n").last.map(String.init) ?? ""
            note = result.status == 127 ? "\(arguments[0]) not installed" : "failed: \(text.prefix(80))"
            return nil
        }
        return result.seconds
    }

    /// Four test-pattern frames, back to back, in a temporary raw file.
    private static func writeFrames(width: Int, height: Int, format: PixelFormat) throws -> String {
        let pattern = TestPattern(width: width, height: height, format: format)
        var data = Data()
        for i in 0..<4 {
            for plane in pattern.frame(at: UInt64(i * 7)).planes { data.append(contentsOf: plane.bytes) }
        }
        let path = NSTemporaryDirectory() + "kamera-bench-\(getpid())-\(width)x\(height).\(format.name)"
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }
}

struct PeerResult {
    var peer: Peer
    var width: Int
    var height: Int
    var format: PixelFormat
    var fps: Double?
    var note = ""

    static let header = "peer            size        format     fps   kamera/peer"

    private var columns: String { peer.rawValue.padded(15) + " " + "\(width)x\(height)".padded(11) + " " + format.name.padded(6) }

    func row(kameraFPS: Double?) -> String {
        guard let fps else {
            return columns + "        -   (\(note))"
        }
        let ratio = kameraFPS.map { String(format: "%.2fx", $0 / fps) } ?? "-"
        return columns + String(format: " %8.1f   ", fps) + ratio
    }
}

/// An X display for GStreamer's GL elements, which need a native display:
/// the user's DISPLAY, or an Xvfb started for the run and stopped when the
/// bench ends (`stop()`), by a signal too.
final class XvfbDisplay {
    static let shared = XvfbDisplay()
    let name: String?
    /// The Xvfb this run started, if any; not `shared`, which would start one.
    private static var started: Process?

    /// Stops the Xvfb this run started, if it started one.
    static func stop() {
        guard let process = started else { return }
        started = nil
        process.terminate()
        process.waitUntilExit()
    }

    private init() {
        if let display = ProcessInfo.processInfo.environment["DISPLAY"], !display.isEmpty {
            name = display
            return
        }
        let number = 90 + Int(getpid() % 9)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/Xvfb")
        process.arguments = [":\(number)", "-screen", "0", "640x480x24", "-nolisten", "tcp"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { name = nil; return }
        let socket = "/tmp/.X11-unix/X\(number)"
        for _ in 0..<50 where !FileManager.default.fileExists(atPath: socket) { usleep(100_000) }
        Self.started = process
        name = FileManager.default.fileExists(atPath: socket) ? ":\(number)" : nil
        atexit { XvfbDisplay.stop() }
    }
}
