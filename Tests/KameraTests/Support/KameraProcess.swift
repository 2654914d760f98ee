import Foundation
import XCTest

/// The built `kamera` binary, run as a user runs it, in a scratch folder.
struct KameraProcess {
    let folder: URL

    /// `KAMERA_BINARY` when set: scripts/test.sh sets the release build that
    /// the Debian package ships, with kamera-bench and the zxing-cpp helper
    /// beside it. In the emulated VM every process start and llvmpipe's shader
    /// compiles cost seconds, and a debug build takes about twice as long per
    /// run, much of it in checks the argument parser makes only in debug
    /// builds. Else the debug build beside the tests.
    static var binary: URL {
        if let path = ProcessInfo.processInfo.environment["KAMERA_BINARY"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        let tests = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [tests, tests.deletingLastPathComponent()] {
            let url = candidate.appendingPathComponent("kamera")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return Bundle.main.bundleURL.appendingPathComponent("kamera")
    }

    /// A new empty folder under the temporary directory; `remove()` deletes it.
    static func scratch(_ name: String) throws -> KameraProcess {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kamera-\(name)-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return KameraProcess(folder: folder)
    }

    func remove() {
        try? FileManager.default.removeItem(at: folder)
    }

    struct Result {
        var status: Int32
        /// `.exit` or `.uncaughtSignal` (then `status` is the signal).
        var reason: Process.TerminationReason
        var stdout: Data
        var stderr: String
        var output: String { String(decoding: stdout, as: UTF8.self) }
    }

    /// Runs `script` with bash in `folder`, `prependingPath` put first on the
    /// PATH; stdout and stderr come back apart, stdin is empty.
    static func shell(_ script: String, in folder: URL, prependingPath: String? = nil) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", script]
        process.currentDirectoryURL = folder
        var environment = ProcessInfo.processInfo.environment
        if let prependingPath { environment["PATH"] = prependingPath + ":" + (environment["PATH"] ?? "/usr/bin:/bin") }
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        return try collect(process)
    }

    /// Starts `process` and waits for it, reading its stdout and stderr side by side.
    static func collect(_ process: Process) throws -> Result {
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        var stdout = Data()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) { stdout = out.fileHandleForReading.readDataToEndOfFile() }
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, reason: process.terminationReason, stdout: stdout,
                      stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// Starts kamera with `arguments` and returns at once, with the pipe its
    /// stderr goes to; its stdin is an open pipe (no keys), its stdout discarded.
    func start(_ arguments: [String]) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = arguments
        process.currentDirectoryURL = folder
        let err = Pipe()
        process.standardError = err
        process.standardInput = Pipe()
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        return (process, err)
    }

    /// Runs kamera with `arguments`; `input` goes to its standard input.
    func run(_ arguments: [String], input: String = "") throws -> Result {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = arguments
        process.currentDirectoryURL = folder
        let keys = Pipe()
        process.standardInput = keys
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        keys.fileHandleForWriting.write(Data(input.utf8))
        try keys.fileHandleForWriting.close()
        var stdout = Data(), stderr = Data()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) { stdout = out.fileHandleForReading.readDataToEndOfFile() }
        stderr = err.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, reason: process.terminationReason, stdout: stdout,
                      stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// Every name in the folder and below it, hidden ones included, with sizes.
    func contents() throws -> [String] {
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.fileSizeKey])!
        return enumerator.compactMap { item -> String? in
            guard let url = item as? URL else { return nil }
            let size = (try? url.resourceValues(forKeys: [.fileSizeKey]).fileSize).flatMap { $0 } ?? 0
            return String(url.path.dropFirst(folder.path.count + 1)) + " \(size)"
        }.sorted()
    }

    func write(_ name: String, _ bytes: [UInt8]) throws {
        try Data(bytes).write(to: folder.appendingPathComponent(name))
    }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// Runs a bad command and checks the error contract: exit status 1, one
    /// line on stderr that names the problem (`expected`), nothing written.
    func assertFails(_ arguments: [String], mentioning expected: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let before = try contents()
        let result = try run(arguments)
        XCTAssertEqual(result.reason, .exit, "\(arguments): ended by a signal: \(result.stderr)", file: file, line: line)
        XCTAssertEqual(result.status, 1, "exit status for \(arguments): \(result.stderr)", file: file, line: line)
        let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.isEmpty }
        XCTAssertEqual(lines.count, 1, "\(arguments): one line on stderr, got: \(result.stderr)", file: file, line: line)
        XCTAssertTrue(result.stderr.hasPrefix("kamera: error: "), result.stderr, file: file, line: line)
        XCTAssertFalse(result.stderr.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "control characters on stderr: \(result.stderr.debugDescription)", file: file, line: line)
        for text in expected {
            XCTAssertTrue(result.stderr.contains(text), "\(arguments): '\(text)' missing from: \(result.stderr)", file: file, line: line)
        }
        XCTAssertEqual(try contents(), before, "\(arguments): the folder must be left as it was", file: file, line: line)
        XCTAssertTrue(result.stdout.isEmpty, "\(arguments): nothing on stdout", file: file, line: line)
    }
}

/// A test case with a scratch folder of its own and the binary to run there.
class KameraProcessTestCase: XCTestCase {
    var run: KameraProcess!

    override func setUpWithError() throws {
        run = try KameraProcess.scratch(String(describing: type(of: self)))
    }

    override func tearDownWithError() throws {
        run.remove()
    }
}
