import Foundation
import XCTest

/// Every example of the README and of each `--help` screen runs as written,
/// from the repository root (here: a scratch folder holding the repository's
/// `Examples`), with `kamera` on the PATH. Those that need a camera or the
/// console's display are left to the VM tests; `kamera bench` to BenchTests.
final class ExamplesTests: KameraProcessTestCase {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Examples that need a camera, the console's display or a DRM card, or that are the benchmark.
    static func needsHardware(_ line: String) -> Bool {
        let words = ["--camera", "/dev/video", "-o kms", "--card", "kamera controls", "kamera bench", "kamera devices --formats"]
        return words.contains { line.contains($0) }
    }

    func testHelpExamplesStayOnOneLineAndRun() throws {
        XCTAssertGreaterThan(try runEach(helpExamples()), 12, "examples run from the help screens")
    }

    func testReadmeExamplesRunAsWritten() throws {
        XCTAssertGreaterThan(try runEach(readmeExamples()), 20, "README examples run here")
    }

    /// Runs each of `lines` but those that watch a shader (the test below has them); returns how many ran.
    private func runEach(_ lines: [String]) throws -> Int {
        let lines = lines.filter { !$0.contains("--watch") }
        for line in lines { try runExample(line) }
        return lines.count
    }

    /// The examples that watch a shader (of the README and the help screens)
    /// run until they have written their picture, then are stopped with Ctrl-C,
    /// as a user stops them.
    func testWatchExamplesRunUntilCtrlC() throws {
        var ran = 0
        for line in try readmeExamples() + helpExamples() where line.contains("--watch") {
            let line = line.components(separatedBy: "  #")[0]
            let result = try shell("kamera_watch() { " + line + " & pid=$!; for i in $(seq 600); do [ -s wave.png ] && break; sleep 0.1; done; sleep 0.5; kill -INT $pid; wait $pid; }; rm -f wave.png; kamera_watch")
            XCTAssertEqual(result.status, 130, "\(line): stopped by Ctrl-C: \(result.stderr)")
            XCTAssertFalse(result.stderr.contains("error"), "\(line): \(result.stderr)")
            ran += 1
        }
        XCTAssertGreaterThan(ran, 0, "watch examples run here")
    }

    /// The example lines of every `--help` screen that need no camera or display,
    /// checked to stay the same when the screen is 50 columns wide.
    private func helpExamples() throws -> [String] {
        var examples: [String] = []
        for command in ["render", "preview", "cube", "shader", "snap", "codecs", "devices", "displays", "controls"] {
            let narrow = try help(command, columns: 50), wide = try help(command, columns: 400)
            XCTAssertEqual(narrow, wide, "kamera \(command) --help: examples wrapped at 50 columns")
            examples += narrow.filter { !Self.needsHardware($0) }
        }
        return examples
    }

    /// The README's `kamera` lines in its shell blocks that need no camera or display.
    private func readmeExamples() throws -> [String] {
        let readme = try String(contentsOf: Self.repository.appendingPathComponent("README.md"), encoding: .utf8)
        var inShell = false, lines: [String] = []
        for line in readme.components(separatedBy: "\n") {
            if line.hasPrefix("```") { inShell = line == "```sh"; continue }
            if inShell, line.hasPrefix("kamera ") { lines.append(line) }
        }
        XCTAssertGreaterThan(lines.count, 30, "the README's kamera examples")
        return lines.filter { !Self.needsHardware($0) }
    }

    /// The example lines of `kamera COMMAND --help` rendered `columns` wide.
    private func help(_ command: String, columns: Int) throws -> [String] {
        let result = try shell("COLUMNS=\(columns) kamera \(command) --help")
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.output.components(separatedBy: "\n")
        guard let start = lines.firstIndex(of: "Examples:") else { return [] }
        let block = lines[(start + 1)...].prefix { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        for line in block { XCTAssertTrue(line.hasPrefix("  kamera "), "kamera \(command) --help: not an example line: '\(line)'") }
        return block.map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// Runs one example in the scratch folder.
    private func runExample(_ line: String, file: StaticString = #filePath, lineNumber: UInt = #line) throws {
        let line = line.components(separatedBy: "  #")[0]
        let result = try shell("set -o pipefail; " + line)
        XCTAssertEqual(result.status, 0, "\(line): \(result.stderr)", file: file, line: lineNumber)
    }

    private func shell(_ script: String) throws -> KameraProcess.Result {
        let bin = run.folder.appendingPathComponent("bin")
        if !FileManager.default.fileExists(atPath: bin.path) {
            try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(at: bin.appendingPathComponent("kamera"), withDestinationURL: KameraProcess.binary)
            try FileManager.default.createSymbolicLink(at: run.folder.appendingPathComponent("Examples"),
                                                       withDestinationURL: Self.repository.appendingPathComponent("Examples"))
            // The README's face example reads the test pictures from elsewhere (Tests/Media).
            try FileManager.default.createDirectory(at: run.folder.appendingPathComponent("Tests"), withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(at: run.folder.appendingPathComponent("Tests/Media"),
                                                       withDestinationURL: Self.repository.appendingPathComponent("Tests/Media"))
        }
        return try KameraProcess.shell(script, in: run.folder, prependingPath: bin.path)
    }
}
