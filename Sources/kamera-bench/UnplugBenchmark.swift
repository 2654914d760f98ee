import Capture
import CommandLineSupport
import Foundation
import Lifecycle
import Pipeline

/// How long `kamera render` takes to end, with its one-line error, after its
/// camera is unplugged. vivid's `disconnect` control unplugs it, set from this
/// process (no tool's start-up in the figure); the renderer is a whole
/// process, as users run it. Target: under a second.
enum UnplugBenchmark {
    static let target = 1000.0

    /// The report line; "skipped: ..." when no camera can be unplugged this way.
    static func run(binary: URL) throws -> String {
        guard let camera = CameraDevice.list().first(where: { info in
            (try? CameraDevice(path: info.path).controls().contains { $0.name == "disconnect" }) ?? false
        }) else {
            return "camera unplug: skipped: no camera has a 'disconnect' control (vivid's; run the bench in shared/vm/run-in-vm)"
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kamera-bench-unplug-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let process = Process()
        process.executableURL = binary
        process.arguments = ["render", "--camera", camera.path, "--frames", "100000", "--size", "16x16",
                             "-o", folder.appendingPathComponent("u-%06d.png").path]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let deadline = MonotonicClock.seconds + 60
        while !FileManager.default.fileExists(atPath: folder.appendingPathComponent("u-000002.png").path) {
            guard process.isRunning, MonotonicClock.seconds < deadline else {
                process.terminate()
                return "camera unplug: failed: \(camera.path) gave no frames (\(String(decoding: errors.fileHandleForReading.availableData, as: UTF8.self)))"
            }
            usleep(20_000)
        }
        let start = MonotonicClock.seconds
        try CameraDevice(path: camera.path).setControl("disconnect=1")
        process.waitUntilExit()
        let milliseconds = (MonotonicClock.seconds - start) * 1000
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .split(separator: "\n").last.map(String.init) ?? ""
        return String(format: "camera unplug: kamera render ended %.0f ms after %@ was disconnected (target < %.0f ms), exit status %d: %@",
                      milliseconds, camera.path, target, process.terminationStatus, message)
    }
}
