import Foundation
import XCTest

/// A kamera run serving the live picture (`--serve 0`): started in the
/// test's folder, its address read from the line it prints, stopped with
/// SIGINT. Its stderr is collected as it comes.
final class ServedKamera {
    let process: Process
    private(set) var port = 0

    /// Starts kamera and waits (at most 90 s) for a line containing `ready`.
    init(_ run: KameraProcess, _ arguments: [String], ready: String = "serving http://") throws {
        let (process, pipe) = try run.start(arguments)
        self.process = process
        let handle = pipe.fileHandleForReading
        let box = Collector()
        let thread = Thread {
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { return }
                box.append(chunk)
            }
        }
        thread.start()
        self.box = box
        guard let ready = wait(for: ready, seconds: 90) else {
            process.terminate()
            throw NSError(domain: "ServedKamera", code: 1, userInfo: [NSLocalizedDescriptionKey: "kamera \(arguments) never said '\(ready)': \(box.text)"])
        }
        if let range = ready.range(of: "serving http://") {
            let rest = ready[range.upperBound...]
            if let slash = rest.firstIndex(of: "/"), let colon = rest[..<slash].lastIndex(of: ":"), let port = Int(rest[rest.index(after: colon)..<slash]) {
                self.port = port
            }
        }
    }

    /// Waits until stderr has a line containing `text` (after `after` such lines); that line, or nil when the time ran out or kamera ended.
    func wait(for text: String, seconds: Double, after: Int = 0) -> String? {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            let lines = box.text.split(separator: "\n").filter { $0.contains(text) }
            if lines.count > after { return String(lines[after]) }
            if !process.isRunning || Date() > deadline { return nil }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    private var box: Collector!

    /// Everything kamera wrote to stderr so far.
    var stderr: String { box.text }

    var url: String { "http://127.0.0.1:\(port)" }

    /// Sends SIGINT and waits (at most 30 s) for the run to end as Kamera ends on it: by the same signal, after its clean-up.
    func stop(file: StaticString = #filePath, line: UInt = #line) {
        let status = interrupt()
        XCTAssertEqual(status, SIGINT, "kamera ends by SIGINT: \(stderr)", file: file, line: line)
        XCTAssertEqual(process.terminationReason, .uncaughtSignal, stderr, file: file, line: line)
    }

    /// Sends SIGINT and waits (at most 30 s); the exit status or signal, nil when the run did not end.
    @discardableResult
    func interrupt() -> Int32? {
        if process.isRunning { process.interrupt() }
        let deadline = Date().addingTimeInterval(30)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        guard !process.isRunning else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return nil
        }
        return process.terminationStatus
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// Kilobytes of memory the process holds now (VmRSS).
    var residentKiB: Int {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return 0 }
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    private final class Collector: @unchecked Sendable {
        private let lock = NSLock()
        private var data = Data()
        func append(_ chunk: Data) {
            lock.lock()
            data.append(chunk)
            lock.unlock()
        }
        var text: String {
            lock.lock()
            defer { lock.unlock() }
            return String(decoding: data, as: UTF8.self)
        }
    }
}
