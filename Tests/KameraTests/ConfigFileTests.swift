import CommandLineSupport
import Foundation
@testable import kamera
import XCTest

/// `--config FILE`: a run's options from a JSON object, the command line's own winning.
final class ConfigFileTests: KameraProcessTestCase {
    private func writeConfig(_ name: String, _ json: String) throws {
        try run.write(name, Array(json.utf8))
    }

    func testTheFileGivesTheSameRunAsItsOptions() throws {
        try writeConfig("run.json", #"{"size": "64x48", "filter": ["sepia", "blur=1"], "output": "from-file.y4m", "crop": "none", "quiet": true}"#)
        let fromFile = try run.run(["render", "--config", "run.json"])
        XCTAssertEqual(fromFile.status, 0, fromFile.stderr)
        XCTAssertEqual(fromFile.stderr, "", "quiet: true is --quiet")
        let direct = try run.run(["render", "--size", "64x48", "--filter", "sepia", "--filter", "blur=1", "-o", "direct.y4m", "--crop", "none"])
        XCTAssertEqual(direct.status, 0, direct.stderr)
        let a = try Data(contentsOf: URL(fileURLWithPath: run.path("from-file.y4m")))
        let b = try Data(contentsOf: URL(fileURLWithPath: run.path("direct.y4m")))
        XCTAssertEqual(a, b, "the file's options render what the same options on the command line do")
        // The default command (render) reads it too, and numbers are given as numbers.
        try writeConfig("numbers.json", #"{"size": "32x32", "frames": 2, "output": "n-%d.png"}"#)
        let numbers = try run.run(["--config", "numbers.json"])
        XCTAssertEqual(numbers.status, 0, numbers.stderr)
        let files = try run.contents().map { $0.split(separator: " ")[0] }
        XCTAssertTrue(files.contains("n-0.png") && files.contains("n-1.png"), "\(files)")
    }

    func testTheCommandLineOverridesTheFile() throws {
        try writeConfig("run.json", #"{"size": "64x48", "output": ["file-a.png", "file-b.png"], "filter": "sepia"}"#)
        let result = try run.run(["render", "--config", "run.json", "-o", "cli.png", "--size", "16x16"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let files = try run.contents().map { $0.split(separator: " ")[0] }
        XCTAssertTrue(files.contains("cli.png"), "\(files)")
        XCTAssertFalse(files.contains("file-a.png") || files.contains("file-b.png"), "-o on the command line replaces the file's list: \(files)")
        let png = try Data(contentsOf: URL(fileURLWithPath: run.path("cli.png")))
        // IHDR: width at bytes 16-19, height at 20-23.
        XCTAssertEqual(png[16..<24].map { $0 }, [0, 0, 0, 16, 0, 0, 0, 16], "--size on the command line wins")
    }

    func testBadFilesAreRefusedInOneLine() throws {
        try writeConfig("typo.json", #"{"fitler": "sepia"}"#)
        try run.assertFails(["render", "--config", "typo.json"], mentioning: ["typo.json", "no option 'fitler'", "valid keys:", "filter", "size"])
        try writeConfig("list.json", #"{"size": ["8x8", "16x16"]}"#)
        try run.assertFails(["render", "--config", "list.json"], mentioning: ["size takes one value"])
        try writeConfig("flag.json", #"{"quiet": "yes"}"#)
        try run.assertFails(["render", "--config", "flag.json"], mentioning: ["quiet is a flag", "true or false"])
        try writeConfig("array.json", #"["--size", "8x8"]"#)
        try run.assertFails(["render", "--config", "array.json"], mentioning: ["not a JSON object"])
        try writeConfig("broken.json", #"{"size": "8x8""#)
        try run.assertFails(["render", "--config", "broken.json"], mentioning: ["broken.json", "not a JSON object"])
        try writeConfig("nested.json", #"{"config": "other.json"}"#)
        try run.assertFails(["render", "--config", "nested.json"], mentioning: ["no option 'config'"])
        try run.assertFails(["render", "--config", "missing.json"], mentioning: ["missing.json", "No such file"])
        try run.assertFails(["render", "--config", "."], mentioning: ["regular JSON file"])
        try run.write("big.json", [UInt8](repeating: 0x20, count: (1 << 20) + 1))
        try run.assertFails(["render", "--config", "big.json"], mentioning: ["too large"])
        // Preview's own options are its keys; render's are not preview's.
        try writeConfig("preview.json", #"{"duration": 1}"#)
        try run.assertFails(["render", "--config", "preview.json"], mentioning: ["no option 'duration' for kamera render"])
    }
}

/// The kiosk's JSON file gives the unit's `ExecStart` options.
final class KioskConfigTests: XCTestCase {
    func testKioskFileHoldsTheUnitsOptions() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let unit = try String(contentsOf: root.appendingPathComponent("Examples/kiosk/kamera-kiosk.service"), encoding: .utf8)
        let start = try XCTUnwrap(unit.split(separator: "\n").first { $0.hasPrefix("ExecStart=") })
        let words = start.split(separator: " ").dropFirst().map(String.init)
        let config = root.appendingPathComponent("Examples/kiosk/kiosk.json").path
        let expanded = try ConfigFile.expand(["preview", "--config", config], root: Kamera.self)
        XCTAssertEqual(expanded.first, "preview")
        XCTAssertEqual(Self.pairs(Array(expanded.dropFirst()).filter { $0 != "--config" && $0 != config }), Self.pairs(Array(words.dropFirst())),
                       "Examples/kiosk/kiosk.json and the unit's ExecStart differ")
    }

    /// Each option with its value (or nil for a flag), `-o` as `--output`, in order of name.
    private static func pairs(_ words: [String]) -> [String] {
        var pairs: [String] = []
        var i = 0
        while i < words.count {
            let name = words[i] == "-o" ? "--output" : words[i]
            if i + 1 < words.count, !words[i + 1].hasPrefix("-") {
                pairs.append("\(name) \(words[i + 1])")
                i += 2
            } else {
                pairs.append(name)
                i += 1
            }
        }
        return pairs.sorted()
    }
}
