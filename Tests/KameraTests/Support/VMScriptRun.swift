import Foundation
import KameraKit
import XCTest

/// One VM boot running a shell script in a new temporary folder, for a test
/// class whose tests then check what the script wrote there: booted in the
/// class's `setUp`, removed in its `tearDown`. A run that failed (the VM did
/// not boot, the script exited non-zero) makes every test that asks for the
/// folder fail with the log, and the end of every log the script wrote.
/// Each command the script runs is traced with the time into `trace.log`,
/// so that a run stopped by its timeout names the command that hung.
final class VMScriptRun: @unchecked Sendable {
    private let folder: URL?
    private let log: String

    /// `files`: names and contents written into the folder before the boot;
    /// `vmArguments`: for run-in-vm (`--loopback`); `timeout`: seconds the run
    /// may take, a catch for hangs only: the VM is emulated (TCG), and the same
    /// boot has taken from 7 to over 10 minutes on this machine from one hour to the next.
    init(_ script: String, name: String, files: [String: String] = [:], vmArguments: [String] = [], timeout: Int = 1500) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("kamera-\(name)-vm-\(UUID().uuidString)")
        var folder: URL?, log: String
        do {
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            for (file, text) in files { try text.write(to: dir.appendingPathComponent(file), atomically: true, encoding: .utf8) }
            let (status, output) = try VMTests.run(["bash", "-c", Self.tracing + script], vmArguments: vmArguments + ["--timeout", "\(timeout)"], in: dir)
            log = output
            if status == 0 { folder = dir } else { log += Self.logTails(in: dir) }
        } catch {
            log = "\(error)" + Self.logTails(in: dir)
        }
        (self.folder, self.log) = (folder, log)
    }

    /// Put before each script: bash's trace (`set -x`), each line stamped with
    /// the time and the process (subshells running side by side apart), to
    /// trace.log, in the script's subshells and functions too.
    static let tracing = "exec 9>>trace.log; BASH_XTRACEFD=9; PS4='+ \\t $BASHPID '; set -x\n"

    /// A script for a run with `vmArguments: ["--loopback"]`: `feed` (an ffmpeg
    /// command writing to /dev/video10, the v4l2loopback camera) in the
    /// background, then, once the device captures, `body`; the feed is stopped last.
    static func loopbackCamera(feed: String, then body: String) -> String {
        """

        \(feed) &
        FEED=$!
        until v4l2-ctl -d /dev/video10 -D 2>/dev/null | grep -q 'Video Capture'; do sleep 0.2; done
        \(body)
        kill $FEED
        """
    }

    /// The end of each log the script wrote, for a run that failed: a run
    /// stopped by its timeout never reaches the script's own `cat`. The last
    /// written come last, where the message's cut keeps them: a script's own
    /// trace, and the log of a command that hung.
    private static func logTails(in dir: URL) -> String {
        func modified(_ name: String) -> Date {
            ((try? FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent(name).path))?[.modificationDate] as? Date) ?? .distantPast
        }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).filter { $0.hasSuffix(".log") }
            .map { (modified($0), $0) }.sorted { $0 < $1 }.map(\.1)
        return names.map { name in
            let text = (try? String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)) ?? "(unreadable)"
            return "\n--- \(name) (its end) ---\n" + text.suffix(1200)
        }.joined()
    }

    /// The folder the script wrote; throws (the test fails, the others go on) when the run failed.
    func checkedFolder() throws -> URL {
        guard let folder else {
            throw CaptureError("the VM run failed (\(VMTests.runInVM.path)):\n\(log.suffix(8000))")
        }
        return folder
    }

    /// A text file the script wrote.
    func text(_ name: String) throws -> String {
        try String(contentsOf: checkedFolder().appendingPathComponent(name), encoding: .utf8)
    }

    /// A picture the script wrote.
    func image(_ name: String) throws -> Image {
        let frame = try XCTUnwrap(try ImageSource(path: checkedFolder().appendingPathComponent(name).path).nextFrame())
        return Image(width: frame.width, height: frame.height, pixels: Array(frame.planes[0].bytes))
    }

    func remove() {
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }
}
