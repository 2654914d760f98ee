import Capture
import Foundation
import XCTest

/// What one step of a shared VM boot (`VMBoot`) wrote, for the test class
/// whose tests check it: its folder, its log and its exit status. A step that
/// failed (the VM did not boot, the step exited non-zero or ran past its
/// limit, its preparation failed) makes every test that asks for the folder
/// fail with the step's name, its log and the end of every log it wrote.
/// Each command a step runs is traced with the time into `trace.log`, so
/// that a step stopped by its limit names the command that hung.
final class VMScriptRun: @unchecked Sendable {
    let step: String
    private let folder: URL?
    private let log: String

    /// The step `step` of a boot that has run, in `folder`: failed unless its `step.rc` says 0.
    init(step: String, folder: URL, bootLog: String) {
        self.step = step
        let read = { (name: String) in try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8) }
        let status = read("step.rc")?.trimmingCharacters(in: .whitespacesAndNewlines)
        if status == "0" {
            (self.folder, self.log) = (folder, read("step.log") ?? "")
        } else {
            let why = status.map { $0 == "124" || $0 == "137" ? "ran past its time limit (exit \($0))" : "exited with \($0)" }
                ?? "did not run to its end (the boot failed or timed out); the boot's log:\n\(bootLog.suffix(3000))"
            (self.folder, self.log) = (nil, "VM step \(step) \(why)\n--- step.log (its end) ---\n"
                + (read("step.log") ?? "(none)").suffix(3000) + Self.logTails(in: folder))
        }
    }

    /// A step that never ran: `log` says why.
    init(failedStep step: String, log: String) {
        (self.step, self.folder, self.log) = (step, nil, "VM step \(step): \(log)")
    }

    /// Put before each script: bash's trace (`set -x`), each line stamped with
    /// the time and the process (subshells running side by side apart), to
    /// trace.log, in the script's subshells and functions too.
    static let tracing = "exec 9>>trace.log; BASH_XTRACEFD=9; PS4='+ \\t $BASHPID '; set -x\n"

    /// A script for a step with `loopback: true`: `feed` (an ffmpeg
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
        let skipped: Set<String> = ["step.log", "drivers.log"]
        func modified(_ name: String) -> Date {
            ((try? FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent(name).path))?[.modificationDate] as? Date) ?? .distantPast
        }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).filter { $0.hasSuffix(".log") && !skipped.contains($0) }
            .map { (modified($0), $0) }.sorted { $0 < $1 }.map(\.1)
        return names.map { name in
            let text = (try? String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)) ?? "(unreadable)"
            return "\n--- \(name) (its end) ---\n" + text.suffix(1200)
        }.joined()
    }

    /// The folder the script wrote; throws (the test fails, the others go on) when the run failed.
    func checkedFolder() throws -> URL {
        guard let folder else {
            throw CaptureError("\(log.suffix(8000))")
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
